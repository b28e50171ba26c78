import type Database from 'better-sqlite3';

interface Waiting {
  op: () => unknown;
  resolve: (value: never) => void;
  reject: (e: unknown) => void;
}

/**
 * Writes that arrive together (requested in the same turn of the event loop: concurrent requests to
 * books serve) share one transaction, each in a savepoint of its own, and are answered only after
 * the one COMMIT. A commit costs more than a small entry's inserts (it appends every page the entry
 * touched to the WAL), so sharing it doubles the posting rate under load. A write that fails rolls
 * back its savepoint alone; a transaction that cannot begin or commit fails every write in it, and
 * none of them is in the ledger.
 */
export class GroupCommit {
  private waiting: Waiting[] = [];

  constructor(
    private readonly db: Database.Database,
    /** Runs a function in one write transaction (begins, commits, or rolls back on a throw). */
    private readonly transaction: (fn: () => void) => void,
  ) {}

  run<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ op, resolve: resolve as (value: never) => void, reject });
      if (this.waiting.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const group = this.waiting;
    this.waiting = [];
    const results: ({ ok: unknown } | { error: unknown })[] = [];
    try {
      this.transaction(() => {
        for (const w of group) results.push(group.length === 1 ? attempt(w.op) : this.inSavepoint(w.op));
      });
    } catch (e) {
      for (const w of group) w.reject(e);
      return;
    }
    group.forEach((w, i) => {
      const r = results[i]!;
      if ('ok' in r) w.resolve(r.ok as never);
      else w.reject(r.error);
    });
  }

  private inSavepoint(op: () => unknown): { ok: unknown } | { error: unknown } {
    this.db.exec('SAVEPOINT grouped');
    const r = attempt(op);
    if ('error' in r) this.db.exec('ROLLBACK TO grouped');
    this.db.exec('RELEASE grouped');
    return r;
  }
}

function attempt(op: () => unknown): { ok: unknown } | { error: unknown } {
  try {
    return { ok: op() };
  } catch (error) {
    return { error };
  }
}
