import type { BalanceSheet } from '../domain/balanceSheet.js';
import type { IncomeStatement } from '../domain/incomeStatement.js';
import type { CashFlowStatement } from '../domain/cashFlow.js';
import { atomsToDecimal } from '../domain/money.js';
import { periodBounds, type Period, type PeriodType } from '../domain/periods.js';
import { csvField, spreadsheetText } from './csv.js';
import { comparedCells, comparedHeadings, type Comparison } from '../domain/compare.js';
import {
  periodColumns,
  printedDate,
  printStatement,
  type Amount,
  type PrintOptions,
  type StatementColumn,
  type StatementLine,
} from './statementTable.js';

type Cells = Record<string, Amount>;

/** A node of a statement's tree, whichever report: its amounts and its own amounts by period id. */
export interface TreeNode {
  account_id?: string | null;
  account_number: string | null;
  name: string;
  account_kind: string;
  children: TreeNode[];
}

/** A statement as the renderers see it: sections of trees, and lines computed from them. */
interface Statement {
  periods: Period[];
  sections: { label: string; amounts: Cells; children: TreeNode[]; total?: string }[];
  /** Lines after a section (by its index), such as Gross Profit after Cost of Goods Sold. */
  after: Map<number, { label: string; kind: string; amounts: Cells }[]>;
  amounts: (n: TreeNode) => Cells;
  own: (n: TreeNode) => Cells;
  /** Sections with nothing in them are printed (the balance sheet's three always are). */
  keepEmpty: boolean;
  /** A Total column when there is more than one period (the income statement's activity). */
  total: boolean;
  comparisons?: Comparison[] | undefined;
  /** Columns that are not periods (a tag's values): headed by their labels alone. */
  byTag?: boolean;
}

export interface StatementOptions extends PrintOptions {
  /** Deepest level shown: 1 = the first level under a section, and so on. */
  depth?: number;
  entity: string;
  period: PeriodType;
  fiscalYearStartMonth: number;
}

const label = (n: TreeNode) => (n.account_number ? `${n.account_number} ${n.name}` : n.name);

const sumOf = (cells: Amount[]): Amount =>
  cells.every((c) => c === null || c === undefined)
    ? null
    : cells.reduce<bigint>((s, c) => s + BigInt(c ?? 0), 0n);

/**
 * The printed lines of a statement: each section's heading, its tree indented (a node with children
 * heads them, with its own amounts when it has any, and is totalled after them unless the total would
 * repeat its one child), the section's total, and the computed lines. A cell is blank exactly where
 * the report's JSON is null (nothing posted), totals included.
 */
function statementLines(st: Statement, cols: ColumnSpec[], maxDepth: number): StatementLine[] {
  const out: StatementLine[] = [];
  const row = (cells: Cells) => cols.map((c) => c.value(cells));
  const blank = cols.map(() => null);
  const walk = (n: TreeNode, depth: number, shown: number) => {
    if (n.children.length === 0 || depth >= maxDepth) {
      out.push({ label: label(n), depth: shown, cells: row(st.amounts(n)), kind: 'line' });
      return;
    }
    const own = row(st.own(n));
    const ownShown = n.account_kind === 'regular' && own.some((c) => c !== null);
    out.push({ label: label(n), depth: shown, cells: ownShown ? own : blank, kind: 'line' });
    for (const c of n.children) walk(c, depth + 1, shown + 1);
    if (n.children.length > 1 || ownShown)
      out.push({
        label: `Total ${label(n)}`,
        depth: shown,
        cells: row(st.amounts(n)),
        kind: 'total',
      });
  };
  st.sections.forEach((s, i) => {
    if (s.children.length > 0 || st.keepEmpty) {
      out.push({ label: s.label, depth: 0, cells: blank, kind: 'heading' });
      if (maxDepth >= 1)
        for (const c of s.children) {
          // A type group named as its section (Equity in Equity) would repeat the heading.
          if (c.account_kind === 'type_group' && c.name === s.label)
            for (const g of c.children) walk(g, 2, 1);
          else walk(c, 1, 1);
        }
      const total = s.total ?? `Total ${s.label}`;
      out.push({ label: total, depth: 0, cells: row(s.amounts), kind: 'total' });
    }
    for (const a of st.after.get(i) ?? [])
      out.push({ label: a.label, depth: 0, cells: row(a.amounts), kind: 'grand' });
  });
  return out;
}

