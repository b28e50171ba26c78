import { seqOf } from '../../domain/jeNumber.js';
import {
  ENTRY_COLUMNS,
  EntryWriter,
  LINE_COLUMNS,
  type RowTarget,
  type RunWrite,
} from '../journal/entryRows.js';
import type { NumberingFacts } from '../journal/store.js';
import type { Db } from './db.js';

export { EntryWriter, type RunWrite } from '../journal/entryRows.js';

/** RunWrite on the ledger's own connection, with its cached statements. */
export const runOn =
  (db: Db): RunWrite =>
  (sql, params) =>
    db.prep(sql).run(...params);

/**
 * The JE numbering as it stands: the largest number that counts, and the numbers above it that
 * entries took without counting. A writer that holds the write lock numbers on from them.
 */
export function numberingFacts(db: Db): NumberingFacts {
  const maxJe = db.prep(`SELECT MAX(je_seq) FROM journal_entries`).pluck().safeIntegers(true);
  const next = db
    .prep(`SELECT MIN(je_seq_uncounted) FROM journal_entries WHERE je_seq_uncounted >= ?`)
    .pluck()
    .safeIntegers(true);
  return {
    last: seqOf(maxJe.get() as bigint | null),
    nextTaken: (from) => {
      const n = next.get(from) as bigint | null;
      return n === null ? null : seqOf(n);
    },
  };
}

/** The largest storage sequence number committed; a writer that holds the write lock goes on from it. */
export function lastSeq(db: Db): number {
  return (db.prep(`SELECT MAX(seq) FROM journal_entries`).pluck().get() as number | null) ?? 0;
}

const BUMP_TOTALS = `INSERT INTO account_month_totals
    (account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (account_key, month) DO UPDATE SET net_atoms = net_atoms + excluded.net_atoms,
    line_count = line_count + excluded.line_count, adj_net_atoms = adj_net_atoms + excluded.adj_net_atoms,
    adj_line_count = adj_line_count + excluded.adj_line_count`;

const bumps = new Map<number, string>();
/**
 * The upsert of `n` totals by tag in one statement. A file's totals by tag are summed in the process
 * as lines are written (TagTotals) and upserted many to a statement: measured against summing the
 * written lines in SQLite after them (json_each, GROUP BY), the 1M-line tagged import took 11.2 s
 * against 12.3 s, the sort of three million tag rows at the end being the database's alone.
 */
function bumpTagTotals(n: number): string {
  let sql = bumps.get(n);
  if (sql === undefined) {
    const one = '(?, ?, ?, ?, ?, ?, ?, ?)';
    sql = `INSERT INTO tag_month_totals AS t
      (account_key, month, tag_key, tag_value, net_atoms, line_count, adj_net_atoms, adj_line_count)
      VALUES ${Array(n).fill(one).join(', ')}
      ON CONFLICT (tag_key, tag_value, account_key, month) DO UPDATE SET
        net_atoms = t.net_atoms + excluded.net_atoms, line_count = t.line_count + excluded.line_count,
        adj_net_atoms = t.adj_net_atoms + excluded.adj_net_atoms,
        adj_line_count = t.adj_line_count + excluded.adj_line_count`;
    bumps.set(n, sql);
  }
  return sql;
}

/**
 * Rows per INSERT statement. Binding a row costs little; each statement run costs about a microsecond
 * of driver and VDBE set-up, which a million lines would otherwise pay a million times.
 */
const ROWS_PER_STATEMENT = 64;

const inserts = new Map<string, string>();
/** The INSERT of `rows` rows; the same string each time, so statement caches find it at once. */
function insertOf(table: string, columns: readonly string[], rows: number): string {
  const key = `${table} ${rows}`;
  let sql = inserts.get(key);
  if (sql === undefined) {
    const one = `(${columns.map(() => '?').join(', ')})`;
    sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array(rows).fill(one).join(', ')}`;
    inserts.set(key, sql);
  }
  return sql;
}

const ENTRIES_INTO = `INSERT INTO journal_entries (${ENTRY_COLUMNS.join(', ')}) VALUES `;
const LINES_INTO = `INSERT INTO journal_lines (${LINE_COLUMNS.join(', ')}) VALUES `;

/** Which of an EntryWriter's row inserts (insertOf) a statement is, or null for another. */
export function entryRowsOf(sql: string): 'entries' | 'lines' | null {
  return sql.startsWith(ENTRIES_INTO) ? 'entries' : sql.startsWith(LINES_INTO) ? 'lines' : null;
}

/** Upserts totals by tag (rows as TagTotals makes them, led by no scope) through `run`. */
export function insertTagTotals(run: RunWrite, rows: readonly unknown[][]): void {
  for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) {
    const n = Math.min(ROWS_PER_STATEMENT, rows.length - at);
    // Copied by hand: Array.prototype.flat took a third of this function's time.
    const params: unknown[] = [];
    for (let r = at; r < at + n; r++) for (const v of rows[r]!) params.push(v);
    run(bumpTagTotals(n), params);
  }
}

/**
 * A ledger file's tables as an EntryWriter writes them, through `run`; the totals by tag summed by
 * the writer, unless `tagTotals` says where else they are summed.
 */
export const fileRows = (run: RunWrite, tagTotals?: RowTarget['tagTotals']): RowTarget => ({
  perStatement: ROWS_PER_STATEMENT,
  insert: (table, columns, values, rows) => run(insertOf(table, columns, rows), values),
  renumber: (from, to) =>
    run(
      `UPDATE journal_entries SET je_number = ?, je_seq = ?, je_seq_uncounted = ? WHERE je_number = ?`,
      [to.je_number, to.counted, to.uncounted, from],
    ),
  setMemo: (jeNumber, memo) =>
    run(`UPDATE journal_entries SET memo = ? WHERE je_number = ?`, [memo, jeNumber]),
  addTotals: (rows) => {
    for (const row of rows) run(BUMP_TOTALS, row);
  },
  tagTotals: tagTotals ?? { rows: (rows) => insertTagTotals(run, rows) },
});

/** An EntryWriter over a ledger file, through `run`. */
export const fileWriter = (
  run: RunWrite,
  last: number,
  now: () => Date,
  afterFlush?: (lastSeq: number, lines: number) => void,
  totals = true,
  tagTotals?: RowTarget['tagTotals'],
) => new EntryWriter(fileRows(run, tagTotals), last, now, afterFlush, totals);
