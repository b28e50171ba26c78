import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';

/**
 * What this machine has posted to each remote service, by import fingerprint: the service forgets an
 * idempotency key after an hour, this store does not, so a re-run never posts twice. One SQLite file
 * at $BOOKS_RECEIPTS, else $XDG_DATA_HOME/books/receipts.sqlite, else ~/.local/share/books/receipts.sqlite.
 */
export class Receipts {
  private readonly db: Database.Database;

  constructor(env: Record<string, string | undefined>) {
    const path = env.BOOKS_RECEIPTS
      ? resolve(env.BOOKS_RECEIPTS)
      : join(
          env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'),
          'books',
          'receipts.sqlite',
        );
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { timeout: 30_000 });
    this.db.pragma('journal_mode = WAL');
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS receipts (
         service TEXT NOT NULL, fingerprint TEXT NOT NULL, entry_id TEXT, posted_at TEXT NOT NULL,
         PRIMARY KEY (service, fingerprint)) WITHOUT ROWID`,
    );
  }

  has(service: string, fingerprint: string): boolean {
    return (
      this.db
        .prepare(`SELECT 1 FROM receipts WHERE service = ? AND fingerprint = ?`)
        .get(service, fingerprint) !== undefined
    );
  }

  record(service: string, fingerprint: string, entryId: string | null): void {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO receipts (service, fingerprint, entry_id, posted_at) VALUES (?, ?, ?, ?)`,
      )
      .run(service, fingerprint, entryId, new Date().toISOString());
  }

  close(): void {
    this.db.close();
  }
}
