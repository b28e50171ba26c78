import { keyHash, keyId } from '../../domain/keys.js';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Whose receipts an import keeps: the service's address and the key it posts with, as the key decides
 * which entity the entries go to (one `books serve` over a database serves many). Named by the key's
 * id, or for another kind of key by a digest of it, never by the key itself.
 */
export function receiptService(location: string, key: string | undefined): string {
  if (key === undefined) return location;
  return `${location} key:${keyId(key) ?? keyHash(key).slice(0, 16)}`;
}

/** A request that was sent and whose answer has not been recorded: it may or may not have posted. */
export interface PendingReceipt {
  fingerprint: string;
  /** The request's body as sent (JSON), to send again under the same key. */
  body: string;
  sentAtMs: number;
  file: string;
  row: number;
}

/**
 * What this machine has posted to each remote service, by import fingerprint: the service forgets an
 * idempotency key after an hour, this store does not, so a re-run never posts twice. A request is
 * recorded as pending before it is sent and as posted when its answer comes: a run killed between
 * the two leaves a pending receipt that the next run settles before it posts anything. One SQLite
 * file at $BOOKS_RECEIPTS, else $XDG_DATA_HOME/books/receipts.sqlite, else
 * ~/.local/share/books/receipts.sqlite.
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
    // Durable through a crash of the process (what a receipt is for); a commit per request is cheap.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS receipts (
         service TEXT NOT NULL, fingerprint TEXT NOT NULL, entry_id TEXT, posted_at TEXT NOT NULL,
         PRIMARY KEY (service, fingerprint)) WITHOUT ROWID;
       CREATE TABLE IF NOT EXISTS pending (
         service TEXT NOT NULL, fingerprint TEXT NOT NULL, body TEXT NOT NULL, sent_at_ms INTEGER NOT NULL,
         file TEXT NOT NULL, row INTEGER NOT NULL,
         PRIMARY KEY (service, fingerprint)) WITHOUT ROWID`,
    );
  }

  has(service: string, fingerprint: string): boolean {
    const found = this.db
      .prepare(`SELECT 1 FROM receipts WHERE service = ? AND fingerprint = ?`)
      .get(service, fingerprint);
    return found !== undefined;
  }

  /** Recorded (and committed) before the request is sent. */
  sending(service: string, p: PendingReceipt): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO pending (service, fingerprint, body, sent_at_ms, file, row) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(service, p.fingerprint, p.body, p.sentAtMs, p.file, p.row);
  }

  /** The answer came: posted (by this request or an earlier one under the same key). */
  record(service: string, fingerprint: string, entryId: string | null): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT OR IGNORE INTO receipts (service, fingerprint, entry_id, posted_at) VALUES (?, ?, ?, ?)`,
        )
        .run(service, fingerprint, entryId, new Date().toISOString());
      this.forget(service, fingerprint);
    })();
  }

  /** The answer came, and nothing posted: the request may be sent again later. */
  forget(service: string, fingerprint: string): void {
    this.db
      .prepare(`DELETE FROM pending WHERE service = ? AND fingerprint = ?`)
      .run(service, fingerprint);
  }

  pending(service: string): PendingReceipt[] {
    return this.db
      .prepare(
        `SELECT fingerprint, body, sent_at_ms AS sentAtMs, file, row FROM pending
         WHERE service = ? ORDER BY sent_at_ms`,
      )
      .all(service) as PendingReceipt[];
  }

  close(): void {
    this.db.close();
  }
}
