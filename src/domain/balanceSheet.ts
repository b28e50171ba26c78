import { ACCOUNT_TYPES } from './accounts.js';
import type { BudgetCells } from './budget.js';
import type { Comparison } from './compare.js';
import { dayBefore } from './dates.js';
import { fiscalYearStart, type Period } from './periods.js';
import {
  addVec,
  cellMap,
  childrenByParent,
  computedRow,
  countMap,
  nulls,
  typeGroups,
  typesOf,
  zeros,
  type ReportAccount,
  type Row,
  type Vec,
} from './statement.js';
import { sortedCuts, type Cumulative } from './totals.js';

export type Cell = number | bigint | null;

/** A node of the balance-sheet tree (spec 2.4). */
export interface BalanceSheetNode {
  account_id: string | null;
  account_number: string | null;
  name: string;
  is_postable: boolean;
  account_kind: string;
  balances: Record<string, Cell>;
  own_balances: Record<string, Cell>;
  transaction_counts: Record<string, number>;
  children: BalanceSheetNode[];
}

export interface BalanceSheetSection {
  account_type: 'assets' | 'liabilities' | 'equity';
  label: string;
  balances: Record<string, Cell>;
  children: BalanceSheetNode[];
}

/** The balance sheet as the API returns it. */
export interface BalanceSheet {
  periods: Period[];
  sections: BalanceSheetSection[];
  reporting_currency: string;
  /** With `compare`: which column is compared with which (docs/close.md). */
  comparisons?: Comparison[];
}

/** What the balance sheet is built from: the chart and each account's cumulative totals at the cuts. */
export interface StatementInput {
  accounts: ReportAccount[];
  periods: Period[];
  fiscalYearStartMonth: number;
  currency: string;
  /** The dates of cutDates(periods, fiscalYearStartMonth). */
  cuts: string[];
  totals: Map<number, Cumulative>;
  /** Budget cells for the columns that are a budget's (`--compare budget`). */
  budget?: BudgetCells;
  /**
   * Where each column's cuts are, when its totals are its own (`--columns-by`: a column per tag
   * value, whose cumulative totals follow one another); absent: by the columns' dates.
   */
  columnAt?: ColumnAt;
}

/** Each column's cut indexes: its end, the day before its start, the day before its fiscal year. */
export interface ColumnAt {
  ends: number[];
  befores: number[];
  fyBefores: number[];
}

/**
 * The dates at which cumulative totals are needed: each column's end, the day before its start (for
 * activity within the column) and the day before its fiscal year starts (for retained earnings).
 */
export function cutDates(periods: Period[], fyStart: number): string[] {
  return sortedCuts(
    periods.flatMap((p) => [
      p.end_date,
      dayBefore(p.start_date),
      dayBefore(fiscalYearStart(p.end_date, fyStart)),
    ]),
  );
}

/** Where each column's cut dates sit among the cuts. */
export function columnCuts(
  input: Pick<StatementInput, 'periods' | 'cuts' | 'fiscalYearStartMonth' | 'columnAt'>,
): ColumnAt {
  if (input.columnAt) return input.columnAt;
  const at = new Map(input.cuts.map((d, i) => [d, i]));
  const idx = (d: string) => at.get(d)!;
  return {
    ends: input.periods.map((p) => idx(p.end_date)),
    befores: input.periods.map((p) => idx(dayBefore(p.start_date))),
    fyBefores: input.periods.map((p) =>
      idx(dayBefore(fiscalYearStart(p.end_date, input.fiscalYearStartMonth))),
    ),
  };
}

const SECTIONS = [
  { section: 'assets', label: 'Assets', sign: 1n },
  { section: 'liabilities', label: 'Liabilities', sign: -1n },
  { section: 'equity', label: 'Equity', sign: -1n },
] as const;

/**
 * Builds the balance sheet from cumulative per-account totals at the cut dates: sections, type groups
 * and accounts nested by parent; null where nothing was posted on or before a column's end, 0 where
 * postings net to zero; computed retained earnings and net income so that Assets = Liabilities +
 * Equity in every column. Accounts with no postings on or before the window's end are left out.
 */
