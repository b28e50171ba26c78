import type { AccountType } from './accounts.js';
import type { Comparison } from './compare.js';
import { columnCuts, type StatementInput } from './balanceSheet.js';
import type { Period } from './periods.js';
import {
  addVec,
  cellMap,
  childrenByParent,
  countMap,
  nulls,
  typeGroups,
  zeros,
  type ReportAccount,
  type Row,
  type Vec,
} from './statement.js';

export type Amount = number | bigint | null;

/** An account of the income statement: the balance sheet's node, with activity in place of balances. */
export interface IncomeStatementNode {
  account_id: string | null;
  account_number: string | null;
  name: string;
  is_postable: boolean;
  account_kind: string;
  amounts: Record<string, Amount>;
  own_amounts: Record<string, Amount>;
  transaction_counts: Record<string, number>;
  children: IncomeStatementNode[];
}

export interface IncomeStatementSection {
  account_type: AccountType;
  label: string;
  amounts: Record<string, Amount>;
  children: IncomeStatementNode[];
}

export interface IncomeStatementSummary {
  account_kind: 'gross_profit' | 'net_operating_income' | 'net_other_income' | 'net_income';
  label: string;
  amounts: Record<string, Amount>;
}

/** The income statement as the API returns it (docs/close.md). */
export interface IncomeStatement {
  periods: Period[];
  reporting_currency: string;
  sections: IncomeStatementSection[];
  summary: IncomeStatementSummary[];
  /** With `compare`: which column is compared with which (docs/close.md). */
  comparisons?: Comparison[];
  /** With `columns_by`: the tag key whose values are the columns (then `(none)` and `total`). */
  columns_by?: string;
}

/** The sections in their order: income credit-positive, costs and expenses debit-positive. */
export const INCOME_SECTIONS = [
  { type: 'income', label: 'Income', sign: -1n },
  { type: 'cost_of_goods_sold', label: 'Cost of Goods Sold', sign: 1n },
  { type: 'expense', label: 'Expenses', sign: 1n },
  { type: 'other_income', label: 'Other Income', sign: -1n },
  { type: 'other_expense', label: 'Other Expenses', sign: 1n },
] as const;

/**
 * Builds the income statement from cumulative per-account totals at the cut dates: the activity
 * within each column (not cumulative), each section an account type with its accounts nested by
 * parent, and the computed rows of docs/close.md. An account with no line in any column is left out; a
 * cell is null where the node had no line in the column, 0 where its lines net to zero.
 */
export function buildIncomeStatement(input: StatementInput): IncomeStatement {
  const { periods, totals } = input;
  const width = periods.length;
  const { ends, befores } = columnCuts(input);
  const ids = periods.map((p) => p.id);
  const children = childrenByParent(input.accounts);
  const keep = (r: Row) => r.cells.some((c) => c !== null);
  const sections = INCOME_SECTIONS.map(({ type, label, sign }) => {
    const own = (a: ReportAccount) => {
      const t = totals.get(a.key);
      const budget = input.budget;
      if (!t && !budget) return { cells: nulls(width), counts: zeros(width) };
      const counts = periods.map((_, c) =>
        t && !budget?.isBudget(c) ? t.count[ends[c]!]! - t.count[befores[c]!]! : 0,
      );
      const cells = periods.map((_, c) => {
        if (budget?.isBudget(c)) return budget.cell(a, c);
        return t && counts[c]! > 0 ? sign * (t.net[ends[c]!]! - t.net[befores[c]!]!) : null;
      });
      return { cells, counts };
    };
    // One account type to a section: the section is the type group.
    const accounts = typeGroups(children, [type], width, own, keep)[0]?.children ?? [];
    const cells = accounts.reduce((acc, r) => addVec(acc, r.cells), nulls(width));
    return {
      type,
      label,
      cells,
      node: {
        account_type: type,
        label,
        amounts: cellMap(ids, cells),
        children: accounts.map((r) => node(ids, r)),
      },
    };
  });
  const v = Object.fromEntries(sections.map((s) => [s.type, s.cells])) as Record<
    (typeof INCOME_SECTIONS)[number]['type'],
    Vec
  >;
  const gross = minus(v.income, v.cost_of_goods_sold);
  const operating = minus(gross, v.expense);
  const other = minus(v.other_income, v.other_expense);
  const summary: IncomeStatementSummary[] = [
    { account_kind: 'gross_profit', label: 'Gross Profit', amounts: cellMap(ids, gross) },
    {
      account_kind: 'net_operating_income',
      label: 'Net Operating Income',
      amounts: cellMap(ids, operating),
    },
    { account_kind: 'net_other_income', label: 'Net Other Income', amounts: cellMap(ids, other) },
    {
      account_kind: 'net_income',
      label: 'Net Income',
      amounts: cellMap(ids, plus(operating, other)),
    },
  ];
  return {
    periods,
    reporting_currency: input.currency,
    sections: sections.map((s) => s.node),
    summary,
  };
}

/** a − b by column: null only where both are. */
function minus(a: Vec, b: Vec): Vec {
  return a.map((x, i) => (x === null && b[i] === null ? null : (x ?? 0n) - (b[i] ?? 0n)));
}

function plus(a: Vec, b: Vec): Vec {
  return a.map((x, i) => (x === null && b[i] === null ? null : (x ?? 0n) + (b[i] ?? 0n)));
}

function node(ids: string[], r: Row): IncomeStatementNode {
  return {
    account_id: r.account?.id ?? null,
    account_number: r.account?.account_number ?? null,
    name: r.name,
    is_postable: r.account?.is_postable ?? false,
    account_kind: r.kind,
    amounts: cellMap(ids, r.cells),
    own_amounts: cellMap(ids, r.own),
    transaction_counts: countMap(ids, r.counts),
    children: r.children.map((c) => node(ids, c)),
  };
}
