import { ACCOUNT_TYPES, type AccountType, type CashFlowKind } from './accounts.js';
import { columnCuts, type StatementInput } from './balanceSheet.js';
import type { Comparison } from './compare.js';
import { buildIncomeStatement, type Amount } from './incomeStatement.js';
import type { Period, ReportQuery } from './periods.js';
import type { Problem } from './errors.js';
import { cellMap, type ReportAccount, type Vec } from './statement.js';

/** The section of a balance-sheet account type; a bank account is cash. */
const BY_TYPE: Partial<Record<AccountType, CashFlowKind>> = {
  bank: 'cash',
  accounts_receivable: 'operating',
  other_current_asset: 'operating',
  accounts_payable: 'operating',
  credit_card: 'operating',
  other_current_liability: 'operating',
  fixed_asset: 'investing',
  other_asset: 'investing',
  long_term_liability: 'financing',
  equity: 'financing',
};

/** An account's place in the statement: the chart's override, else its type's; null for profit and loss. */
export function cashFlowOf(
  a: Pick<ReportAccount, 'account_type' | 'cash_flow'>,
): CashFlowKind | null {
  if (ACCOUNT_TYPES[a.account_type].section === 'profit_and_loss') return null;
  if (a.account_type === 'bank') return 'cash';
  return a.cash_flow ?? BY_TYPE[a.account_type] ?? null;
}

export interface CashFlowRow {
  kind: 'net_income' | 'account';
  label?: string;
  account_id?: string;
  account_number?: string | null;
  name?: string;
  amounts: Record<string, Amount>;
}

export interface CashFlowSection {
  kind: 'operating' | 'investing' | 'financing';
  label: string;
  rows: CashFlowRow[];
  total: { label: string; amounts: Record<string, Amount> };
}

export interface CashFlowSummary {
  kind: 'net_change_in_cash' | 'cash_beginning' | 'cash_end';
  label: string;
  amounts: Record<string, Amount>;
}

/** The cash-flow statement, indirect method, as the API returns it (docs/close.md). */
export interface CashFlowStatement {
  periods: Period[];
  reporting_currency: string;
  sections: CashFlowSection[];
  summary: CashFlowSummary[];
  comparisons?: Comparison[];
}

export const CASH_FLOW_SECTIONS = [
  {
    kind: 'operating',
    label: 'Operating activities',
    total: 'Net cash from operating activities',
  },
  {
    kind: 'investing',
    label: 'Investing activities',
    total: 'Net cash from investing activities',
  },
  {
    kind: 'financing',
    label: 'Financing activities',
    total: 'Net cash from financing activities',
  },
] as const;

/** What a cash-flow statement's query may not ask, as problems of its parameters. */
export function cashFlowQueryProblems(q: Pick<ReportQuery, 'where' | 'compare'>): Problem[] {
  const problems: Problem[] = [];
  // The lines of some tags need not balance: their cash at end would not be the balance sheet's.
  if (q.where?.length)
    problems.push({
      path: 'where',
      reason: 'invalid_parameters',
      message: 'a cash-flow statement is of every line: those of some tags need not balance',
    });
  // A budget holds income and expenses, not the balance-sheet changes a cash flow is made of.
  if (q.compare?.includes('budget'))
    problems.push({
      path: 'compare',
      reason: 'invalid_compare',
      message: 'a cash-flow statement compares with previous-period or previous-year, not a budget',
    });
  return problems;
}

/**
 * Builds the cash-flow statement from the cumulative totals the income statement reads: Net Income
 * (the income statement's own row), then each non-cash balance-sheet account's change within the
 * column with the cash sign (debits minus credits decreasing is cash coming in), by section. Every
 * entry balances, so the changes of all accounts add to zero and the net change in cash is exactly
 * Net Income plus the sections: the identity is arithmetic, not a reconciling line.
 */
export function buildCashFlow(input: StatementInput): CashFlowStatement {
  const { periods, totals } = input;
  const ids = periods.map((p) => p.id);
  const { ends, befores } = columnCuts(input);
  const income = buildIncomeStatement(input);
  const netIncome = income.summary.find((s) => s.account_kind === 'net_income')!.amounts;
  const change = (a: ReportAccount): { cells: Vec; any: boolean } => {
    const t = totals.get(a.key);
    const cells = periods.map((_, c) => {
      if (!t || t.count[ends[c]!]! - t.count[befores[c]!]! === 0) return null;
      return -(t.net[ends[c]!]! - t.net[befores[c]!]!);
    });
    return { cells, any: cells.some((x) => x !== null) };
  };
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const number = (a: ReportAccount) => a.account_number ?? '\uffff';
  // Chart order (account number, then name), in code units as the statements' trees sort.
  const accounts = [...input.accounts].sort(
    (x, y) => cmp(number(x), number(y)) || cmp(x.name, y.name),
  );
  const sections: CashFlowSection[] = CASH_FLOW_SECTIONS.map((s) => {
    const rows: CashFlowRow[] = [];
    if (s.kind === 'operating')
      rows.push({ kind: 'net_income', label: 'Net Income', amounts: netIncome });
    let total = periods.map(() => 0n);
    for (const a of accounts) {
      if (cashFlowOf(a) !== s.kind) continue;
      const { cells, any } = change(a);
      if (!any) continue;
      total = total.map((x, i) => x + (cells[i] ?? 0n));
      rows.push({
        kind: 'account',
        account_id: a.id,
        account_number: a.account_number,
        name: a.name,
        amounts: cellMap(ids, cells),
      });
    }
    if (s.kind === 'operating') total = total.map((x, i) => x + BigInt(netIncome[ids[i]!] ?? 0));
    return {
      kind: s.kind,
      label: s.label,
      rows,
      total: { label: s.total, amounts: cellMap(ids, total) },
    };
  });
  const cashAt = (cut: number[]) =>
    periods.map((_, c) =>
      input.accounts.reduce(
        (sum, a) =>
          cashFlowOf(a) === 'cash' ? sum + (totals.get(a.key)?.net[cut[c]!] ?? 0n) : sum,
        0n,
      ),
    );
  const beginning = cashAt(befores);
  const net = periods.map((_, c) =>
    sections.reduce((sum, s) => sum + BigInt(s.total.amounts[ids[c]!] ?? 0), 0n),
  );
  return {
    periods,
    reporting_currency: input.currency,
    sections,
    summary: [
      { kind: 'net_change_in_cash', label: 'Net change in cash', amounts: cellMap(ids, net) },
      {
        kind: 'cash_beginning',
        label: 'Cash at beginning of period',
        amounts: cellMap(ids, beginning),
      },
      {
        kind: 'cash_end',
        label: 'Cash at end of period',
        amounts: cellMap(
          ids,
          beginning.map((b, i) => b + net[i]!),
        ),
      },
    ],
  };
}
