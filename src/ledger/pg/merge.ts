import pg from 'pg';
import { errors, isBooksError } from '../../domain/errors.js';
import { preparedOn } from './execute.js';
import {
  beginWith,
  connection,
  executable,
  GENERIC_PLANS,
  statementOf,
  type PgDb,
  type Transaction,
  type TxQuery,
} from './db.js';

/** A write of posts of one entity whose facts go with its lock (PgEntities.write's `then`). */
export interface Member {
  entityId: string;
  /** The entity's row FOR UPDATE, as a statement without parameters. */
  lock: string;
  then: [string, unknown[]];
  fn: (q: TxQuery, entity: unknown[], then?: unknown[]) => Promise<unknown>;
  /** The same write in a transaction of its own, the entity's lock waited for. */
  alone: () => Promise<unknown>;
}

interface Waiting extends Member {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

type Outcome = { ok: unknown } | { error: unknown };

/** A last statement of a write, sent with the others and COMMIT; `done` gets its rows. */
interface Final {
  sql: string;
  params: unknown[];
  done: Deferred<unknown[]>;
}

/** A member with its entity's row (its lock had) and its facts' rows where they came with it. */
interface Held {
  m: Waiting;
  entity: unknown[];
  then?: unknown[];
}

/**
 * A failure of a shared transaction that the database answered (it rolled back): each member's
 * posts are posted again alone (the path of a group the database refused), so each gets its own
 * answer. It is never an answer itself.
 */
export class SharedRefusal extends Error {
  constructor(override readonly cause: unknown) {
    super(`the shared transaction was refused: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/**
 * Nothing but an operator's transaction holds an entity's rows without its lock; a shared
 * transaction that meets one gives up at once, and its members go alone (each waits for what its own
 * entity holds, no longer for another's).
 */
const SHARED_LOCK_WAIT = `SET LOCAL lock_timeout = '50ms'`;
// (Set for the last round trip only, where an entity's own rows are written: a lock on a whole
// table, before, holds every entity alike, and each waits for it as it would alone.)

const NOT_WRITTEN = () =>
  errors.unavailable(
    'another entity’s write in the same database transaction failed; nothing of this was written',
  );

/** The most entities one transaction takes. */
const MOST = 16;
/** How long a lone write holds the next transaction back (see alone). */
const LONE_MS = 5;

const merges = new WeakMap<PgDb, EntriesMerge>();
/** The database's merge (one per pool: a server's entities share it). */
export const mergeOf = (db: PgDb): EntriesMerge => {
  let m = merges.get(db);
  if (!m) merges.set(db, (m = new EntriesMerge(db)));
  return m;
};

/**
 * Writes of posts of different entities that wait at once share one transaction: their locks and
 * facts in its first round trip, their rows and its COMMIT in its last. A lone post's transaction
 * cost PostgreSQL and the server about as much as four posts' of one entity in one transaction, so
 * eight entities posting at once posted less in all than one. One transaction runs at a time; the
 * writes that arrive meanwhile go in the next. An entity locked by another transaction is skipped (no
 * entity waits on another's lock) and its write runs alone, waiting for its lock as ever.
 */
export class EntriesMerge {
  private waiting: Waiting[] = [];
  private running = false;

  constructor(private readonly db: PgDb) {}

  run<T>(member: Member): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ ...member, resolve: resolve as (v: unknown) => void, reject });
      if (this.running) return;
      this.running = true;
      // After the event loop's turn: the posts of requests read in the same turn go together.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length) {
        const taken: Waiting[] = [];
        const later: Waiting[] = [];
        for (const w of this.waiting) {
          const room = taken.length < MOST && !taken.some((t) => t.entityId === w.entityId);
          (room ? taken : later).push(w);
        }
        this.waiting = later;
        if (taken.length === 1) await alone(taken[0]!);
        else await this.together(taken.sort((a, b) => (a.entityId < b.entityId ? -1 : 1)));
      }
    } finally {
      this.running = false;
    }
  }

  /** One transaction for the writes of several entities (in the order of their ids: no deadlock). */
  private async together(members: Waiting[]): Promise<void> {
    let t: Transaction<pg.PoolClient>;
    try {
      t = await connection(this.db);
    } catch (e) {
      for (const m of members) m.reject(e);
      return;
    }
    let broken = false;
    let held: Held[];
    try {
      held = await this.locked(t, members);
    } catch (e) {
      await t.rollback().catch(() => (broken = true));
      for (const m of members) m.reject(this.db.error(e));
      t.client.release(broken);
      return;
    }
    try {
      broken = await this.write(t, held);
    } catch (e) {
      // Not expected: every member is settled there. Those that were not are now (a promise keeps
      // its first answer).
      broken = true;
      for (const h of held) h.m.reject(this.db.error(e));
    } finally {
      t.client.release(broken);
    }
  }

  /**
   * BEGIN, and each member's lock (SKIP LOCKED) and facts (where the connection has them prepared),
   * in one round trip: the members whose lock was had, with their rows. The others run alone.
   */
  private async locked(t: Transaction<pg.PoolClient>, members: Waiting[]): Promise<Held[]> {
    const parts = members.map((m) => [`${m.lock} SKIP LOCKED`, ...executable(t.client, m.then)]);
    const rows = await beginWith(t.client, this.db, false, [GENERIC_PLANS, ...parts.flat()]);
    let at = 1;
    const held: Held[] = [];
    members.forEach((m, i) => {
      const entity = rows[at]!;
      const then = parts[i]!.length > 1 ? rows[at + 1] : undefined;
      at += parts[i]!.length;
      if (entity.length === 0) void settle(m, m.alone());
      else held.push({ m, entity, then });
    });
    return held;
  }

  /**
   * Runs the members' writes at once on the transaction's connection; once each has ended or asked
   * for its last statement (lastWith), those statements and COMMIT go in one round trip. Settles
   * every member, a failed transaction rolled back first; true where the connection is broken.
   */
  private async write(t: Transaction<pg.PoolClient>, held: Held[]): Promise<boolean> {
    const finals: Final[] = [];
    const states: (Outcome | null)[] = held.map(() => null);
    const wrote = held.map(() => false);
    const asked = held.map(() => false);
    // A statement that failed after another had (the transaction aborted by it) is not its own.
    const afterAbort = held.map(() => false);
    let aborted = false;
    let waiting = held.length;
    let ended = false;
    const barrier = new Deferred<void>();
    const arrived = () => {
      if (--waiting === 0) barrier.resolve();
    };
    const outcomes = held.map(({ m, entity, then }, i) => {
      let last = false;
      const q = (async (sql: string, params?: unknown[]) => {
        if (ended) throw new Error('a statement after the transaction’s COMMIT');
        // Its facts, and what a message reads (the accounts a reference resembles), are reads:
        // anything else is a write that a failure of this member could not undo alone.
        if (sql !== m.then[0] && !/^\s*SELECT\b/i.test(sql)) wrote[i] = true;
        const was = aborted;
        return t.q(sql, params).catch((e: unknown) => {
          [aborted, afterAbort[i]] = [true, was];
          throw e;
        });
      }) as TxQuery;
      q.lastWith = async (sql, params = []) => {
        if (ended) throw new Error('a statement after the transaction’s COMMIT');
        last = asked[i] = true;
        const done = new Deferred<unknown[]>();
        finals.push({ sql, params, done });
        arrived();
        return (await done.promise) as never;
      };
      return outcome(m.fn(q, entity, then)).then((r) => {
        states[i] = r;
        if (!last) arrived();
        return r;
      });
    });
    if (held.length === 0) barrier.resolve();
    await barrier.promise;
    ended = true;
    let failure: unknown = null;
    if (states.some((s, i) => wrote[i] && s !== null && 'error' in s))
      failure = new SharedRefusal(new Error('a write of it failed after it had written'));
    else
      await this.commit(t, finals).catch((e: unknown) => {
        failure = e;
      });
    // Nothing of a failed transaction holds. Where the database said so, each last statement is
    // refused as its own would be, and its posts are posted again alone (only a refused one fails);
    // where the answer was lost, they are answered "retry".
    let broken = false;
    if (failure) {
      await t.rollback().catch(() => (broken = true));
      for (const f of finals) f.done.reject(this.said(failure));
    }
    const settled = await Promise.all(outcomes);
    held.forEach(({ m }, i) => {
      const r = settled[i]!;
      // A write whose statements were rolled back, or one that failed because another's had, is
      // answered "retry": nothing of it was written.
      const undone = failure && (wrote[i] || asked[i]) && 'ok' in r;
      if (undone || ('error' in r && afterAbort[i])) m.reject(NOT_WRITTEN());
      else if ('ok' in r) m.resolve(r.ok);
      else m.reject(r.error);
    });
    return broken;
  }

  /**
   * A failure of the shared transaction as its members' last statements take it: the database's own
   * refusal (the transaction rolled back, a lock waited for too long) as it is, which the posting
   * path takes for a refusal of its group, and posts again alone; a lost connection as "unavailable".
   */
  private said(e: unknown): unknown {
    if (e instanceof SharedRefusal) return e;
    // Only an ERROR the server answered is sure to have rolled back; anything else (a lost
    // connection, a FATAL, an error of the client's) may follow a COMMIT that took.
    const refused =
      e instanceof pg.DatabaseError
        ? e.severity === 'ERROR' && !/^(08|57P)/.test(e.code ?? '')
        : isBooksError(e) && e.code !== 'unavailable';
    return refused ? new SharedRefusal(e) : this.db.error(e);
  }

  /**
   * The members' last statements, as EXECUTE where prepared, and COMMIT in one simple query, after
   * the short lock wait (SHARED_LOCK_WAIT). Errors come as the server or the client raised them.
   */
  private async commit(t: Transaction<pg.PoolClient>, finals: Final[]): Promise<void> {
    const rows: (unknown[] | undefined)[] = [];
    const executes = finals.map((f) => executable(t.client, [f.sql, f.params]));
    // The lock wait goes with the statements: in a round trip of its own where one is not prepared.
    const simple = [SHARED_LOCK_WAIT];
    if (executes.some((e) => e.length === 0)) await t.client.query(simple.pop()!);
    for (const [i, f] of finals.entries()) {
      if (executes[i]!.length) simple.push(executes[i]![0]!);
      else {
        const statement = statementOf(f.sql, f.params);
        rows[i] = (await t.client.query(statement)).rows;
        if (statement.name) preparedOn(t.client).add(statement.name);
      }
    }
    const results = (await t.client.query([...simple, 'COMMIT'].join('; '))) as unknown as
      pg.QueryResult[] | pg.QueryResult;
    const list = Array.isArray(results) ? results : [results];
    if (list.at(-1)!.command !== 'COMMIT')
      throw new SharedRefusal(new Error('the database rolled it back at COMMIT'));
    let k = simple[0] === SHARED_LOCK_WAIT ? 1 : 0;
    finals.forEach((f, i) => f.done.resolve(rows[i] ?? list[k++]!.rows));
  }
}

/**
 * A lone write, waited for as long as a transaction takes (the writes that arrive meanwhile go
 * together in the next), but no longer than LONE_MS: one waiting for its entity's lock (an import's,
 * for instance) holds no other entity's writes.
 */
async function alone(w: Waiting): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    settle(w, w.alone()),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, LONE_MS))),
  ]);
  clearTimeout(timer);
}

const outcome = (p: Promise<unknown>): Promise<Outcome> =>
  p.then(
    (ok) => ({ ok }),
    (error: unknown) => ({ error }),
  );

async function settle(w: Waiting, p: Promise<unknown>): Promise<void> {
  const r = await outcome(p);
  if ('ok' in r) w.resolve(r.ok);
  else w.reject(r.error);
}

class Deferred<T> {
  resolve!: (v: T) => void;
  reject!: (e: unknown) => void;
  readonly promise = new Promise<T>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });
}
