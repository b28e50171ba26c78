import { formatAmount } from '../domain/money.js';
import type { Period } from '../domain/periods.js';
import { cell } from './text.js';

export type Amount = number | bigint | null | undefined;

/** A line of a printed statement: its label, its depth, its cells, and how it is set. */
export interface StatementLine {
  label: string;
  depth: number;
  /** Amounts, or text already set (a percentage). */
  cells: (Amount | string)[];
  /** heading: a section's name; total: a total line; grand: the statement's last lines. */
  kind: 'heading' | 'line' | 'total' | 'grand';
}

export interface StatementColumn {
  label: string;
  /** Set when the window cuts the period short: what it covers, for a footnote. */
  clipped: string | null;
  /** Columns of one group (a period and its comparisons) stay in one block when they fit. */
  group?: number;
}

export interface PrintOptions {
  exponent: number;
  /** Terminal width to fit; columns split into blocks that fit, each repeating the labels. */
  width?: number;
  bold?: (s: string) => string;
}

const DAY_MONTHS = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
];

/** A date as printed statements write it: `10 May 2025`. */
export function printedDate(iso: string): string {
  return `${Number(iso.slice(8, 10))} ${DAY_MONTHS[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`;
}

/**
 * The columns of periods, with those the window cuts short marked: a column covers less than its
 * label says when the window starts or ends inside it.
 */
export function periodColumns(
  periods: Period[],
  full: (p: Period) => { start: string; end: string },
): StatementColumn[] {
  return periods.map((p) => {
    const f = full(p);
    const cut = p.start_date !== f.start || p.end_date !== f.end;
    return {
      label: cut ? `${p.label}*` : p.label,
      clipped: cut ? `${printedDate(p.start_date)} – ${printedDate(p.end_date)}` : null,
    };
  });
}

/**
 * An amount as accountants print it: thousands separators, negatives in parentheses, and a space
 * after a positive where a negative has its closing parenthesis, so that digits line up.
 */
function printed(a: Amount | string, exponent: number): string {
  if (a === null || a === undefined) return '';
  if (typeof a === 'string') return `${a} `;
  const text = formatAmount(a, exponent);
  return text.endsWith(')') ? text : `${text} `;
}

/**
 * A statement printed as accountants print one: the heading lines (entity, title, dates, currency),
 * then one row per line, labels indented by depth, amounts right-aligned in columns of one width for
 * the whole report; split into blocks of columns that fit the terminal, each repeating the labels;
 * footnotes for the columns the window cuts short.
 */
export function printStatement(
  heading: string[],
  columns: StatementColumn[],
  lines: StatementLine[],
  opts: PrintOptions,
): string {
  const bold = opts.bold ?? ((s: string) => s);
  const labels = lines.map((l) => '  '.repeat(l.depth) + cell(l.label));
  const labelWidth = Math.max(...labels.map((l) => l.length), 10);
  const text = lines.map((l) => l.cells.map((c) => printed(c, opts.exponent)));
  const width = Math.max(
    ...columns.map((c) => c.label.length + 1),
    ...text.flat().map((t) => t.length),
    6,
  );
  const perBlock = Math.max(1, Math.floor(((opts.width ?? Infinity) - labelWidth) / (width + 2)));
  const out = heading.map((h, i) => (i < 2 ? bold(h) : h));
  for (const indexes of blocks(columns, perBlock)) {
    const block = indexes.map((i) => ({ ...columns[i]!, i }));
    out.push('');
    out.push(
      bold(
        [''.padEnd(labelWidth), ...block.map((c) => `${c.label} `.padStart(width))]
          .join('  ')
          .trimEnd(),
      ),
    );
    lines.forEach((l, k) => {
      const row = [
        labels[k]!.padEnd(labelWidth),
        ...block.map((c) => text[k]![c.i]!.padStart(width)),
      ]
        .join('  ')
        .trimEnd();
      out.push(l.kind === 'line' ? row : bold(row));
    });
  }
  const notes = columns.filter((c) => c.clipped).map((c) => `${c.label} ${c.clipped}`);
  if (notes.length) out.push('', ...notes.map((n) => `  ${n}`));
  return out.join('\n') + '\n';
}

/**
 * The columns of each block: as many as fit, a group (a period with its comparisons) kept whole; a
 * group wider than a block goes on in the next, led again by its period's column.
 */
function blocks(columns: StatementColumn[], perBlock: number): number[][] {
  const out: number[][] = [];
  let block: number[] = [];
  const close = () => {
    if (block.length) out.push(block);
    block = [];
  };
  for (let at = 0; at < columns.length;) {
    const group = columns[at]!.group;
    let end = at + 1;
    while (group !== undefined && end < columns.length && columns[end]!.group === group) end++;
    const size = end - at;
    if (block.length + size > perBlock) close();
    if (size <= perBlock || perBlock < 2) {
      for (let i = at; i < end; i++) {
        if (block.length >= perBlock) close();
        block.push(i);
      }
    } else {
      for (let i = at; i < end; i++) {
        if (block.length >= perBlock) {
          close();
          block.push(at);
        }
        block.push(i);
      }
    }
    at = end;
  }
  close();
  return out.length ? out : [[]];
}
