import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { isBooksError, type ErrorCode, type Problem } from '../../domain/errors.js';
import { writeRefusal, connect } from './connection.js';
import { RowsDigest } from '../journal/rowsDigest.js';
import { RowsTagTotals } from '../journal/rowsTagTotals.js';
import { entryRowsOf, insertTagTotals } from './writer.js';

/**
 * To the thread: statements to run (new SQL texts first, then pairs of text index and parameters),
 * the totals by tag of the lines written since it was last asked (upserted there), the digest of the
 * entries written so far, or commit.
 */
export type ThreadRequest =
  { defs: string[]; runs: unknown[] } | { tagTotals: true } | { digest: true } | { commit: true };
/** The entries a thread wrote, and their digest (domain/audit.ts EntriesDigest). */
export interface WrittenDigest {
  count: number;
  hex: string | null;
}
/**
 * From the thread: the write lock is held, a message was run, the digest, the batch committed, or it
 * failed (and rolled back).
 */
export type ThreadReply =
  | { ready: true }
  | { ack: true }
  | { digest: WrittenDigest }
  | { committed: true }
  | { error: string; code?: ErrorCode; errors?: Problem[] };

/**
 * The writer thread of a large import (see writesOnThread): one connection, one IMMEDIATE
 * transaction, the statements the batch sends, in order, then the commit. The first failure rolls
 * back and is reported; later statements are ignored. A rollback asked for by the batch stops the
 * thread, which closes its connection. The entries' rows it inserts feed the audit event's digest
 * and the totals by tag here, on this thread's core, rather than on the import's.
 */
if (parentPort) {
  const port = parentPort;
  const reply = (m: ThreadReply) => port.postMessage(m);
  const statements: Database.Statement[] = [];
  /** Per statement: whether it inserts entries' or lines' rows, which the digest reads. */
  const rowsOf: ('entries' | 'lines' | null)[] = [];
  let digest: RowsDigest | null = null;
  const tagged = new RowsTagTotals();
  const cached = new Map<string, Database.Statement>();
  let db: Database.Database | null = null;
  let failed = false;

  const fail = (e: unknown) => {
    failed = true;
    if (db?.inTransaction) db.exec('ROLLBACK');
    const err = writeRefusal(e);
    reply(
      isBooksError(err)
        ? { error: err.message, code: err.code, errors: err.errors }
        : { error: `internal error: ${(err as Error)?.message ?? String(err)}` },
    );
  };

  try {
    db = connect((workerData as { path: string }).path);
    // As on the ledger's own connection (writesHere): the batch writes only rows it validated.
    db.pragma('foreign_keys = OFF');
    // A batch appends (ids, dates and fingerprints arrive in order), so a smaller page cache writes as
    // fast as a large one and keeps the import's memory down (measured: 64 MiB 8.4 s / 308 MB, 16 MiB
    // 7.5 s / 233 MB for a million lines).
    db.pragma('cache_size = -16384');
    // Each multi-row INSERT keeps a statement journal of the index pages it changes, to undo itself
    // on a constraint failure; in memory it costs no temporary-file writes (0.3 s of a million lines).
    db.pragma('temp_store = MEMORY');
    db.exec('BEGIN IMMEDIATE');
    reply({ ready: true });
  } catch (e) {
    fail(e);
  }

  /** Read on this connection, in its transaction: what the batch's lines and reversals refer to. */
  const newDigest = (conn: Database.Database) => {
    const accounts = new Map<number, string | null>();
    const account = conn.prepare('SELECT id FROM accounts WHERE key = ?').pluck();
    const original = conn.prepare('SELECT id FROM journal_entries WHERE seq = ?').pluck();
    return new RowsDigest(
      (key) => {
        let id = accounts.get(key);
        if (id === undefined) accounts.set(key, (id = (account.get(key) as string) ?? null));
        return id;
      },
      (seq) => (original.get(seq) as string | undefined) ?? null,
    );
  };

  port.on('message', (m: ThreadRequest) => {
    if ('tagTotals' in m) {
      if (!failed && db) {
        const conn = db;
        const run = (sql: string, params: unknown[]) => {
          let st = cached.get(sql);
          if (!st) cached.set(sql, (st = conn.prepare(sql)));
          st.run(...params);
        };
        try {
          insertTagTotals(run, tagged.take());
        } catch (e) {
          fail(e);
        }
      }
      reply({ ack: true });
      return;
    }
    if ('digest' in m) {
      try {
        if (failed || !db) throw new Error('the batch failed before its digest');
        reply({ digest: (digest ??= newDigest(db)).result() });
      } catch (e) {
        fail(e);
      }
      return;
    }
    if ('commit' in m) {
      if (!failed && db) {
        try {
          db.exec('COMMIT');
          db.close();
          reply({ committed: true });
        } catch (e) {
          fail(e);
        }
      }
      port.close();
      return;
    }
    if (!failed && db) {
      try {
        for (const sql of m.defs) {
          statements.push(db.prepare(sql));
          rowsOf.push(entryRowsOf(sql));
        }
        const runs = m.runs;
        for (let i = 0; i < runs.length; i += 2) {
          const params = runs[i + 1] as unknown[];
          statements[runs[i] as number]!.run(...params);
          const rows = rowsOf[runs[i] as number];
          if (rows) {
            (digest ??= newDigest(db))[rows](params);
            tagged[rows](params);
          }
        }
      } catch (e) {
        fail(e);
      }
    }
    reply({ ack: true });
  });
}
