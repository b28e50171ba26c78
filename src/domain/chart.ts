import { ACCOUNT_TYPES, COUNTERPARTY_TYPES, isAccountType } from './accounts.js';
import type { AccountType, CashFlowKind } from './accounts.js';
import { parseBool, reportingColumns } from './chartColumns.js';
import { BooksError, type Problem } from './errors.js';
import { heldChanges } from './chartHeld.js';
import { treeProblems } from './chartTree.js';
import { currencyExponent, formatAmount } from './money.js';

export const CHART_COLUMNS = [
  'external_id',
  'account_number',
  'name',
  'account_type',
  'parent_external_id',
  'is_postable',
  'is_active',
  'currency',
  'monetary',
  'cash_flow',
] as const;
export const COUNTERPARTY_COLUMNS = [
  'counterparty_type',
  'external_id',
  'name',
  'is_active',
] as const;

/** A chart row after checking its cells: what the ledger upserts by external_id. */
export interface ChartRow {
  row: number;
  external_id: string;
  account_number: string | null;
  name: string;
  account_type: AccountType;
  parent_external_id: string | null;
  is_postable: boolean;
  is_active: boolean;
  currency: string | null;
  /** Whether a foreign account is revalued at period end; null: as its type says. */
  monetary: boolean | null;
  /** The account's cash-flow section; null: as its type says. */
  cash_flow: CashFlowKind | null;
}

export interface CounterpartyRow {
  row: number;
  counterparty_type: string;
  external_id: string;
  name: string;
  is_active: boolean;
}

/** An account of a chart as the whole-chart checks need it. */
export interface ChartShape {
  external_id: string;
  account_number: string | null;
  account_type: AccountType;
  parent_external_id: string | null;
  /** What the ledger holds on the account: its lines and their balance (debits minus credits). */
  posted?: { lines: number; balance: bigint };
  is_postable?: boolean;
  /** Its currency as stored (null: the functional currency). */
  currency?: string | null;
  /** How many of its lines reconciliation has cleared (matched, ticked or reconciled). */
  cleared?: number;
}

/** A file's record: its spreadsheet row and its cells by column name. */
export interface ChartRecord {
  row: number;
  values: Record<string, string>;
}

/** A chart file as read: its name for messages, and its records. */
export interface ChartFile {
  name: string;
  records: ChartRecord[];
}

type Add = (row: number, path: string, reason: string, message: string) => void;

/**
 * Checks a chart-of-accounts file as the chart it would leave behind: each row's cells (required
 * values, types, booleans, currencies, no id twice), then the whole chart that results from the
 * ledger's accounts updated by the file: numbers unique, parents that exist (they may come later in
 * the file), no cycles, and every account in its parent's section, whichever of the two the file
 * changes. Returns every problem by row.
 */
