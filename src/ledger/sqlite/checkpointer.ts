import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

const SCRIPT = fileURLToPath(new URL('./checkpointThread.js', import.meta.url));
/**
 * The WAL pages after which the server's own connection checkpoints all the same (it then copies
 * only what the thread has not, and the WAL starts over).
 */
const OWN_CHECKPOINT_PAGES = 10_000;
/** SQLite's own: the pages after which a connection's COMMIT checkpoints. */
const SQLITE_PAGES = 1_000;
/** At most one checkpoint this often: each ends with a flush to disk. */
const EVERY_MS = 50;

/**
 * A served ledger file's WAL copied into the file on a thread of its own. SQLite checkpoints in the
 * COMMIT that passes 1,000 pages of WAL, on the server's only thread: at 1,000 pages that is about
 * 5% of a served post's time, and at 10,000 a stall that took p99 from 6 to 28 ms. Here the server's
 * commits ask the thread, at most every 50 ms, and the server's own checkpoint comes at 10,000
 * pages, when it finds most pages already copied. The cost: a WAL that starts over only then while
 * posts come without pause (up to about 40 MiB; removed when the server stops).
 */
export class Checkpointer {
  private running = false;
  private asked = false;
  private stopped = false;

  private readonly exited: Promise<unknown>;

  private constructor(
    private readonly worker: Worker,
    sqlite: Database.Database,
  ) {
    this.exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.on('message', () => this.done());
    worker.on('error', () => {
      // A thread that failed leaves the checkpoints to the server's own connection, as SQLite has them.
      this.stopped = true;
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_PAGES}`);
    });
    worker.unref();
  }

  /** Starts it for the file `sqlite` is open on, or null where the thread's script is not built. */
  static start(sqlite: Database.Database, path: string): Checkpointer | null {
    if (!existsSync(SCRIPT)) return null;
    sqlite.pragma(`wal_autocheckpoint = ${OWN_CHECKPOINT_PAGES}`);
    return new Checkpointer(new Worker(SCRIPT, { workerData: { path } }), sqlite);
  }

  /** A group committed: the WAL grew. */
  committed(): void {
    if (this.stopped) return;
    if (this.running) {
      this.asked = true;
      return;
    }
    this.running = true;
    this.worker.postMessage('checkpoint');
  }

  private done(): void {
    setTimeout(() => {
      this.running = false;
      if (!this.asked) return;
      this.asked = false;
      this.committed();
    }, EVERY_MS).unref();
  }

  /** Closes the thread's connection (after a checkpoint it is running), and the thread. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.worker.postMessage('close');
    const late = setTimeout(() => void this.worker.terminate(), 5_000);
    await this.exited;
    clearTimeout(late);
  }
}
