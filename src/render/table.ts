import Table from 'cli-table3';
import { cell } from './text.js';

export type Align = 'left' | 'right';

/** A plain grid for lists: headers, rows, right-aligned number columns, no colour codes in the borders. */
export function grid(headers: string[], rows: string[][], align: Align[] = []): string {
  const t = new Table({
    head: headers.map(cell),
    colAligns: headers.map((_, i) => align[i] ?? 'left'),
    style: { head: [], border: [], compact: true, 'padding-left': 1, 'padding-right': 1 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: ' ',
    },
  });
  // Row by row: a spread of a long list overflows the call stack.
  for (const r of rows) t.push(r.map(cell));
  return t
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/**
 * The same plain grid for lists that may be long (a statement's lines): columns padded in one pass,
 * so that ten thousand rows take milliseconds where cli-table3 took seconds. Widths are counted in
 * code points (a wide character may push its row's later columns one place).
 */
export function longGrid(headers: string[], rows: string[][], align: Align[] = []): string {
  const cells = [headers, ...rows].map((r) => r.map(cell));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  const pad = (text: string, i: number) => {
    const gap = ' '.repeat(widths[i]! - [...text].length);
    return align[i] === 'right' ? gap + text : text + gap;
  };
  return cells.map((r) => ` ${r.map(pad).join('  ')}`.trimEnd()).join('\n');
}
