import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { isBooksError } from '../../domain/errors.js';
import { busyToUnavailable, connect } from './connection.js';

/** To the thread: statements to run (new SQL texts first, then pairs of text index and parameters), or commit. */
export type ThreadRequest = { defs: string[]; runs: unknown[] } | { commit: true };
/** From the thread: the write lock is held, a message was run, the batch committed, or it failed (and rolled back). */
export type ThreadReply = { ready: true } | { ack: true } | { committed: true } | { error: string };

/**
 * The writer thread of a large import (see writesOnThread): one connection, one IMMEDIATE
 * transaction, the statements the batch sends, in order, then the commit. The first failure rolls
 * back and is reported; later statements are ignored. A rollback asked for by the batch stops the
 * thread, which closes its connection.
 */
if (parentPort) {
  const port = parentPort;
  const reply = (m: ThreadReply) => port.postMessage(m);
  const statements: Database.Statement[] = [];
  let db: Database.Database | null = null;
  let failed = false;

  const fail = (e: unknown) => {
    failed = true;
    if (db?.inTransaction) db.exec('ROLLBACK');
    const err = busyToUnavailable(e);
    reply({
      error: isBooksError(err)
        ? err.message
        : `internal error: ${(err as Error)?.message ?? String(err)}`,
    });
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

  port.on('message', (m: ThreadRequest) => {
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
        for (const sql of m.defs) statements.push(db.prepare(sql));
        const runs = m.runs;
        for (let i = 0; i < runs.length; i += 2)
          statements[runs[i] as number]!.run(...(runs[i + 1] as unknown[]));
      } catch (e) {
        fail(e);
      }
    }
    reply({ ack: true });
  });
}
