import Database from 'better-sqlite3';
import { toJsonInteger } from '../../domain/money.js';
import { Scope, type Session, type Sql, type Tables } from '../sql/dialect.js';
import type { Db } from './db.js';
import { exactSums, summingExactly } from './connection.js';

/** Where a ledger file keeps its one entity's rows (sql/dialect.ts). */
export const FILE = new Scope(null);

/** A ledger file's transactions for the store-neutral code (sql/dialect.ts), on its connection. */
export function fileTables(db: Db): Tables {
  const session: Session = { sql: sqliteSql((text) => db.prep(text)), scope: FILE };
  return {
    read: (fn) => db.readAsync(() => fn(session)),
    once: (fn) => fn(session),
    write: (fn) => db.writeAsync(() => fn(session, db.entity())),
    snapshot: (fn) => snapshot(db.location, fn),
    stamp: () => db.stamp(),
  };
}

/**
 * A read transaction on a read-only connection of its own: a consistent snapshot that a long read
 * (a dump) holds without keeping the ledger's own connection from serving.
 */
async function* snapshot<T>(
  location: string,
  fn: (s: Session) => AsyncIterable<T>,
): AsyncGenerator<T> {
  const db = exactSums(new Database(location, { readonly: true, fileMustExist: true }));
  try {
    db.exec('BEGIN');
    yield* fn({ sql: sqliteSql((text) => db.prepare(text)), scope: FILE });
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/** A ledger file's connection as reconciliation's statements run on it (`prep` keeps statements). */
export function sqliteSql(prep: (text: string) => Database.Statement): Sql {
  return {
    // Integers as PostgreSQL's are read (db.ts): a number while it is exact as one, else a bigint;
    // a sum past 2^53 read as a float would lose atoms.
    all: async <T>(text: string, params: unknown[]) =>
      summingExactly(
        text,
        (t) =>
          prep(t)
            .safeIntegers(true)
            .all(...params) as Record<string, unknown>[],
      ).map(exact) as T[],
    run: async (text: string, params: unknown[]) => {
      summingExactly(text, (t) => prep(t).run(...params));
    },
    anyOf: (column, values) => ({
      sql: `${column} IN (SELECT value FROM json_each(?))`,
      param: JSON.stringify(values),
    }),
    // SQLite plans by its own estimates, which know no entities.
    wholeReads: async () => {},
    insert: async (table, columns, rows) => insertRows(prep, table, columns, rows),
  };
}

/** A row's bigints as numbers where that is exact. */
function exact(row: Record<string, unknown>): Record<string, unknown> {
  for (const k in row) {
    const v = row[k];
    if (typeof v === 'bigint') row[k] = toJsonInteger(v);
  }
  return row;
}

/**
 * Inserts rows as they are, at once (its errors thrown, not in a promise): a hundred rows a
 * statement, then the rest in one; the statements prepared once for each count.
 */
export function insertRows(
  prep: (text: string) => Database.Statement,
  table: string,
  columns: readonly { name: string }[],
  rows: readonly unknown[][],
): void {
  const names = columns.map((c) => c.name).join(', ');
  const row = `(${columns.map(() => '?').join(', ')})`;
  const of = (n: number) =>
    prep(`INSERT INTO ${table} (${names}) VALUES ${Array(n).fill(row).join(', ')}`);
  for (let i = 0; i < rows.length; i += 100) {
    const part = rows.slice(i, i + 100);
    of(part.length).run(...part.flat());
  }
}
