import type { AgingReport, AgingRow } from '../domain/aging.js';
import { atomsToDecimal } from '../domain/money.js';
import { csvField, spreadsheetText } from './csv.js';
import {
  printedDate,
  printStatement,
  type PrintOptions,
  type StatementLine,
} from './statementTable.js';

const TITLE = { receivable: 'Accounts Receivable Aging', payable: 'Accounts Payable Aging' };

const heading = (id: string) => (id === 'current' ? 'Current' : id);

function cellsOf(
  r: AgingReport,
  amounts: Record<string, number | bigint>,
  unapplied: number | bigint,
  total: number | bigint,
) {
  return [...r.buckets.map((b) => amounts[b.id] ?? 0), unapplied, total];
}

const who = (row: AgingRow) =>
  row.counterparty_external_id === null
    ? row.name
    : `${row.name} (${row.counterparty_type}:${row.counterparty_external_id})`;

/** The aging as printed: one line per counterparty (its open items under it with --detail), then totals. */
export function agingTable(
  r: AgingReport,
  opts: PrintOptions & { detail: boolean; entity?: string },
): string {
  const lines: StatementLine[] = [];
  for (const row of r.rows) {
    lines.push({
      label: who(row),
      depth: 0,
      cells: cellsOf(r, row.amounts, row.unapplied, row.total),
      kind: opts.detail ? 'total' : 'line',
    });
    if (!opts.detail) continue;
    for (const item of row.items) {
      const cells = r.buckets.map((b) => (b.id === item.bucket ? item.open_atoms : null));
      const memo = item.memo ? ` ${item.memo}` : '';
      lines.push({
        label: `${item.je_number} ${item.entry_date} (${item.days} days)${memo}`,
        depth: 1,
        cells: [...cells, null, null],
        kind: 'line',
      });
    }
  }
  lines.push({
    label: 'Total',
    depth: 0,
    cells: cellsOf(r, r.totals.amounts, r.totals.unapplied, r.totals.total),
    kind: 'grand',
  });
  const columns = [...r.buckets.map((b) => heading(b.id)), 'Unapplied', 'Total'].map((label) => ({
    label,
    clipped: null,
  }));
  const by = r.buckets[0]?.id === 'current' ? 'days past due' : 'days since the entry';
  const dates = `As of ${printedDate(r.as_of)} · ${by} · ${r.reporting_currency}`;
  return printStatement([TITLE[r.type], dates], columns, lines, opts);
}

/**
 * The aging as CSV: a row per counterparty (`counterparty`), with --detail its open items (`item`)
 * after it, then the totals (`total`); amounts in decimals or atoms.
 */
export function agingCsv(
  r: AgingReport,
  opts: { exponent: number; atoms?: boolean; detail: boolean },
): string {
  const amount = (c: number | bigint | null) =>
    c === null ? '' : opts.atoms ? String(c) : atomsToDecimal(c, opts.exponent);
  const head = [
    'kind',
    'counterparty_type',
    'counterparty_external_id',
    'name',
    'je_number',
    'entry_date',
    'due_date',
    'days',
    ...r.buckets.map((b) => b.id),
    'unapplied',
    'total',
  ];
  const out = [head.map(csvField).join(',')];
  const line = (fields: string[]) => out.push(fields.map(csvField).join(','));
  const text = (s: string | null) => spreadsheetText(s ?? '');
  for (const row of r.rows) {
    const party = [text(row.counterparty_type), text(row.counterparty_external_id), text(row.name)];
    line([
      'counterparty',
      ...party,
      '',
      '',
      '',
      '',
      ...cellsOf(r, row.amounts, row.unapplied, row.total).map(amount),
    ]);
    if (!opts.detail) continue;
    for (const i of row.items)
      line([
        'item',
        ...party,
        text(i.je_number),
        i.entry_date,
        i.due_date ?? '',
        String(i.days),
        ...r.buckets.map((b) => amount(b.id === i.bucket ? i.open_atoms : null)),
        '',
        amount(i.open_atoms),
      ]);
  }
  line([
    'total',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    ...cellsOf(r, r.totals.amounts, r.totals.unapplied, r.totals.total).map(amount),
  ]);
  return out.join('\n') + '\n';
}
