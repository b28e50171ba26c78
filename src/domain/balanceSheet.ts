import { ACCOUNT_TYPES, type AccountType, type Section } from './accounts.js';
import { dayBefore } from './dates.js';
import { toJsonInteger } from './money.js';
import { fiscalYearStart, type Period } from './periods.js';

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
}

export interface SheetAccount {
  key: number;
  id: string;
  account_number: string | null;
  name: string;
  account_type: AccountType;
  parent_key: number | null;
  is_postable: boolean;
}

/** An account's debits minus credits, and its line count, cumulated up to and including each cut date. */
export interface Cumulative {
  net: bigint[];
  count: number[];
}

/**
 * The dates at which cumulative totals are needed: each column's end, the day before its start (for
 * counts within the column) and the day before its fiscal year starts (for retained earnings). Sorted.
 */
export function cutDates(periods: Period[], fyStart: number): string[] {
  const set = new Set<string>();
  for (const p of periods) {
    set.add(p.end_date);
    set.add(dayBefore(p.start_date));
    set.add(dayBefore(fiscalYearStart(p.end_date, fyStart)));
  }
  return [...set].sort();
}

const SECTIONS: { section: Exclude<Section, 'profit_and_loss'>; label: string }[] = [
  { section: 'assets', label: 'Assets' },
  { section: 'liabilities', label: 'Liabilities' },
  { section: 'equity', label: 'Equity' },
];

type Vec = (bigint | null)[];

/**
 * Builds the balance sheet from cumulative per-account totals at the cut dates: sections, type groups
 * and accounts nested by parent; null where nothing was posted on or before a column's end, 0 where
 * postings net to zero; computed retained earnings and net income so that Assets = Liabilities +
 * Equity in every column. Accounts with no postings on or before the window's end are left out.
 */
