import Database from 'better-sqlite3';
import { BooksError } from '../../domain/errors.js';

/** How long a connection waits for a lock another process holds before the command says "unavailable". */
export const BUSY_TIMEOUT_MS = 30_000;

/** Opens a ledger file as every connection of books does: WAL, a busy timeout, foreign keys on. */
export function connect(path: string): Database.Database {
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // A large batch inserts into several indexes at once; a 64 MiB page cache keeps their pages in memory.
  db.pragma('cache_size = -65536');
  return db;
}

/** A lock held past the busy timeout is "unavailable, retry later" (exit 4), never a raw SQLITE_BUSY. */
export function busyToUnavailable(e: unknown): unknown {
  const code = (e as { code?: unknown })?.code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new BooksError(
      'unavailable',
      'the ledger is locked by another writer; try again shortly',
    );
  }
  return e;
}
