import Database from 'better-sqlite3';
import { Scope, type Session, type Tables } from '../sql/dialect.js';
import type { Db } from './db.js';
import { sqliteSql } from './recon.js';

const FILE = new Scope(null);

/** A ledger file's transactions for the store-neutral code (sql/dialect.ts), on its connection. */
export function fileTables(db: Db): Tables {
  const session: Session = { sql: sqliteSql((text) => db.prep(text)), scope: FILE };
  return {
    read: (fn) => db.readAsync(() => fn(session)),
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
  const db = new Database(location, { readonly: true, fileMustExist: true });
  try {
    db.exec('BEGIN');
    yield* fn({ sql: sqliteSql((text) => db.prepare(text)), scope: FILE });
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}
