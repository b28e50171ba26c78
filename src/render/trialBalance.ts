import type { GlAccount } from '../domain/accounts.js';
import type { ExtraColumns } from './statements.js';
import { atomsToDecimal } from '../domain/money.js';
import type { TrialBalance, TrialBalanceRow } from '../domain/trialBalance.js';
import { csvField, spreadsheetText } from './csv.js';
import {
  printedDate,
  printStatement,
  type Amount,
  type PrintOptions,
  type StatementLine,
} from './statementTable.js';

const LABELS: Record<string, string> = {
  debit: 'Debit',
  credit: 'Credit',
  unadjusted_debit: 'Unadjusted Dr',
  unadjusted_credit: 'Unadjusted Cr',
  adjustments_debit: 'Adjustments Dr',
  adjustments_credit: 'Adjustments Cr',
  adjusted_debit: 'Adjusted Dr',
  adjusted_credit: 'Adjusted Cr',
};

/** A column's heading: Debit, Credit, the worksheet's, or a tag value's (`alpha Dr`, `(none) Cr`). */
function columnLabel(c: string): string {
  const split = /^[a-z][a-z0-9_-]*:(.*):(debit|credit)$/s.exec(c);
  if (split) return `${split[1]} ${split[2] === 'debit' ? 'Dr' : 'Cr'}`;
  return LABELS[c] ?? c;
}

export interface TrialBalanceTableOptions extends PrintOptions {
  entity: string;
  /** With the chart: accounts indented under their parents, each parent with a subtotal. */
  tree?: GlAccount[];
  unadjusted?: boolean;
}

const label = (r: { account_number: string | null; name: string }) =>
  r.account_number ? `${r.account_number} ${r.name}` : r.name;

const cellsOf = (tb: TrialBalance, r: TrialBalanceRow): Amount[] =>
  tb.columns.map((c) => r[c] as Amount);

/** Debits minus credits of each pair of columns (one pair, or the worksheet's three). */
function nets(tb: TrialBalance, r: TrialBalanceRow): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; i < tb.columns.length; i += 2)
    out.push(
      BigInt((r[tb.columns[i]!] as Amount) ?? 0) - BigInt((r[tb.columns[i + 1]!] as Amount) ?? 0),
    );
  return out;
}

/** Nets back in their columns: a positive in the debit column, a negative in the credit, zero in neither. */
const sided = (ns: bigint[]): Amount[] =>
  ns.flatMap((n) => (n > 0n ? [n, null] : n < 0n ? [null, -n] : [null, null]));

/**
 * The rows under their parents in the chart: a parent (shown or not in the trial balance) heads its
 * accounts and is subtotalled after them; roots keep the order of their first row.
 */
function treeLines(tb: TrialBalance, chart: GlAccount[]): StatementLine[] {
  const byId = new Map(chart.map((a) => [a.id, a]));
  const rowOf = new Map(tb.rows.flatMap((r) => (r.account_id ? [[r.account_id, r] as const] : [])));
  const kids = new Map<string | null, (string | TrialBalanceRow)[]>();
  const placed = new Set<string>();
  const place = (id: string) => {
    if (placed.has(id)) return;
    placed.add(id);
    const parent = byId.get(id)?.parent_id ?? null;
    if (parent) place(parent);
    kids.set(parent, [...(kids.get(parent) ?? []), id]);
  };
  for (const r of tb.rows) {
    if (r.account_id) place(r.account_id);
    else kids.set(null, [...(kids.get(null) ?? []), r]);
  }
  const out: StatementLine[] = [];
  const walk = (node: string | TrialBalanceRow, depth: number): bigint[] => {
    if (typeof node !== 'string') {
      out.push({ label: label(node), depth, cells: cellsOf(tb, node), kind: 'line' });
      return nets(tb, node);
    }
    const row = rowOf.get(node);
    const a = byId.get(node)!;
    const own = row ? cellsOf(tb, row) : tb.columns.map(() => null);
    out.push({ label: label(a), depth, cells: own, kind: 'line' });
    const children = kids.get(node) ?? [];
    let sum = row ? nets(tb, row) : tb.columns.filter((_, i) => i % 2 === 0).map(() => 0n);
    for (const c of children) sum = walk(c, depth + 1).map((n, i) => n + sum[i]!);
    if (children.length > 1 || (children.length === 1 && row))
      out.push({ label: `Total ${label(a)}`, depth, cells: sided(sum), kind: 'total' });
    return sum;
  };
  for (const root of kids.get(null) ?? []) walk(root, 0);
  return out;
}

/**
 * The trial balance as printed: entity, title and date at the top, one line per account with its
 * balance in the debit or the credit column (the worksheet's three pairs), and the totals.
 */
export function trialBalanceTable(tb: TrialBalance, opts: TrialBalanceTableOptions): string {
  const lines = opts.tree
    ? treeLines(tb, opts.tree)
    : tb.rows.map((r): StatementLine => ({
        label: label(r),
        depth: 0,
        cells: cellsOf(tb, r),
        kind: 'line',
      }));
  const totals = tb.columns.map((c) => tb.totals[c] ?? 0);
  lines.push({ label: 'Total', depth: 0, cells: totals, kind: 'grand' });
  const title =
    tb.columns.length > 2 && !tb.columns_by
      ? 'Trial Balance Worksheet'
      : opts.unadjusted
        ? 'Unadjusted Trial Balance'
        : 'Trial Balance';
  const fy = `fiscal year from ${printedDate(tb.fiscal_year_start)}`;
  const dates = `As of ${printedDate(tb.as_of)} · ${fy} · ${tb.reporting_currency}`;
  const columns = tb.columns.map((c) => ({ label: columnLabel(c), clipped: null }));
  return printStatement([opts.entity, title, dates], columns, lines, opts);
}

/** The trial balance as CSV: one row per account (and the prior years' row), then the totals. */
export function trialBalanceCsv(
  tb: TrialBalance,
  opts: { exponent: number; atoms?: boolean; extra?: ExtraColumns },
): string {
  const amount = (c: Amount) =>
    c === null || c === undefined ? '' : opts.atoms ? String(c) : atomsToDecimal(c, opts.exponent);
  const head = [
    'account_number',
    'account_id',
    'name',
    'account_type',
    'account_kind',
    ...tb.columns,
    ...(opts.extra?.head ?? []),
  ];
  const lines = [head.map(csvField).join(',')];
  for (const r of tb.rows) {
    const text = [r.account_number ?? '', r.account_id ?? '', r.name].map(spreadsheetText);
    text.push(r.account_type ?? '', r.account_kind, ...cellsOf(tb, r).map(amount));
    if (opts.extra) text.push(...opts.extra.cells(r.account_id ?? null));
    lines.push(text.map(csvField).join(','));
  }
  const total = ['', '', 'Total', '', 'total', ...tb.columns.map((c) => amount(tb.totals[c] ?? 0))];
  if (opts.extra) total.push(...opts.extra.cells(null));
  lines.push(total.map(csvField).join(','));
  return lines.join('\n') + '\n';
}
