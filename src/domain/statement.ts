import { ACCOUNT_TYPES, type AccountType, type CashFlowKind } from './accounts.js';
import { toJsonInteger } from './money.js';

/**
 * The tree a financial statement is made of, shared by the balance sheet and the income statement as
 * hledger's compound reports share one runner: a statement is a list of sections, each a set of
 * account types with a sign; accounts nest under type groups and under their parents, and every node
 * carries its own cells and those of its descendants.
 */

/** An account as reports read it. */
export interface ReportAccount {
  key: number;
  id: string;
  external_id: string;
  account_number: string | null;
  name: string;
  account_type: AccountType;
  parent_key: number | null;
  is_postable: boolean;
  /** The chart's cash-flow section for the account; null or absent: as its type says. */
  cash_flow?: CashFlowKind | null;
}

/** One value per column: exact, or null where the node has no data. */
export type Vec = (bigint | null)[];

/** A node before its fields are named for a report. */
export interface Row {
  account: ReportAccount | null;
  name: string;
  kind: string;
  /** The node and its descendants. */
  cells: Vec;
  /** The account alone (all null for groups and computed rows). */
  own: Vec;
  /** Journal lines within each column, node and descendants. */
  counts: number[];
  children: Row[];
}

/** A node's own cells and line counts per column. */
export type OwnCells = (a: ReportAccount) => { cells: Vec; counts: number[] };

/** Accounts by parent, each list in chart order (account number, then name). */
export function childrenByParent(accounts: ReportAccount[]): Map<number | null, ReportAccount[]> {
  const children = new Map<number | null, ReportAccount[]>();
  for (const a of accounts) {
    const list = children.get(a.parent_key) ?? [];
    list.push(a);
    children.set(a.parent_key, list);
  }
  // Code-unit order, not localeCompare: the first collator costs ~15 ms of a report's start-up.
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const key = (a: ReportAccount) => a.account_number ?? '\uffff';
  for (const list of children.values())
    list.sort((x, y) => cmp(key(x), key(y)) || cmp(x.name, y.name));
  return children;
}

export const addVec = (acc: Vec, v: Vec): Vec =>
  acc.map((x, i) => (v[i] === null ? x : (x ?? 0n) + v[i]!));
export const addCounts = (acc: number[], v: number[]): number[] => acc.map((n, i) => n + v[i]!);

/**
 * The type groups of a section: for each account type in chart order, its top-level accounts with
 * their descendants. `keep` drops a node (and what it covers) that the report leaves out.
 */
export function typeGroups(
  children: Map<number | null, ReportAccount[]>,
  types: readonly AccountType[],
  width: number,
  own: OwnCells,
  keep: (row: Row) => boolean,
): Row[] {
  const build = (a: ReportAccount): Row | null => {
    const mine = own(a);
    let cells = mine.cells;
    let counts = mine.counts;
    const kids: Row[] = [];
    for (const child of children.get(a.key) ?? []) {
      const b = build(child);
      if (!b) continue;
      kids.push(b);
      cells = addVec(cells, b.cells);
      counts = addCounts(counts, b.counts);
    }
    const row: Row = {
      account: a,
      name: a.name,
      kind: 'regular',
      cells,
      own: mine.cells,
      counts,
      children: kids,
    };
    return keep(row) ? row : null;
  };
  const groups: Row[] = [];
  for (const type of types) {
    const tops = (children.get(null) ?? []).filter((a) => a.account_type === type);
    const built = tops.map(build).filter((b): b is Row => b !== null);
    if (built.length) groups.push(groupRow(ACCOUNT_TYPES[type].group, 'type_group', built, width));
  }
  return groups;
}

/** A group (or computed) node over rows: its cells are theirs added up. */
export function groupRow(name: string, kind: string, rows: Row[], width: number): Row {
  return {
    account: null,
    name,
    kind,
    cells: rows.reduce((acc, r) => addVec(acc, r.cells), nulls(width)),
    own: nulls(width),
    counts: rows.reduce((acc, r) => addCounts(acc, r.counts), zeros(width)),
    children: rows,
  };
}

/** A computed node with given cells and no children (retained earnings, net income, summary rows). */
export function computedRow(name: string, kind: string, cells: Vec, counts: number[]): Row {
  return { account: null, name, kind, cells, own: cells.map(() => null), counts, children: [] };
}

export const nulls = (n: number): Vec => Array.from({ length: n }, () => null);
export const zeros = (n: number): number[] => Array.from({ length: n }, () => 0);

/** Cells as the API's map from column id to atoms (numbers while exact, bigint beyond). */
export function cellMap(ids: string[], cells: Vec): Record<string, number | bigint | null> {
  const out: Record<string, number | bigint | null> = {};
  ids.forEach((id, i) => (out[id] = cells[i] === null ? null : toJsonInteger(cells[i]!)));
  return out;
}

export function countMap(ids: string[], counts: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  ids.forEach((id, i) => (out[id] = counts[i]!));
  return out;
}

/** The account types of a section, in chart order. */
export function typesOf(section: string): AccountType[] {
  return (Object.keys(ACCOUNT_TYPES) as AccountType[]).filter(
    (t) => ACCOUNT_TYPES[t].section === section,
  );
}
