import type { EntityState } from '../journal/store.js';
import type { Query } from './db.js';
import type { PgEntities } from './entity.js';

type Op = (q: Query, entity: EntityState) => Promise<unknown>;

interface Waiting {
  op: Op;
  resolve: (value: never) => void;
  reject: (e: unknown) => void;
}

type Outcome = { ok: unknown } | { error: unknown };

/** The most writes one transaction takes: a group's answers wait for its one commit. */
const MOST = 64;

/**
 * Writes of one entity that arrive while its transaction is open share the next one, each in a
 * savepoint of its own, and are answered only after its COMMIT: a commit waits for the server's
 * flush to disk while the entity's lock is held, so one commit per entry would bound posting by the
 * disk (about 190 entries/s on this machine's durable cluster). A write that fails rolls back its
 * savepoint alone; a transaction that cannot begin or commit fails every write in it, and none of
 * them is in the ledger. A lone write runs in a transaction of its own, without a savepoint.
 */
export class PgGroupCommit {
  private waiting: Waiting[] = [];
  private running = false;

  constructor(private readonly entities: PgEntities) {}

  run<T>(op: (q: Query, entity: EntityState) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ op, resolve: resolve as (value: never) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length) await this.flush(this.waiting.splice(0, MOST));
    } finally {
      this.running = false;
    }
  }

  private async flush(group: Waiting[]): Promise<void> {
    if (group.length === 1) {
      const w = group[0]!;
      await this.entities.write(w.op).then((v) => w.resolve(v as never), w.reject);
      return;
    }
    let results: Outcome[];
    try {
      results = await this.entities.write(async (q, entity) => {
        const out: Outcome[] = [];
        // Each write's savepoint is set in the same round trip as the last one is let go.
        let between = 'SAVEPOINT grouped';
        for (const w of group) {
          await q(between);
          const r = await attempt(() => w.op(q, entity));
          between = 'RELEASE SAVEPOINT grouped; SAVEPOINT grouped';
          if ('error' in r) between = `ROLLBACK TO SAVEPOINT grouped; ${between}`;
          out.push(r);
        }
        // A write that failed last is undone before the group commits.
        if (between.startsWith('ROLLBACK')) await q('ROLLBACK TO SAVEPOINT grouped');
        return out;
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
}

async function attempt(op: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await op() };
  } catch (error) {
    return { error };
  }
}