/**
 * A column of a printed or CSV statement: a period's cells, or what a comparison computes from two
 * (docs/close.md: each period, then what it is compared with, its change and percentage).
 */
interface ColumnSpec {
  head: StatementColumn;
  csv: string;
  value: (cells: Cells) => Amount | string;
}

const cellOf = (cells: Cells, id: string): Amount => cells[id] ?? null;
const big = (a: Amount): bigint | null => (a === null || a === undefined ? null : BigInt(a));

/** The statement's columns: its periods (and Total), each followed by its comparisons. */
function columnSpecs(st: Statement, opts: { period?: PeriodType; fiscalYearStartMonth?: number }) {
  const full = (p: Period) =>
    opts.period ? periodBounds(p.start_date, opts.period, opts.fiscalYearStartMonth) : null;
  const head = (p: Period, label = p.label): StatementColumn =>
    st.byTag
      ? { label, clipped: null }
      : periodColumns(
          [{ ...p, label }],
          () => full(p) ?? { start: p.start_date, end: p.end_date },
        )[0]!;
  const byId = new Map(st.periods.map((p) => [p.id, p]));
  const comparisons = st.comparisons ?? [];
  const bases = basePeriods(st);
  const out: ColumnSpec[] = [];
  for (const [group, p] of bases.entries()) {
    const start = out.length;
    out.push({ head: head(p), csv: p.id, value: (cells) => cellOf(cells, p.id) });
    for (const c of comparisons.filter((x) => x.period === p.id)) {
      const against = byId.get(c.against)!;
      const [changeLabel, pctLabel] = comparedHeadings(c.kind);
      const pair = (cells: Cells) =>
        comparedCells(big(cellOf(cells, p.id)), big(cellOf(cells, c.against)), c.kind);
      const budget = c.kind === 'budget';
      out.push(
        // CSV headers name the period and the comparison: a compared period may head its own column.
        {
          head: head(against, budget ? 'Budget' : against.label),
          csv: budget ? c.against : `${c.kind}:${p.id}`,
          value: (cells) => cellOf(cells, c.against),
        },
        {
          head: { label: changeLabel, clipped: null },
          csv: budget ? `over_budget:${p.id}` : `change:${c.kind}:${p.id}`,
          value: (cells) => pair(cells).change,
        },
        {
          head: { label: pctLabel, clipped: null },
          csv: budget ? `pct_of_budget:${p.id}` : `pct_change:${c.kind}:${p.id}`,
          value: (cells) => pair(cells).percent,
        },
      );
    }
    if (comparisons.length) for (const c of out.slice(start)) c.head = { ...c.head, group };
  }
  if (st.total && bases.length > 1)
    out.push({
      head: { label: 'Total', clipped: null },
      csv: 'total',
      value: (cells) => sumOf(bases.map((p) => cellOf(cells, p.id))),
    });
  return out;
}

function printed(st: Statement, title: string, dates: string, opts: StatementOptions): string {
  const cols = columnSpecs(st, opts);
  const lines = statementLines(st, cols, opts.depth ?? Infinity);
  return printStatement(
    [opts.entity, title, dates],
    cols.map((c) => c.head),
    lines,
    opts,
  );
}

type Compared = { periods: Period[]; comparisons?: Comparison[] | undefined };

/** The report's own periods: those compared with others, or all when nothing is compared. */
function basePeriods(st: Compared): Period[] {
  const c = st.comparisons ?? [];
  return c.length ? st.periods.filter((p) => c.some((x) => x.period === p.id)) : st.periods;
}

/** The report's own window: its periods, not those they are compared with. */
function window(st: Compared): { start: string; end: string } {
  const periods = basePeriods(st);
  return { start: periods[0]?.start_date ?? '', end: periods[periods.length - 1]?.end_date ?? '' };
}

