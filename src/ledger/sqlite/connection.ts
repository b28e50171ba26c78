import {
  accessSync,
  constants,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { BooksError, errors, INT64_MAX } from '../../domain/errors.js';
import { LOCK_WAIT_MS } from '../journal/store.js';

/** How long a connection waits for a lock another process holds before the command says "unavailable". */
export const BUSY_TIMEOUT_MS = LOCK_WAIT_MS;

/** Opens a ledger file as every connection of books does: WAL, a busy timeout, foreign keys on. */
export function connect(
  path: string,
  {
    create = false,
    busyTimeoutMs = BUSY_TIMEOUT_MS,
  }: { create?: boolean; busyTimeoutMs?: number } = {},
): Database.Database {
  const db = new Database(path, { timeout: busyTimeoutMs, fileMustExist: !create });
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // A large batch inserts into several indexes at once; a 64 MiB page cache keeps their pages in memory.
  db.pragma('cache_size = -65536');
  return exactSums(db);
}

/**
 * SQLite's SUM fails ("integer overflow") once its running sum passes 2^63 - 1, though the sum may
 * end within it: an entry of the largest debit and credit on one account. `exact_sum` adds exactly
 * (bigints), for the statement run again when SUM failed (summingExactly). A sum past a 64-bit
 * integer is given as its decimal text.
 */
export function exactSums(db: Database.Database): Database.Database {
  db.aggregate('exact_sum', {
    start: null,
    step: (total: bigint | null, v: unknown) =>
      v === null || v === undefined ? total : (total ?? 0n) + BigInt(v as bigint | number),
    result: (total: bigint | null) =>
      total === null || (total <= INT64_MAX && total >= -INT64_MAX - 1n) ? total : String(total),
    safeIntegers: true,
    deterministic: true,
  });
  return db;
}

/** Runs `sql` through `run`; where SQLite's SUM overflowed on the way, again with exact sums. */
export function summingExactly<T>(sql: string, run: (text: string) => T): T {
  try {
    return run(sql);
  } catch (e) {
    if (code(e) !== 'SQLITE_ERROR' || (e as Error).message !== 'integer overflow') throw e;
    return run(exactSql(sql));
  }
}

/** `sql` with each SUM( made exact_sum(, except inside quoted text (a tag's value) or names. */
export function exactSql(sql: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    // A doubled quote inside a literal closes it and opens it again: the same as reading on.
    if (quote !== null) quote = c === quote ? null : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === 'S' && sql.startsWith('SUM(', i) && !/\w/.test(sql[i - 1] ?? '')) {
      out += 'exact_sum(';
      i += 3;
      continue;
    }
    out += c;
  }
  return out;
}

/** A sum as SQLite gives it (exact_sum's past a 64-bit integer as its digits), as a bigint. */
export const sumOf = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(String(v ?? 0)));

const code = (e: unknown) => String((e as { code?: unknown })?.code ?? '');

/**
 * What any write may meet, as the ledger's errors say it: a lock held past the busy timeout is
 * "unavailable, retry later" (exit 4), never a raw SQLITE_BUSY; a total past 2^63 - 1, which the
 * STRICT totals tables refuse to keep as a real number, is CAPI33. Other errors pass through.
 */
export function writeRefusal(e: unknown): unknown {
  const c = code(e);
  if (c === 'SQLITE_BUSY' || c === 'SQLITE_LOCKED') return errors.locked();
  const totals =
    c === 'SQLITE_CONSTRAINT_DATATYPE' &&
    /^cannot store REAL value in INTEGER column (account|tag)_month_totals\./.exec(
      (e as Error).message,
    );
  if (totals)
    return errors.totalOutOfRange(
      totals[1] === 'tag' ? "an account's total by tag for a month" : undefined,
    );
  return e;
}

/**
 * What the operating system says of a ledger file this user cannot use: SQLite only says "unable to
 * open", so the file and its folder (where the write-ahead log lives) are asked directly.
 */
