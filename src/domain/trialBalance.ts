import { ACCOUNT_TYPES, type AccountType } from './accounts.js';
import { dayBefore } from './dates.js';
import { toJsonInteger } from './money.js';
import { fiscalYearStart } from './periods.js';
import type { ReportAccount } from './statement.js';
import type { Cumulative } from './totals.js';

export type Adjustments = 'include' | 'exclude' | 'worksheet';

type Atoms = number | bigint | null;

export interface TrialBalanceRow {
  account_id: string | null;
  account_number: string | null;
  name: string;
  account_type: AccountType | null;
  account_kind: 'regular' | 'retained_earnings';
  /** debit and credit, or the worksheet's six columns. */
  [column: string]: Atoms | string | null;
}

/** The trial balance as the API returns it (docs/close.md). */
export interface TrialBalance {
  as_of: string;
  reporting_currency: string;
  fiscal_year_start: string;
  columns: string[];
  rows: TrialBalanceRow[];
  totals: Record<string, number | bigint>;
  /** With `columns_by`: the tag key whose values' debit and credit come before the total's. */
  columns_by?: string;
}

/** Accounts in the order of the trial balance: by section, then by account number. */
export const TRIAL_BALANCE_TYPES: readonly AccountType[] = [
  'bank',
  'accounts_receivable',
  'other_current_asset',
  'fixed_asset',
  'other_asset',
  'accounts_payable',
  'credit_card',
  'other_current_liability',
  'long_term_liability',
  'equity',
  'income',
  'cost_of_goods_sold',
  'expense',
  'other_income',
  'other_expense',
];

export const WORKSHEET_COLUMNS = [
  'unadjusted_debit',
  'unadjusted_credit',
  'adjustments_debit',
  'adjustments_credit',
  'adjusted_debit',
  'adjusted_credit',
] as const;

export interface TrialBalanceInput {
  accounts: ReportAccount[];
  asOf: string;
  fiscalYearStartMonth: number;
  currency: string;
  /** The cuts of trialBalanceCuts(asOf, fy). */
  cuts: string[];
  totals: Map<number, Cumulative>;
  /** The part of the totals that adjusting entries make. */
  adjusting: Map<number, Cumulative>;
  adjustments: Adjustments;
}

/** The dates the trial balance needs totals at: the day before the fiscal year, and its date. */
export function trialBalanceCuts(asOf: string, fy: number): string[] {
  return [dayBefore(fiscalYearStart(asOf, fy)), asOf];
}

/** A balance (debits minus credits) in the debit or the credit column by its sign; both blank at zero. */
function sides(b: bigint): [bigint | null, bigint | null] {
  return b > 0n ? [b, null] : b < 0n ? [null, -b] : [null, null];
}

/**
 * Builds the trial balance: every account whose balance is not zero or that has lines in the
 * fiscal year to date, in the debit or the credit column; balance-sheet accounts cumulative, profit
 * and loss for the fiscal year to date, and one computed row for the profit and loss of earlier
 * years, so that debits equal credits. Adjustments are the adjusting entries of the fiscal year to
 * date: left out (exclude), or shown apart in the accountant's worksheet.
 */
export function buildTrialBalance(input: TrialBalanceInput): TrialBalance {
  const [fyBefore, asOf] = [0, 1];
  const columns = input.adjustments === 'worksheet' ? [...WORKSHEET_COLUMNS] : ['debit', 'credit'];
  const rank = (t: AccountType) => TRIAL_BALANCE_TYPES.indexOf(t);
  const key = (a: ReportAccount) => a.account_number ?? '\uffff';
  // Every account with lines: one made a header after it was posted to still holds its balance.
  const accounts = [...input.accounts].sort(
    (x, y) =>
      rank(x.account_type) - rank(y.account_type) ||
      (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0),
  );
  const rows: TrialBalanceRow[] = [];
  let priorYears = 0n;
  let priorLines = 0;
  for (const a of accounts) {
    const t = input.totals.get(a.key);
    if (!t) continue;
    const adj = input.adjusting.get(a.key);
    const profitAndLoss = ACCOUNT_TYPES[a.account_type].section === 'profit_and_loss';
    if (profitAndLoss) {
      priorYears += t.net[fyBefore]!;
      priorLines += t.count[fyBefore]!;
    }
    const from = profitAndLoss ? 1n : 0n;
    const adjusted = t.net[asOf]! - from * t.net[fyBefore]!;
    const adjustments = adj ? adj.net[asOf]! - adj.net[fyBefore]! : 0n;
    // Without the adjustments, an account shows by its unadjusted balance and lines.
    const exclude = input.adjustments === 'exclude';
    const adjLines = exclude && adj ? adj.count[asOf]! - adj.count[fyBefore]! : 0;
    const lines = t.count[asOf]! - t.count[fyBefore]! - adjLines;
    if ((exclude ? adjusted - adjustments : adjusted) === 0n && lines === 0) continue;
    const base = {
      account_id: a.id,
      account_number: a.account_number,
      name: a.name,
      account_type: a.account_type,
      account_kind: 'regular' as const,
    };
    rows.push({ ...base, ...cells(input.adjustments, adjusted, adjustments) });
  }
  if (priorLines > 0) {
    const base = {
      account_id: null,
      account_number: null,
      name: 'Retained Earnings (prior years)',
      account_type: null,
    };
    const re = {
      ...base,
      account_kind: 'retained_earnings' as const,
      ...cells(input.adjustments, priorYears, 0n),
    };
    const equityEnd = rows.findIndex(
      (r) => r.account_type !== null && rank(r.account_type) > rank('equity'),
    );
    rows.splice(equityEnd === -1 ? rows.length : equityEnd, 0, re);
  }
  const totals: Record<string, number | bigint> = {};
  for (const c of columns)
    totals[c] = toJsonInteger(rows.reduce((s, r) => s + BigInt((r[c] as Atoms) ?? 0), 0n));
  const fyStart = fiscalYearStart(input.asOf, input.fiscalYearStartMonth);
  return {
    as_of: input.asOf,
    reporting_currency: input.currency,
    fiscal_year_start: fyStart,
    columns,
    rows,
    totals,
  };
}

/** A row's columns: debit and credit of the balance (with or without adjustments), or the worksheet's six. */
function cells(mode: Adjustments, adjusted: bigint, adjustments: bigint): Record<string, Atoms> {
  const j = (v: bigint | null) => (v === null ? null : toJsonInteger(v));
  const pair = (b: bigint) => sides(b).map(j) as [Atoms, Atoms];
  if (mode === 'include') {
    const [debit, credit] = pair(adjusted);
    return { debit, credit };
  }
  if (mode === 'exclude') {
    const [debit, credit] = pair(adjusted - adjustments);
    return { debit, credit };
  }
  const [ud, uc] = pair(adjusted - adjustments);
  const [ad, ac] = pair(adjustments);
  const [d, c] = pair(adjusted);
  return {
    unadjusted_debit: ud,
    unadjusted_credit: uc,
    adjustments_debit: ad,
    adjustments_credit: ac,
    adjusted_debit: d,
    adjusted_credit: c,
  };
}
