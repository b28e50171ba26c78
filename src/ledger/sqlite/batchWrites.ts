import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { BooksError } from '../../domain/errors.js';
import { writeRefusal } from './connection.js';
import type { RunWrite } from './writer.js';
import type { ThreadReply, ThreadRequest, WrittenDigest } from './writerThread.js';

/** The open write transaction of an import batch: where its statements run, and how it ends. */
export interface WriteChannel {
  run: RunWrite;
  /** Resolves when more statements may be queued; rejects once a write has failed. */
  ready(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** The entries written so far and their digest, where the channel takes it from their rows. */
  digest?(): Promise<WrittenDigest>;
  /**
   * Where the channel sums the totals by tag from the lines' rows it writes: upserts those of the
   * lines written since it last did, in order with the statements run before.
   */
  tagTotals?(): void;
}

/**
 * The batch's transaction on the ledger's own connection. Foreign-key look-ups are dropped for it:
 * the batch writes only rows it validated in the same transaction, and books check still verifies
 * every reference. The pragma cannot change inside a transaction, so it is set around it.
 */
export function writesHere(
  db: Database.Database,
  prep: (sql: string) => Database.Statement,
): WriteChannel {
  db.pragma('foreign_keys = OFF');
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (e) {
    db.pragma('foreign_keys = ON');
    throw writeRefusal(e);
  }
  const end = (sql: string) => {
    if (db.inTransaction) db.exec(sql);
    db.pragma('foreign_keys = ON');
  };
  return {
    run: (sql, params) => {
      try {
        return prep(sql).run(...params);
      } catch (e) {
        throw writeRefusal(e);
      }
    },
    ready: async () => {},
    commit: async () => end('COMMIT'),
    rollback: async () => end('ROLLBACK'),
  };
}

const THREAD_SCRIPT = fileURLToPath(new URL('./writerThread.js', import.meta.url));
/** Statements sent to the thread in one message, and messages it may be behind by. */
const STATEMENTS_PER_MESSAGE = 16;
const MAX_IN_FLIGHT = 8;

/**
 * The batch's transaction on a writer thread with its own connection, so that SQLite's work on one
 * core overlaps parsing and validation on the other. The thread takes the write lock before this
 * resolves; statements are queued to it in order and run there as they arrive; commit waits for the
 * last of them. Null where the thread's script is not built (running from the TypeScript sources).
 */
export async function writesOnThread(path: string): Promise<WriteChannel | null> {
  if (!existsSync(THREAD_SCRIPT)) return null;
  const thread = new ThreadWrites(new Worker(THREAD_SCRIPT, { workerData: { path } }));
  try {
    await thread.started;
  } catch (e) {
    // A thread that could not take the lock must not keep the process alive.
    await thread.rollback();
    throw e;
  }
  return thread;
}

class ThreadWrites implements WriteChannel {
  readonly started: Promise<void>;
  private readonly known = new Map<string, number>();
  private defs: string[] = [];
  private runs: unknown[] = [];
  private queued = 0;
  private inFlight = 0;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private ending: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private digested: { resolve: (d: WrittenDigest) => void; reject: (e: Error) => void } | null =
    null;
  private done = false;

  constructor(private readonly worker: Worker) {
    this.started = new Promise<void>((resolve, reject) => {
      worker.on('message', (m: ThreadReply) => {
        if ('ready' in m) resolve();
        else if ('ack' in m) this.inFlight--;
        else if ('digest' in m) this.digested?.resolve(m.digest);
        else if ('error' in m) {
          this.failure ??= new BooksError(m.code ?? 'unavailable', m.error, m.errors ?? []);
          reject(this.failure);
          this.rejectWaiting(this.failure);
        } else if ('committed' in m) {
          this.done = true;
          this.ending?.resolve();
        }
        this.wake?.();
      });
      worker.on('error', (e) => {
        this.failure = new BooksError(
          'unavailable',
          `internal error: the writer thread failed: ${e.message}`,
        );
        reject(this.failure);
        this.rejectWaiting(this.failure);
        this.wake?.();
      });
      worker.on('exit', () => {
        if (!this.done && !this.failure)
          this.failure = new BooksError('unavailable', 'internal error: the writer thread stopped');
        if (this.failure) this.rejectWaiting(this.failure);
        this.wake?.();
      });
    });
  }

  /** The commit or digest waiting for the thread's answer, which will not come. */
  private rejectWaiting(e: Error): void {
    this.ending?.reject(e);
    this.digested?.reject(e);
  }

  run: RunWrite = (sql, params) => {
    let id = this.known.get(sql);
    if (id === undefined) {
      this.known.set(sql, (id = this.known.size));
      this.defs.push(sql);
    }
    this.runs.push(id, params);
    if (++this.queued >= STATEMENTS_PER_MESSAGE) this.send();
  };

  private send(): void {
    if (this.queued === 0) return;
    this.post({ defs: this.defs, runs: this.runs });
    this.defs = [];
    this.runs = [];
    this.queued = 0;
    this.inFlight++;
  }

  private post(m: ThreadRequest): void {
    this.worker.postMessage(m);
  }

  async ready(): Promise<void> {
    while (!this.failure && this.inFlight >= MAX_IN_FLIGHT)
      await new Promise<void>((r) => (this.wake = r));
    if (this.failure) throw this.failure;
  }

  tagTotals(): void {
    this.send();
    this.post({ tagTotals: true });
    this.inFlight++;
  }

  /** Asked after the last entry's rows: the thread has digested every row by the time it answers. */
  async digest(): Promise<WrittenDigest> {
    if (this.failure) throw this.failure;
    this.send();
    return new Promise<WrittenDigest>((resolve, reject) => {
      this.digested = { resolve, reject };
      this.post({ digest: true });
    });
  }

  async commit(): Promise<void> {
    if (this.failure) throw this.failure;
    this.send();
    await new Promise<void>((resolve, reject) => {
      this.ending = { resolve, reject };
      this.post({ commit: true });
    });
  }

  async rollback(): Promise<void> {
    if (this.done) return;
    // Nothing queued matters any more: stopping the thread closes its connection, which rolls back.
    this.done = true;
    await this.worker.terminate();
  }
}
