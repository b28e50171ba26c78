import type { Db } from './db.js';
import { runOn, type RunWrite } from './writer.js';

/**
 * The general ledger reads each account's lines in (date, entry, line) order from `gl_index`, which
 * is kept behind the journal as PostgreSQL keeps a GIN index's pending list: a post writes its lines
 * only; the lines of entries after `gl_index_state.through_seq` (the tail) are moved into the index
 * in one statement once the tail is TAIL_ENTRIES or TAIL_LINES long (an entry may have a thousand
 * lines: the tail is read whole by every page of the general ledger), by the write that finds it so,
 * and an import moves its own before it commits. A reader merges an account's range of the index
 * with the tail's lines of that account. An index entry per line, inserted where its account's range ends in the
 * middle of the b-tree, cost posting over HTTP a fifth of its speed (docs/benchmarks.md). The tail
 * goes in in entry order: sorting it first cost an import of a million lines 0.5 s and 60 MB more.
 */
export const TAIL_ENTRIES = 512;
export const TAIL_LINES = 4096;

const INDEX_TAIL = [
  `INSERT INTO gl_index (account_key, entry_date, entry_seq, line_no)
   SELECT account_key, entry_date, entry_seq, line_no FROM journal_lines
   WHERE entry_seq > (SELECT through_seq FROM gl_index_state)`,
  `UPDATE gl_index_state SET through_seq = (SELECT COALESCE(MAX(seq), 0) FROM journal_entries)`,
];

/** Moves every line not yet in the index into it; inside a write transaction (on a thread's too). */
export function indexTail(run: RunWrite): void {
  for (const sql of INDEX_TAIL) run(sql, []);
}

/** Entries after the tail's length in lines is looked at again (and after any entry of WIDE lines). */
const LINES_EVERY = 32;
const WIDE = 64;

/**
 * After a write of an entry of `lines` lines through `lastSeq`: moves the tail into the index once it
 * is long enough. Its length in lines is summed only now and then, for a post must stay cheap: a
 * tail may pass TAIL_LINES by at most LINES_EVERY entries of fewer than WIDE lines, and one entry.
 */
export function indexTailIfLong(db: Db, lastSeq: number, lines: number): void {
  const through = db.prep('SELECT through_seq FROM gl_index_state').pluck().get() as number;
  const behind = lastSeq - through;
  const long =
    behind >= TAIL_ENTRIES ||
    ((behind % LINES_EVERY === 0 || lines >= WIDE) &&
      (db
        .prep('SELECT COALESCE(SUM(line_count), 0) FROM journal_entries WHERE seq > ?')
        .pluck()
        .get(through) as number) >= TAIL_LINES);
  if (long) indexTail(runOn(db));
}

/** Empties the index and builds it again from the lines (books rebuild). */
export function reindex(db: Db): void {
  db.sqlite.exec(
    'DELETE FROM gl_index; DELETE FROM gl_index_state; INSERT INTO gl_index_state VALUES (0)',
  );
  indexTail(runOn(db));
}