function sheetStatement(sheet: BalanceSheet): Statement {
  const liabilities = sheet.sections.find((s) => s.account_type === 'liabilities');
  const equity = sheet.sections.find((s) => s.account_type === 'equity');
  const both: Cells = {};
  for (const p of sheet.periods) {
    both[p.id] = sumOf([liabilities?.balances[p.id] ?? null, equity?.balances[p.id] ?? null]);
  }
  const total = { label: 'Total Liabilities and Equity', kind: 'total', amounts: both };
  return {
    periods: sheet.periods,
    sections: sheet.sections.map((s) => ({
      label: s.label,
      amounts: s.balances,
      children: s.children,
    })),
    after: new Map([[sheet.sections.length - 1, [total]]]),
    amounts: (n) => (n as unknown as { balances: Cells }).balances,
    own: (n) => (n as unknown as { own_balances: Cells }).own_balances,
    keepEmpty: true,
    total: false,
    comparisons: sheet.comparisons,
  };
}

function incomeStatement(is: IncomeStatement): Statement {
  const kinds = (...k: string[]) =>
    is.summary
      .filter((s) => k.includes(s.account_kind))
      .map((s) => ({ label: s.label, kind: s.account_kind, amounts: s.amounts }));
  return {
    periods: is.periods,
    sections: is.sections,
    // Gross Profit after Cost of Goods Sold, Net Operating Income after Expenses, the rest at the end.
    after: new Map([
      [1, kinds('gross_profit')],
      [2, kinds('net_operating_income')],
      [4, kinds('net_other_income', 'net_income')],
    ]),
    amounts: (n) => (n as unknown as { amounts: Cells }).amounts,
    own: (n) => (n as unknown as { own_amounts: Cells }).own_amounts,
    keepEmpty: false,
    // With columns by tag, Total is a column of the statement's own.
    total: !is.columns_by,
    comparisons: is.comparisons,
    byTag: is.columns_by !== undefined,
  };
}

/**
 * The cash-flow statement as a statement of flat sections: Net Income and the accounts' changes as
 * lines, each section's net cash as its total, the change in cash and the balances after.
 */
function cashFlowStatement(cf: CashFlowStatement): Statement {
  const nodes = new Map<TreeNode, Cells>();
  const sections = cf.sections.map((s) => ({
    label: s.label,
    amounts: s.total.amounts,
    total: s.total.label,
    children: s.rows.map((r) => {
      const n: TreeNode = {
        account_id: r.account_id ?? null,
        account_number: r.account_number ?? null,
        name: r.name ?? r.label ?? '',
        account_kind: r.kind === 'account' ? 'regular' : r.kind,
        children: [],
      };
      nodes.set(n, r.amounts);
      return n;
    }),
  }));
  return {
    periods: cf.periods,
    sections,
    after: new Map([
      [
        cf.sections.length - 1,
        cf.summary.map((s) => ({ label: s.label, kind: s.kind, amounts: s.amounts })),
      ],
    ]),
    amounts: (n) => nodes.get(n) ?? {},
    own: () => ({}),
    keepEmpty: true,
    // Each column's change adds over columns; its cash balances do not, so no Total column.
    total: false,
    comparisons: cf.comparisons,
  };
}

/** The cash-flow statement as printed: changes within each period, and cash at both ends. */
export function cashFlowTable(cf: CashFlowStatement, opts: StatementOptions): string {
  const { start, end } = window(cf);
  const dates = `${printedDate(start)} – ${printedDate(end)} · ${cf.reporting_currency}`;
  return printed(cashFlowStatement(cf), 'Cash Flow Statement', dates, opts);
}

export function cashFlowCsv(cf: CashFlowStatement, opts: CsvOptions): string {
  return statementCsv(cashFlowStatement(cf), opts);
}

/** The balance sheet as printed: entity, title and dates at the top, sections, totals, one width. */
export function balanceSheetTable(sheet: BalanceSheet, opts: StatementOptions): string {
  const { start, end } = window(sheet);
  const dates =
    basePeriods(sheet).length === 1
      ? `As of ${printedDate(end)} · ${sheet.reporting_currency}`
      : `As of the end of each period, ${printedDate(start)} – ${printedDate(end)} · ${sheet.reporting_currency}`;
  return printed(sheetStatement(sheet), 'Balance Sheet', dates, opts);
}