export function buildBalanceSheet(input: StatementInput): BalanceSheet {
  const { periods, totals } = input;
  const width = periods.length;
  const { ends, befores } = columnCuts(input);
  const ids = periods.map((p) => p.id);
  const children = childrenByParent(input.accounts);
  // Cumulative cells: an account with a balance in any column has one at the window's end (compared
  // columns and budgets aside, which may hold the only cells an account has).
  const keep = (r: Row) => r.cells.some((c) => c !== null);

  const sections = SECTIONS.map(({ section, label, sign }) => {
    const own = (a: ReportAccount) => {
      const t = totals.get(a.key);
      const budget = input.budget;
      if (!t && !budget) return { cells: nulls(width), counts: zeros(width) };
      return {
        cells: ends.map((e, c) => {
          if (budget?.isBudget(c)) return budget.cell(a, c);
          return t && t.count[e]! > 0 ? sign * t.net[e]! : null;
        }),
        counts: periods.map((_, c) =>
          t && !budget?.isBudget(c) ? t.count[ends[c]!]! - t.count[befores[c]!]! : 0,
        ),
      };
    };
    const rows = typeGroups(children, typesOf(section), width, own, keep);
    if (section === 'equity') rows.push(...profitAndLoss(input));
    const cells = rows.reduce((acc, r) => addVec(acc, r.cells), nulls(width));
    return {
      account_type: section,
      label,
      balances: cellMap(ids, cells),
      children: rows.map((r) => sheetNode(ids, r)),
    };
  });
  return { periods, sections, reporting_currency: input.currency };
}

/**
 * Retained earnings (profit and loss before the column's fiscal year) and net income (the fiscal year
 * to the column's end), credit-positive; each left out when it has no data in any column.
 */
function profitAndLoss(input: StatementInput): Row[] {
  const width = input.periods.length;
  const { ends, befores, fyBefores } = columnCuts(input);
  const re = { cells: nulls(width), counts: zeros(width) };
  const ni = { cells: nulls(width), counts: zeros(width) };
  const budget = input.budget;
  for (let c = 0; c < width; c++)
    if (budget?.isBudget(c)) ni.cells[c] = budget.netIncome(input.accounts, c);
  for (const a of input.accounts) {
    const t = input.totals.get(a.key);
    if (!t || ACCOUNT_TYPES[a.account_type].section !== 'profit_and_loss') continue;
    for (let c = 0; c < width; c++) {
      if (budget?.isBudget(c)) continue;
      const [e, b, f] = [ends[c]!, befores[c]!, fyBefores[c]!];
      if (t.count[f]! > 0) re.cells[c] = (re.cells[c] ?? 0n) - t.net[f]!;
      if (t.count[e]! - t.count[f]! > 0)
        ni.cells[c] = (ni.cells[c] ?? 0n) - (t.net[e]! - t.net[f]!);
      // A column never straddles a fiscal year, so its lines all fall in net income.
      ni.counts[c]! += t.count[e]! - t.count[b]!;
    }
  }
  const some = (v: Vec) => v.some((x) => x !== null);
  const out: Row[] = [];
  if (some(re.cells))
    out.push(computedRow('Retained Earnings', 'retained_earnings', re.cells, re.counts));
  if (some(ni.cells)) out.push(computedRow('Net Income', 'net_income', ni.cells, ni.counts));
  return out;
}

function sheetNode(ids: string[], r: Row): BalanceSheetNode {
  return {
    account_id: r.account?.id ?? null,
    account_number: r.account?.account_number ?? null,
    name: r.name,
    is_postable: r.account?.is_postable ?? false,
    account_kind: r.kind,
    balances: cellMap(ids, r.cells),
    own_balances: cellMap(ids, r.own),
    transaction_counts: countMap(ids, r.counts),
    children: r.children.map((c) => sheetNode(ids, c)),
  };
}
