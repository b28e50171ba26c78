import { ACCOUNT_TYPES } from './accounts.js';
import type { Problem } from './errors.js';
import type { ReportAccount } from './statement.js';
import type { Column } from './compare.js';
import {
  fiscalYearStart,
  periodBounds,
  splitPeriods,
  type Period,
  type PeriodType,
} from './periods.js';

/** A budget cell as stored and listed: an account, a report period id, an amount in the statement's sign. */
export interface BudgetRow {
  gl_account_id: string;
  period: string;
  amount_atoms: number;
}

/** The import file's columns (docs/close.md), in order. */
export const BUDGET_COLUMNS = ['gl_account_id', 'period', 'amount'] as const;

const PERIOD_ID = /^(?!0000)(\d{4})(?:-(0[1-9]|1[0-2])|-Q([1-4]))?$/;

/** True for a report period id: `2026-01`, `2026-Q1` (of the fiscal year) or `2026`. */
export function isPeriodId(s: string): boolean {
  return PERIOD_ID.test(s);
}

/**
 * A budget's rows checked as a whole: each names an account of the chart and a period id, once (an
 * account named by its number on one row and its external id on another is one account).
 */
export function budgetProblems(
  rows: { row: number; gl_account_id: unknown; period: unknown; amount_atoms: unknown }[],
  accountOf: (ref: string) => { id: string } | undefined,
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
    else if (!accountOf(acct))
      add(r.row, 'gl_account_id', 'unknown_account', `no account '${acct}'`);
    if (!isPeriodId(period))
      add(
        r.row,
        'period',
        'invalid_period',
        `period '${String(r.period ?? '')}' is not a report period (2026-01, 2026-Q1 or 2026)`,
      );
    if (typeof r.amount_atoms !== 'number' || !Number.isSafeInteger(r.amount_atoms))
      add(r.row, 'amount_atoms', 'invalid_amount', 'amount_atoms is not whole atoms');
    const key = `${accountOf(acct)?.id ?? acct}\u0000${period}`;
    const first = seen.get(key);
    if (first !== undefined && acct && period)
      add(r.row, 'period', 'duplicate_row', `${acct} ${period} is also on row ${first}`);
    else seen.set(key, r.row);
  }
  return problems;
}

/**
 * A statement's budget cells. An account's activity budgeted over a column is counted top-down: each
 * whole fiscal year inside it by its own row, else each whole quarter by its own, else each month
 * (so that a quarter or year without its own row is the sum of its months, and a row of its own
 * wins); a column the window cuts short gets what the whole periods inside it budget. A
 * balance-sheet account's budget is a balance: the row of the whole period that ends where the column
 * ends (the column's own, else its last quarter's, else its last month's). Null where none is.
 */
export class BudgetCells {
  private readonly byAccount = new Map<number, Map<string, bigint>>();

  constructor(
    rows: { account_key: number; period: string; amount_atoms: number }[],
    private readonly columns: Column[],
    private readonly fyStartMonth: number,
    /** The columns' kind: a balance's budget is the column's own row, else a shorter period's. */
    private readonly periodType: PeriodType = 'monthly',
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

  /** The account's budget for a column (its own rows, not its children's). */
  cell(a: ReportAccount, c: number): bigint | null {
    const rows = this.byAccount.get(a.key);
    if (!rows) return null;
    const col = this.columns[c]!;
    if (ACCOUNT_TYPES[a.account_type].section === 'profit_and_loss')
      return this.activity(rows, col.start_date, col.end_date);
    const types = (['yearly', 'quarterly', 'monthly'] as const).slice(
      ['yearly', 'quarterly', 'monthly'].indexOf(this.periodType),
    );
    for (const type of types) {
      const p = periodBounds(col.end_date, type, this.fyStartMonth);
      const id = splitPeriods(p.start, p.end, type, this.fyStartMonth)[0]!.id;
      if (p.end === col.end_date && rows.has(id)) return rows.get(id)!;
    }
    return null;
  }

  /**
   * The budget's net income for a balance-sheet column: the profit-and-loss accounts' activity from
   * the start of the column's fiscal year through its end, credit-positive; null where none is.
   */
  netIncome(accounts: ReportAccount[], c: number): bigint | null {
    const end = this.columns[c]!.end_date;
    const start = fiscalYearStart(end, this.fyStartMonth);
    const cells: (bigint | undefined)[] = [];
    for (const a of accounts) {
      const rows = this.byAccount.get(a.key);
      if (ACCOUNT_TYPES[a.account_type].section !== 'profit_and_loss' || !rows) continue;
      const v = this.activity(rows, start, end);
      const income = a.account_type === 'income' || a.account_type === 'other_income';
      if (v !== null) cells.push(income ? v : -v);
    }
    return sumOf(cells);
  }

  /** Activity budgeted over [start, end], top-down over the whole periods inside it. */
  private activity(rows: Map<string, bigint>, start: string, end: string): bigint | null {
    const fy = this.fyStartMonth;
    const whole = (p: Period, type: PeriodType) => {
      const b = periodBounds(p.start_date, type, fy);
      return b.start === p.start_date && b.end === p.end_date;
    };
    const found: (bigint | undefined)[] = [];
    const walk = (from: string, to: string, type: PeriodType) => {
      for (const p of splitPeriods(from, to, type, fy)) {
        if (whole(p, type) && rows.has(p.id)) found.push(rows.get(p.id));
        else if (type === 'yearly') walk(p.start_date, p.end_date, 'quarterly');
        else if (type === 'quarterly') walk(p.start_date, p.end_date, 'monthly');
      }
    };
    walk(start, end, 'yearly');
    return sumOf(found);
  }
}

function sumOf(values: (bigint | undefined)[]): bigint | null {
  const present = values.filter((v): v is bigint => v !== undefined);
  return present.length ? present.reduce((s, v) => s + v, 0n) : null;
}