/** The income statement as printed: activity within each period, and a Total column. */
export function incomeStatementTable(is: IncomeStatement, opts: StatementOptions): string {
  const { start, end } = window(is);
  const dates = `${printedDate(start)} – ${printedDate(end)} · ${is.reporting_currency}`;
  return printed(incomeStatement(is), 'Income Statement', dates, opts);
}

export interface CsvOptions {
  exponent: number;
  atoms?: boolean;
  depth?: number;
  /** Columns after the others, by a row's account id (null for a section's or computed row). */
  extra?: ExtraColumns;
}

/** Columns a report adds after its own (a foreign account's balance in its currency). */
export interface ExtraColumns {
  head: string[];
  cells(accountId: string | null): string[];
}

/**
 * A statement as tidy CSV: one row per node (section, depth, path, account_number, name,
 * account_kind, then one column per period id, and total where the statement has one), a parent
 * account's own amounts as a row `own` below it, computed lines as rows of their own; amounts in
 * decimal major units or atoms, null empty.
 */
function statementCsv(st: Statement, opts: CsvOptions): string {
  const cols = columnSpecs(st, {});
  const amount = (c: Amount | string) =>
    c === null || c === undefined
      ? ''
      : typeof c === 'string'
        ? c.replace(/%$/, '')
        : opts.atoms
          ? String(c)
          : atomsToDecimal(c, opts.exponent);
  const head = ['section', 'depth', 'path', 'account_number', 'name', 'account_kind'];
  const extra = opts.extra;
  const lines = [
    [...head, ...cols.map((c) => c.csv), ...(extra?.head ?? [])].map(csvField).join(','),
  ];
  const row = (section: string, depth: number, path: string[], n: TreeNode, cells: Cells) => {
    const text = [section, String(depth), spreadsheetText(path.join(' > '))];
    text.push(spreadsheetText(n.account_number ?? ''), spreadsheetText(n.name), n.account_kind);
    text.push(...cols.map((c) => amount(c.value(cells))));
    // An own row's balance is its account's whole only without children: extra columns name accounts.
    if (extra) text.push(...extra.cells(n.account_kind === 'own' ? null : (n.account_id ?? null)));
    lines.push(text.map(csvField).join(','));
  };
  const maxDepth = opts.depth ?? Infinity;
  st.sections.forEach((s, i) => {
    const head = { account_number: null, name: s.label, account_kind: 'section', children: [] };
    row(s.label, 0, [s.label], head, s.amounts);
    const walk = (n: TreeNode, depth: number, path: string[]) => {
      if (depth > maxDepth) return;
      const p = [...path, n.name];
      row(s.label, depth, p, n, st.amounts(n));
      // A parent account's own lines get a row of their own beside its children (kind `own`), so
      // that the rows below a node add up to it at every level.
      const own = st.own(n);
      if (n.children.length && depth < maxDepth && st.periods.some((p) => own[p.id] != null)) {
        const self = { ...n, name: `${n.name} (own)`, account_kind: 'own', children: [] };
        row(s.label, depth + 1, [...p, self.name], self, own);
      }
      for (const c of n.children) walk(c, depth + 1, p);
    };
    for (const c of s.children) walk(c, 1, [s.label]);
    for (const a of st.after.get(i) ?? []) {
      const computed = { account_number: null, name: a.label, account_kind: a.kind, children: [] };
      row('', 0, [a.label], computed, a.amounts);
    }
  });
  return lines.join('\n') + '\n';
}

export function balanceSheetCsv(sheet: BalanceSheet, opts: CsvOptions): string {
  // The balance sheet's CSV has no computed line: its totals are the sections'.
  return statementCsv({ ...sheetStatement(sheet), after: new Map() }, opts);
}

export function incomeStatementCsv(is: IncomeStatement, opts: CsvOptions): string {
  return statementCsv(incomeStatement(is), opts);
}