export function checkChart(
  records: ChartRecord[],
  existing: ChartShape[],
  exponent = 2,
  functional: string | null = null,
): { rows: ChartRow[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const add: Add = (row, path, reason, message) => problems.push({ row, path, reason, message });
  const rows = chartRows(records, add);
  // Rows refused for their cells still name accounts: a child of one is not said to lack a parent.
  const refused = new Set(records.map((r) => (r.values.external_id ?? '').trim()));
  for (const r of rows) refused.delete(r.external_id);
  checkResult(rows, existing, refused, add);
  // A clash between two accounts the file leaves alone is the ledger's own, for `check` to name.
  for (const p of referenceClashes(rows, existing))
    if (p.row !== undefined) add(p.row, p.path, p.reason, p.message);
  for (const p of heldChanges(rows, existing, exponent, functional))
    add(p.row!, p.path, p.reason, p.message);
  problems.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  return { rows, problems };
}

/** The rows whose cells are all readable; every other row's problems are added. */
function chartRows(records: ChartRecord[], add: Add): ChartRow[] {
  const rows: ChartRow[] = [];
  const seen = new Map<string, number>();
  for (const { row, values: v } of records) {
    const r = chartRow(row, v, add);
    if (r && seen.has(r.external_id)) {
      add(
        row,
        'external_id',
        'duplicate',
        `external_id '${r.external_id}' also appears on row ${seen.get(r.external_id)}`,
      );
    } else if (r) {
      seen.set(r.external_id, row);
      rows.push(r);
    }
  }
  return rows;
}

const NUL_MESSAGE = 'holds a NUL character (U+0000), which a ledger cannot keep';

/** The longest id or number an account or counterparty takes (a database indexes them). */
export const MAX_ID = 200;

/** The id columns of a row whose cell is longer than an id may be. */
function longIds(v: Record<string, string | undefined>, columns: string[]): string[] {
  return columns.filter((c) => (v[c]?.trim().length ?? 0) > MAX_ID);
}
const longMessage = (column: string, v: Record<string, string | undefined>) =>
  `${column} is ${v[column]!.trim().length} characters long; at most ${MAX_ID}`;

/** The columns of a row whose cell holds a NUL: no store keeps one (a database's text cannot). */
function nulCells(v: Record<string, string | undefined>): string[] {
  return Object.keys(v).filter((column) => v[column]?.includes('\u0000'));
}

function chartRow(row: number, v: Record<string, string>, add: Add): ChartRow | null {
  const externalId = (v.external_id ?? '').trim();
  const name = (v.name ?? '').trim();
  const type = (v.account_type ?? '').trim().toLowerCase();
  const currency = (v.currency ?? '').trim().toUpperCase();
  const isPostable = parseBool(v.is_postable, true);
  const isActive = parseBool(v.is_active, true);
  let ok = true;
  const bad: Add = (...a) => ((ok = false), add(...a));
  if (!externalId) bad(row, 'external_id', 'missing_field', 'external_id is required');
  if (!name) bad(row, 'name', 'missing_field', 'name is required');
  for (const column of nulCells(v)) bad(row, column, 'invalid_text', NUL_MESSAGE);
  for (const column of longIds(v, ['external_id', 'account_number']))
    bad(row, column, 'too_long', longMessage(column, v));
  if (!isAccountType(type)) {
    const types = Object.keys(ACCOUNT_TYPES).join(', ');
    bad(
      row,
      'account_type',
      'invalid_account_type',
      `'${v.account_type ?? ''}' is not an account type (one of ${types})`,
    );
  }
  if (isPostable === null)
    bad(row, 'is_postable', 'invalid_boolean', `'${v.is_postable}' is not true or false`);
  if (isActive === null)
    bad(row, 'is_active', 'invalid_boolean', `'${v.is_active}' is not true or false`);
  const { monetary, cash_flow } = reportingColumns(v, type, (column, reason, message) =>
    bad(row, column, reason, message),
  );
  if (currency && currencyExponent(currency) === null) {
    bad(row, 'currency', 'invalid_currency', `'${v.currency}' is not an ISO 4217 currency code`);
  }
  if (!ok) return null;
  return {
    row,
    external_id: externalId,
    account_number: (v.account_number ?? '').trim() || null,
    name,
    account_type: type as AccountType,
    parent_external_id: (v.parent_external_id ?? '').trim() || null,
    is_postable: isPostable!,
    is_active: isActive!,
    currency: currency || null,
    monetary,
    cash_flow,
  };
}

/** The whole-chart checks of the chart the rows leave behind, each problem on the row that causes it. */
function checkResult(
  rows: ChartRow[],
  existing: ChartShape[],
  refused: Set<string>,
  add: Add,
): void {
  const result = new Map(existing.map((e) => [e.external_id, e]));
  const rowOf = new Map<string, number>();
  for (const r of rows) {
    result.set(r.external_id, r);
    rowOf.set(r.external_id, r.row);
  }
  const numberOwner = new Map<string, string>();
  for (const a of result.values()) {
    if (!a.account_number) continue;
    const owner = numberOwner.get(a.account_number);
    if (owner === undefined) numberOwner.set(a.account_number, a.external_id);
    else {
      // The account the file brings the number to is the one named; if both are in the file, the later.
      const [mine, theirs] = rowOf.has(a.external_id)
        ? [a.external_id, owner]
        : [owner, a.external_id];
      const row = rowOf.get(mine) ?? rowOf.get(theirs)!;
      add(
        row,
        'account_number',
        'duplicate',
        `account number ${a.account_number} already belongs to '${theirs}'`,
      );
    }
  }
  for (const p of treeProblems([...result.values()])) {
    if (p.reason === 'unknown_parent' && refused.has(p.parent)) continue;
    const row = rowOf.get(p.external_id) ?? rowOf.get(p.parent)!;
    if (row === undefined) continue;
    const message = rowOf.has(p.external_id)
      ? p.message
      : `${p.message} (after this row changes '${p.parent}')`;
    add(row, 'parent_external_id', p.reason, message);
  }
}

/**
 * Every external id that is also another account's number, in the chart the rows leave behind: a line
 * or a flag naming it (`--debit 6100=5`) would mean two accounts, so every path refuses the chart
 * instead of resolving it one way here and another there. Each clash names both accounts, on the row
 * of the file that brings it (and without a row for a clash already in the ledger, for `check`).
 */
export function referenceClashes(
  rows: ChartRow[],
  existing: ChartShape[],
): { row: number | undefined; path: string; reason: string; message: string }[] {
  const result = new Map<string, ChartShape & { row?: number }>(
    existing.map((e) => [e.external_id, e]),
  );
  for (const r of rows) result.set(r.external_id, r);
  const byNumber = new Map<string, ChartShape & { row?: number }>();
  for (const a of result.values()) if (a.account_number) byNumber.set(a.account_number, a);
  const out: ReturnType<typeof referenceClashes> = [];
  const rowNote = (a: { row?: number }) => (a.row ? ` (row ${a.row})` : '');
  for (const a of result.values()) {
    const other = byNumber.get(a.external_id);
    if (!other || other.external_id === a.external_id) continue;
    const mine = a.row !== undefined;
    out.push({
      row: a.row ?? other.row,
      path: mine ? 'external_id' : 'account_number',
      reason: 'ambiguous_reference',
      message:
        `external id '${a.external_id}'${rowNote(a)} is also the number of '${other.external_id}'` +
        `${rowNote(other)}: a reference to ${a.external_id} would name two accounts`,
    });
  }
  return out;
}

/**
 * What `books check` finds wrong with a ledger's chart: its tree's problems, references that name two
 * accounts, and header accounts that hold lines. Each names the account at `accounts[ID]`.
 */
export function chartProblems(accounts: ChartShape[], exponent: number): Problem[] {
  const out: Problem[] = [];
  const at = (id: string) => `accounts[${id}]`;
  const unknown = accounts.filter((a) => !isAccountType(a.account_type));
  for (const a of unknown)
    out.push({
      path: at(a.external_id),
      reason: 'invalid_account_type',
      message: `account '${a.external_id}' is of type '${a.account_type}', which is none`,
    });
  // The tree's checks read each account's section: an account of no type has none.
  if (unknown.length) return out;
  for (const p of treeProblems(accounts))
    out.push({ path: at(p.external_id), reason: p.reason, message: p.message });
  for (const p of referenceClashes([], accounts)) {
    const id = /^external id '(.*?)'/.exec(p.message)![1]!;
    out.push({ path: at(id), reason: p.reason, message: p.message });
  }
  for (const a of accounts) {
    if (a.is_postable !== false || !a.posted?.lines) continue;
    const message =
      `header account '${a.external_id}' holds ${a.posted.lines} line(s), ` +
      `balance ${formatAmount(a.posted.balance, exponent)}`;
    out.push({ path: at(a.external_id), reason: 'header_with_lines', message });
  }
  return out;
}

/** Checks a counterparties file: known types, required ids and names, no id twice per type. */
export function checkCounterparties(records: ChartRecord[]): {
  rows: CounterpartyRow[];
  problems: Problem[];
} {
  const problems: Problem[] = [];
  const rows: CounterpartyRow[] = [];
  const seen = new Map<string, number>();
  for (const { row, values: v } of records) {
    const type = (v.counterparty_type ?? '').trim().toLowerCase();
    const externalId = (v.external_id ?? '').trim();
    const name = (v.name ?? '').trim();
    const isActive = parseBool(v.is_active, true);
    const before = problems.length;
    const add = (path: string, reason: string, message: string) =>
      problems.push({ row, path, reason, message });
    if (!(COUNTERPARTY_TYPES as readonly string[]).includes(type)) {
      add(
        'counterparty_type',
        'invalid_counterparty_type',
        `'${v.counterparty_type ?? ''}' is not one of ${COUNTERPARTY_TYPES.join(', ')}`,
      );
    }
    if (!externalId) add('external_id', 'missing_field', 'external_id is required');
    if (!name) add('name', 'missing_field', 'name is required');
    for (const column of nulCells(v)) add(column, 'invalid_text', NUL_MESSAGE);
    for (const column of longIds(v, ['external_id']))
      add(column, 'too_long', longMessage(column, v));
    if (isActive === null)
      add('is_active', 'invalid_boolean', `'${v.is_active}' is not true or false`);
    const key = `${type}:${externalId}`;
    if (externalId && seen.has(key))
      add(
        'external_id',
        'duplicate',
        `${type} '${externalId}' also appears on row ${seen.get(key)}`,
      );
    if (problems.length > before) continue;
    seen.set(key, row);
    rows.push({
      row,
      counterparty_type: type,
      external_id: externalId,
      name,
      is_active: isActive!,
    });
  }
  return { rows, problems };
}

/** The refusal of a chart or counterparties file: every problem by row; nothing was changed. */
export function chartRefused(file: string, problems: Problem[]): BooksError {
  const n = problems.length;
  return new BooksError(
    'invalid_input',
    `${file}: ${n} problem${n === 1 ? '' : 's'}; nothing was changed`,
    problems.map((p) => ({ file, code: 'invalid_input', ...p })),
  );
}

/** An account as stored, in the words of a chart row: what a re-import compares a row with. */
export type StoredChartRow = Omit<ChartRow, 'row'>;

/**
 * The rows of a chart import that create or change an account; a row that leaves its account as it
 * is changes nothing (not even its updated_at).
 */
export function changedRows(rows: ChartRow[], stored: Map<string, StoredChartRow>): ChartRow[] {
  const same = (r: ChartRow, a: StoredChartRow) =>
    r.account_number === a.account_number &&
    r.name === a.name &&
    r.account_type === a.account_type &&
    r.parent_external_id === a.parent_external_id &&
    r.is_postable === a.is_postable &&
    r.is_active === a.is_active &&
    r.currency === a.currency &&
    r.monetary === (a.monetary ?? null) &&
    r.cash_flow === (a.cash_flow ?? null);
  return rows.filter((r) => !stored.has(r.external_id) || !same(r, stored.get(r.external_id)!));
}

/** What a counterparty row does to the counterparty stored under its type and id. */
export function counterpartyChange(
  had: { name: string; is_active: boolean } | undefined,
  row: CounterpartyRow,
): 'created' | 'updated' | 'unchanged' {
  if (!had) return 'created';
  return had.name === row.name && had.is_active === row.is_active ? 'unchanged' : 'updated';
}