export function accessProblem(path: string): string | null {
  for (const [what, target, mode] of [
    ['the file', path, constants.R_OK | constants.W_OK],
    ['its folder', dirname(path), constants.W_OK | constants.X_OK],
  ] as const) {
    try {
      accessSync(target, mode);
    } catch (e) {
      return `${what}: ${(e as Error).message}`;
    }
  }
  return null;
}

/**
 * A SQLite failure as the error a bookkeeper can act on: a lock or a full disk is worth retrying, a
 * file this user may not write says so (with the operating system's words), and a malformed file is
 * damaged: nothing more is written to it. Other errors pass through.
 */
export function storageError(e: unknown, path: string): unknown {
  const refused = writeRefusal(e);
  if (refused !== e) return refused;
  const c = code(e);
  if (c === 'SQLITE_FULL' || c.startsWith('SQLITE_IOERR')) {
    const why =
      c === 'SQLITE_FULL' ? 'the disk is full' : `the disk failed to read or write (${c})`;
    return errors.unavailable(`cannot write ${path}: ${why}; nothing of this request was written`);
  }
  if (c.startsWith('SQLITE_READONLY') || c.startsWith('SQLITE_CANTOPEN') || c === 'SQLITE_PERM') {
    const os = accessProblem(path);
    return new BooksError('no_ledger', `cannot write ${path}: ${os ?? (e as Error).message}`);
  }
  if (c.startsWith('SQLITE_CORRUPT') || c === 'SQLITE_NOTADB') {
    markDamaged(path, (e as Error).message);
    return damaged(path, (e as Error).message);
  }
  return e;
}

/**
 * Whether a ledger may be written now: not when the path no longer names the file a connection was
 * opened on (a ledger deleted or replaced under a running server must not go on acknowledging
 * writes that land nowhere), and not when the file is known to be damaged.
 */
export function fileIdentity(path: string): () => BooksError | null {
  const id = (s: { dev: number; ino: number }) => `${s.dev}:${s.ino}`;
  const opened = id(statSync(path));
  return () => {
    const damage = knownDamage(path);
    if (damage) return damage;
    let now: string;
    try {
      now = id(statSync(path));
    } catch {
      return errors.unavailable(
        `the ledger file ${path} was removed while it was open; nothing more is written to it`,
      );
    }
    if (now === opened) return null;
    return errors.unavailable(
      `the ledger file ${path} was replaced while it was open; nothing more is written to it`,
    );
  };
}

/** The error every operation on a malformed ledger file raises. */
export function damaged(path: string, detail: string): BooksError {
  return new BooksError(
    'damaged',
    `${path} is damaged (${detail}); nothing more is written to it: restore it from a backup, ` +
      'and run books check',
  );
}

/**
 * Once SQLite has reported a ledger file malformed (to `books check`, a report, a post), a mark
 * beside it says so, and every writer refuses the file until `books check` finds it sound again.
 * The mark is a file of its own: the damaged database is the last place to keep it.
 */
const markOf = (path: string) => `${path}.damaged`;

export function markDamaged(path: string, detail: string): void {
  try {
    writeFileSync(markOf(path), `${new Date().toISOString()} ${detail}\n`, { flag: 'wx' });
  } catch {
    // Already marked, or the folder cannot be written: the error itself still says it is damaged.
  }
}

export function clearDamaged(path: string): void {
  rmSync(markOf(path), { force: true });
}

/** The damage found earlier, as the error a writer raises, or null for a file not known to be damaged. */
export function knownDamage(path: string): BooksError | null {
  // Asked before every write: an absent mark must not cost a thrown error.
  if (!existsSync(markOf(path))) return null;
  let text: string;
  try {
    text = readFileSync(markOf(path), 'utf8').trim();
  } catch {
    return null;
  }
  const [at, ...detail] = text.split(' ');
  return damaged(path, `found ${at}: ${detail.join(' ') || 'malformed'}`);
}
