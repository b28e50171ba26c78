import { ACCOUNT_TYPES } from './accounts.js';
import { addMonths, parts } from './dates.js';
import type { Problem } from './errors.js';
import type { ReportAccount } from './statement.js';
import type { Column } from './compare.js';
import { fiscalYearStart } from './periods.js';

/** A budget cell as stored and listed: an account, a report period id, an amount in the statement's sign. */
export interface BudgetRow {
  gl_account_id: string;
  period: string;
  amount_atoms: number;
}

/** The import file's columns (close.md), in order. */
export const BUDGET_COLUMNS = ['gl_account_id', 'period', 'amount'] as const;

const PERIOD_ID = /^(\d{4})(?:-(0[1-9]|1[0-2])|-Q([1-4]))?$/;

/** True for a report period id: `2026-01`, `2026-Q1` (of the fiscal year) or `2026`. */
export function isPeriodId(s: string): boolean {
  return PERIOD_ID.test(s);
}

/** A budget's rows checked as a whole: each names an account of the chart and a period id, once. */
export function budgetProblems(
  rows: { row: number; gl_account_id: unknown; period: unknown; amount_atoms: unknown }[],
  known: (ref: string) => boolean,
): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  // A path names the row of the request (`rows[2].period`); `row` is the file's, when it has one.
  let at = 0;
  const add = (row: number, field: string, reason: string, message: string) =>
    problems.push({ row, path: `rows[${at}].${field}`, reason, message });
  for (const [i, r] of rows.entries()) {
    at = i;
    const acct = typeof r.gl_account_id === 'string' ? r.gl_account_id.trim() : '';
    const period = typeof r.period === 'string' ? r.period.trim() : '';
    if (!acct) add(r.row, 'gl_account_id', 'missing_field', 'gl_account_id is empty');
    else if (!known(acct)) add(r.row, 'gl_account_id', 'unknown_account', `no account '${acct}'`);
    if (!isPeriodId(period))
      add(
        r.row,
        'period',
        'invalid_period',
        `period '${String(r.period ?? '')}' is not a report period (2026-01, 2026-Q1 or 2026)`,
      );
    if (typeof r.amount_atoms !== 'number' || !Number.isSafeInteger(r.amount_atoms))
      add(r.row, 'amount_atoms', 'invalid_amount', 'amount_atoms is not whole atoms');
    const key = `${acct}\u0000${period}`;
    const first = seen.get(key);
    if (first !== undefined && acct && period)
      add(r.row, 'period', 'duplicate_row', `${acct} ${period} is also on row ${first}`);
    else seen.set(key, r.row);
  }
  return problems;
}

const monthId = (y: number, m: number) => `${y}-${String(m).padStart(2, '0')}`;

/** The month ids from the month of `start` through the month of `end`. */
function monthsIn(start: string, end: string): string[] {
  const out: string[] = [];
  let [y, m] = parts(start);
  const last = monthId(...(parts(end).slice(0, 2) as [number, number]));
  for (;;) {
    const id = monthId(y, m);
    out.push(id);
    if (id >= last) return out;
    [y, m] = addMonths(y, m, 1);
  }
}

/**
 * A statement's budget cells: an account's cell for a column is its row for the column's period;
 * without one, a profit-and-loss account's is the sum of its months' rows (activity adds up), a
 * balance-sheet account's its last month's row (a balance at the period's end); null where none is.
 */
export class BudgetCells {
  private readonly byAccount = new Map<number, Map<string, bigint>>();

  constructor(
    rows: { account_key: number; period: string; amount_atoms: number }[],
    private readonly columns: Column[],
    private readonly fyStartMonth: number,
  ) {
    for (const r of rows) {
      const m = this.byAccount.get(r.account_key) ?? new Map<string, bigint>();
      m.set(r.period, BigInt(r.amount_atoms));
      this.byAccount.set(r.account_key, m);
    }
  }

  isBudget(c: number): boolean {
    return this.columns[c]!.budget;
  }

  /** The account's budget for a column (its own row, not its children's). */
  cell(a: ReportAccount, c: number): bigint | null {
    const rows = this.byAccount.get(a.key);
    if (!rows) return null;
    const col = this.columns[c]!;
    const own = rows.get(periodIdOf(col));
    if (own !== undefined) return own;
    const months = monthsIn(col.start_date, col.end_date);
    if (ACCOUNT_TYPES[a.account_type].section !== 'profit_and_loss') {
      for (const id of months.reverse()) if (rows.has(id)) return rows.get(id)!;
      return null;
    }
    return sumOf(months.map((id) => rows.get(id)));
  }

  /**
   * The budget's net income for a balance-sheet column: the profit-and-loss accounts' months from
   * the start of the column's fiscal year through its end, credit-positive; null where none is.
   */
  netIncome(accounts: ReportAccount[], c: number): bigint | null {
    const col = this.columns[c]!;
    const months = monthsIn(fiscalYearStart(col.end_date, this.fyStartMonth), col.end_date);
    const cells: (bigint | undefined)[] = [];
    for (const a of accounts) {
      const section = ACCOUNT_TYPES[a.account_type].section;
      const rows = this.byAccount.get(a.key);
      if (section !== 'profit_and_loss' || !rows) continue;
      const income = a.account_type === 'income' || a.account_type === 'other_income';
      for (const id of months) {
        const v = rows.get(id);
        if (v !== undefined) cells.push(income ? v : -v);
      }
    }
    return sumOf(cells);
  }
}

/** The period a budget column stands for (`budget:2026-01` is of `2026-01`). */
function periodIdOf(col: Column): string {
  return col.id.replace(/^budget:/, '').replace(/:.*$/, '');
}

function sumOf(values: (bigint | undefined)[]): bigint | null {
  const present = values.filter((v): v is bigint => v !== undefined);
  return present.length ? present.reduce((s, v) => s + v, 0n) : null;
}