export function buildBalanceSheet(input: {
  accounts: SheetAccount[];
  periods: Period[];
  fiscalYearStartMonth: number;
  currency: string;
  cuts: string[];
  totals: Map<number, Cumulative>;
}): BalanceSheet {
  const { periods, cuts, totals } = input;
  const at = new Map(cuts.map((d, i) => [d, i]));
  const idx = (d: string) => at.get(d)!;
  const ends = periods.map((p) => idx(p.end_date));
  const befores = periods.map((p) => idx(dayBefore(p.start_date)));
  const fyBefores = periods.map((p) =>
    idx(dayBefore(fiscalYearStart(p.end_date, input.fiscalYearStartMonth))),
  );
  const ids = periods.map((p) => p.id);
  const none = (): Vec => periods.map(() => null);
  const zeroCounts = () => periods.map(() => 0);

  const children = new Map<number | null, SheetAccount[]>();
  for (const a of input.accounts) {
    const list = children.get(a.parent_key) ?? [];
    list.push(a);
    children.set(a.parent_key, list);
  }
  // Code-unit order, not localeCompare: the first collator costs ~15 ms of a report's start-up.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const order = (list: SheetAccount[]) =>
    [...list].sort(
      (x, y) =>
        cmp(x.account_number ?? '\uffff', y.account_number ?? '\uffff') || cmp(x.name, y.name),
    );

  const own = (a: SheetAccount, sign: bigint): { cells: Vec; counts: number[] } => {
    const t = totals.get(a.key);
    if (!t) return { cells: none(), counts: zeroCounts() };
    return {
      cells: ends.map((e) => (t.count[e]! > 0 ? sign * t.net[e]! : null)),
      counts: periods.map((_, c) => t.count[ends[c]!]! - t.count[befores[c]!]!),
    };
  };

  type Built = { node: BalanceSheetNode; cells: Vec; counts: number[] };
  const addVec = (acc: Vec, v: Vec) => acc.map((x, i) => (v[i] === null ? x : (x ?? 0n) + v[i]!));
  const build = (a: SheetAccount, sign: bigint): Built | null => {
    const mine = own(a, sign);
    let cells = mine.cells;
    let counts = mine.counts;
    const kids: BalanceSheetNode[] = [];
    for (const child of order(children.get(a.key) ?? [])) {
      const b = build(child, sign);
      if (!b) continue;
      kids.push(b.node);
      cells = addVec(cells, b.cells);
      counts = counts.map((n, i) => n + b.counts[i]!);
    }
    if (cells[cells.length - 1] === null) return null;
    return {
      node: {
        account_id: a.id,
        account_number: a.account_number,
        name: a.name,
        is_postable: a.is_postable,
        account_kind: 'regular',
        balances: cellMap(ids, cells),
        own_balances: cellMap(ids, mine.cells),
        transaction_counts: countMap(ids, counts),
        children: kids,
      },
      cells,
      counts,
    };
  };
  const group = (
    name: string,
    kind: string,
    parts: Built[] | { cells: Vec; counts: number[] },
  ): Built => {
    const list = Array.isArray(parts) ? parts : [];
    const cells = Array.isArray(parts)
      ? list.reduce((acc, b) => addVec(acc, b.cells), none())
      : parts.cells;
    const counts = Array.isArray(parts)
      ? list.reduce((acc, b) => acc.map((n, i) => n + b.counts[i]!), zeroCounts())
      : parts.counts;
    return {
      node: {
        account_id: null,
        account_number: null,
        name,
        is_postable: false,
        account_kind: kind,
        balances: cellMap(ids, cells),
        own_balances: cellMap(ids, none()),
        transaction_counts: countMap(ids, counts),
        children: list.map((b) => b.node),
      },
      cells,
      counts,
    };
  };

  const sections: BalanceSheetSection[] = SECTIONS.map(({ section, label }) => {
    const sign = section === 'assets' ? 1n : -1n;
    const parts: Built[] = [];
    for (const [type, meta] of Object.entries(ACCOUNT_TYPES)) {
      if (meta.section !== section) continue;
      const tops = order((children.get(null) ?? []).filter((a) => a.account_type === type));
      const built = tops.map((a) => build(a, sign)).filter((b): b is Built => b !== null);
      if (built.length) parts.push(group(meta.group, 'type_group', built));
    }
    if (section === 'equity') parts.push(...profitAndLoss());
    const cells = parts.reduce((acc, b) => addVec(acc, b.cells), none());
    return {
      account_type: section,
      label,
      balances: cellMap(ids, cells),
      children: parts.map((b) => b.node),
    };
  });

  /** Retained earnings (P&L before the column's fiscal year) and net income (fiscal year to the column's end), credit-positive. */
  function profitAndLoss(): Built[] {
    const pl = input.accounts.filter(
      (a) => ACCOUNT_TYPES[a.account_type].section === 'profit_and_loss',
    );
    const re = { cells: none(), counts: zeroCounts() };
    const ni = { cells: none(), counts: zeroCounts() };
    for (const a of pl) {
      const t = totals.get(a.key);
      if (!t) continue;
      periods.forEach((_, c) => {
        const [e, b, f] = [ends[c]!, befores[c]!, fyBefores[c]!];
        if (t.count[f]! > 0) re.cells[c] = (re.cells[c] ?? 0n) - t.net[f]!;
        if (t.count[e]! - t.count[f]! > 0)
          ni.cells[c] = (ni.cells[c] ?? 0n) - (t.net[e]! - t.net[f]!);
        // A column never straddles a fiscal year, so its lines all fall in net income.
        ni.counts[c]! += t.count[e]! - t.count[b]!;
      });
    }
    const out: Built[] = [];
    if (re.cells.some((x) => x !== null))
      out.push(group('Retained Earnings', 'retained_earnings', re));
    if (ni.cells.some((x) => x !== null)) out.push(group('Net Income', 'net_income', ni));
    return out;
  }

  return { periods, sections, reporting_currency: input.currency };
}

function cellMap(ids: string[], cells: Vec): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  ids.forEach((id, i) => (out[id] = cells[i] === null ? null : toJsonInteger(cells[i]!)));
  return out;
}

function countMap(ids: string[], counts: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  ids.forEach((id, i) => (out[id] = counts[i]!));
  return out;
}
