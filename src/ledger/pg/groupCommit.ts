import type { GroupTotals } from '../journal/groupTotals.js';
import type { EntityState } from '../journal/store.js';
import type { Query, TxQuery } from './db.js';
import type { PgEntities } from './entity.js';

/** `then`: the rows of the statement the write runs first (Waiting.then), read with the lock. */
type Op = (q: TxQuery, entity: EntityState, then?: unknown[]) => Promise<unknown>;

interface Waiting {
  op: Op;
  /** Writes entries and reads no totals: their totals may wait for the group's end (GroupTotals). */
  entries: boolean;
  /** A statement (prepared) and its values that the write runs first: sent with the lock when alone. */
  then?: [string, unknown[]];
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
  /** The totals entry writes leave to the group, and how they are written. */
  private deferred: { totals: GroupTotals; write: (q: Query) => Promise<void> } | null = null;
  /** The write running in the group's transaction. */
  private current: Waiting | null = null;

  constructor(private readonly entities: PgEntities) {}

  run<T>(
    op: (q: TxQuery, entity: EntityState, then?: unknown[]) => Promise<T>,
    entries = false,
    then?: [string, unknown[]],
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ op, entries, then, resolve: resolve as (value: never) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  /** Sums the totals of the group's entry writes in `totals`, written by `write` once per group. */
  deferTotals(totals: GroupTotals, write: (q: Query) => Promise<void>): void {
    this.deferred = { totals, write };
  }

  /** The group's sums, when the running write may leave its entries' totals to them. */
  get groupTotals(): GroupTotals | null {
    return this.current?.entries ? (this.deferred?.totals ?? null) : null;
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
    let results: Outcome[];
    try {
      results = await this.entities.write(
        async (q, entity, then) => {
          const out: Outcome[] = [];
          if (group.length === 1) {
            // A lone write: no savepoint, its failure is the transaction's.
            const r = await this.attempt(group[0]!, () => group[0]!.op(q, entity, then));
            if ('error' in r) throw r.error;
            await this.deferred?.write(q);
            return [r];
          }
          // Each write's savepoint is set in the same round trip as the last one is let go; no write
          // ends the transaction (lastWith).
          const inGroup: Query = (sql, params) => q(sql, params);
          let between = 'SAVEPOINT grouped';
          for (const w of group) {
            if (!w.entries && this.deferred) {
              // A failed write is undone first: the sums go into the transaction, not its savepoint.
              if (between.startsWith('ROLLBACK')) {
                await q('ROLLBACK TO SAVEPOINT grouped');
                between = 'RELEASE SAVEPOINT grouped; SAVEPOINT grouped';
              }
              await this.deferred.write(q);
            }
            await q(between);
            const r = await this.attempt(w, () => w.op(inGroup, entity));
            between = 'RELEASE SAVEPOINT grouped; SAVEPOINT grouped';
            if ('error' in r) between = `ROLLBACK TO SAVEPOINT grouped; ${between}`;
            out.push(r);
          }
          // A write that failed last is undone before the group commits.
          if (between.startsWith('ROLLBACK')) await q('ROLLBACK TO SAVEPOINT grouped');
          await this.deferred?.write(q);
          return out;
        },
        group.every((w) => w.entries),
        group.length === 1 ? group[0]!.then : undefined,
      );
    } catch (e) {
      this.deferred?.totals.drop();
      for (const w of group) w.reject(e);
      return;
    }
    group.forEach((w, i) => {
      const r = results[i]!;
      if ('ok' in r) w.resolve(r.ok as never);
      else w.reject(r.error);
    });
  }

  /** Runs one write of the group; its entries count in the group's totals only if it held. */
  private async attempt(w: Waiting, op: () => Promise<unknown>): Promise<Outcome> {
    this.current = w;
    try {
      const r = await attempt(op);
      this.deferred?.totals.ended(!('error' in r));
      return r;
    } finally {
      this.current = null;
    }
  }
}

async function attempt(op: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await op() };
  } catch (error) {
    return { error };
  }
}
