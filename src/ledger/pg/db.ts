import pg from 'pg';
import { BooksError, errors } from '../../domain/errors.js';
import { redacted } from '../runtime/redact.js';
import { clientConfig } from './config.js';
import { dbError } from './dbError.js';
import { executed, preparedOn } from './execute.js';

export { redacted };

export type Clock = () => Date;

/** A query on one connection: rows as objects, parameters as $1, $2, … */
export type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

/**
 * A write transaction's query, with the way to send its last statement together with COMMIT, in one
 * round trip: the entity's lock is held until the commit, and a group of posts spent a round trip of
 * it on the COMMIT alone. After `lastWith`, the transaction is over and takes no other statement.
 */
export type TxQuery = Query & { lastWith?: Query };

// int8 (COUNT, bigint columns) exactly: a number while it is exact as one, else a bigint. Never a float.
pg.types.setTypeParser(20, (v: string) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
});
// numeric (SUM of bigint) as a bigint: sums of atoms are exact integers.
pg.types.setTypeParser(1700, (v: string) => BigInt(v));

const names = new Map<string, string>();

/**
 * Marks a statement of the write path as prepared: each connection parses it once and then only
 * binds it (parsing and planning were about a third of the server's time per posted entry). Only
 * statements that read by an entity's keys, whose plan the values do not change: PostgreSQL may
 * keep one generic plan for them after the first five runs.
 */
export function prepared(sql: string): string {
  if (!names.has(sql)) names.set(sql, `books_${names.size + 1}`);
  return sql;
}

/** Whether a parameter is, or holds (a text[] parameter), a text with a NUL character. */
const holdsNul = (v: unknown): boolean =>
  typeof v === 'string' ? v.includes('\u0000') : Array.isArray(v) && v.some(holdsNul);

/** PostgreSQL's text cannot hold U+0000: refused as bad data before the statement is sent. */
export const nulRefused = () =>
  new BooksError('invalid_input', NUL_MESSAGE, [
    { path: '', reason: 'invalid_text', message: NUL_MESSAGE },
  ]);
const NUL_MESSAGE = 'a text holds a NUL character (U+0000), which a ledger cannot keep';

/**
 * What node-postgres runs for a statement: named when it is prepared. A text with a NUL is refused
 * here, before it is sent (the server's error would abort the transaction), so that no path of the
 * store answers "internal error" for it.
 */
export function statementOf(sql: string, params: unknown[]): pg.QueryConfig {
  if (params.some(holdsNul)) throw nulRefused();
  return { text: sql, values: params, name: names.get(sql) };
}

/**
 * A client that closes its connection when it fails to connect: the pool drops such a client without
 * closing it, and a server still waiting for a password would hold the process a minute (its
 * authentication timeout) after the command has said why it stopped.
 */
class ClosingClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: Connected): void;
  override connect(callback?: Connected): Promise<pg.Client> | void {
    const close = () => void this.end().catch(() => {});
    if (!callback)
      return super.connect().catch((e: unknown) => {
        close();
        throw e;
      });
    super.connect((err: Error | null) => {
      if (err) close();
      (callback as (err: Error | null, c?: pg.Client) => void)(err, this);
    });
  }
}

type Connected = ((err: Error) => void) | ((err: null, c: pg.Client) => void);

/**
 * A PostgreSQL database as the store's modules share it: a pool of connections, transactions, read
 * snapshots, the clock. Nothing outside src/ledger/pg sees it.
 */
export class PgDb {
  readonly pool: pg.Pool;

  constructor(
    readonly location: string,
    readonly now: Clock,
    poolSize = 8,
  ) {
    this.pool = new pg.Pool({ ...clientConfig(location), Client: ClosingClient, max: poolSize });
    this.pool.on('error', () => {});
  }

  /** A database error as the ledger's errors say it (dbError). */
  error(e: unknown): unknown {
    return dbError(e, this.location);
  }

  stamp(): string {
    return this.now().toISOString();
  }

  /** One statement on any connection of the pool. */
  query: Query = async (sql, params = []) => {
    try {
      return (await this.pool.query(statementOf(sql, params))).rows as never;
    } catch (e) {
      throw this.error(e);
    }
  };

  /**
   * Runs fn in one transaction on one connection; rolled back when fn throws. `first`, statements
   * without parameters (a lock last), are sent with BEGIN in one round trip, and fn gets the last
   * one's rows; so is `then`, a prepared statement with its values, where the connection has
   * prepared it already (else fn gets no rows for it and runs it itself): a round trip less.
   */
  async tx<T>(
    fn: (q: TxQuery, first: unknown[], then?: unknown[]) => Promise<T>,
    readOnly = false,
    first?: string[],
    then?: [string, unknown[]],
  ): Promise<T> {
    return this.on(async ({ client, q, commit, committed }) => {
      let rows: unknown[][] = [[]];
      if (first === undefined) await q(readOnly ? BEGIN_READ : 'BEGIN');
      else
        rows = (
          await beginWith(client, this, readOnly, [...first, ...executable(client, then)])
        ).slice(first.length - 1);
      const result = await fn(q, rows[0]!, rows[1]);
      if (!committed()) await commit();
      return result;
    });
  }

  /**
   * Prepared statements read in one read-only transaction, `first` (statements without parameters)
   * after its BEGIN: the rows of each. Where the connection has prepared them all, the transaction goes
   * as one simple query, BEGIN to COMMIT with the statements as EXECUTE: one round trip, not one per
   * statement, which a busy server answers late (an import's look-ups waited a third of its time).
   */
  async readTogether(
    statements: [string, unknown[]][],
    first: string[] = [],
  ): Promise<unknown[][]> {
    return this.on(async ({ client, q, commit }) => {
      const executes = statements.flatMap((s) => executable(client, s));
      if (executes.length === statements.length) {
        const rows = await beginWith(client, this, true, [...first, ...executes, 'COMMIT']);
        return rows.slice(first.length, -1);
      }
      await beginWith(client, this, true, first);
      const rows: unknown[][] = [];
      for (const [sql, params] of statements) rows.push(await q(sql, params));
      await commit();
      return rows;
    });
  }

  /** Runs `body` on a connection of the pool, rolled back when it throws, and gives the connection back. */
  private async on<T>(body: (t: Transaction<pg.PoolClient>) => Promise<T>): Promise<T> {
    const t = await connection(this);
    let broken = false;
    try {
      return await body(t);
    } catch (e) {
      await t.rollback().catch(() => (broken = true));
      throw e;
    } finally {
      t.client.release(broken);
    }
  }

  /**
   * Streams what `read` reads in one repeatable-read, read-only transaction on a connection of its
   * own: a consistent snapshot, held until the stream ends or its reader stops (listings, the general
   * ledger, dumps; memory holds a page however large the ledger).
   */
  async *snapshot<T>(read: (q: Query) => AsyncIterable<T>): AsyncGenerator<T> {
    const { client, q } = await connection(this);
    try {
      await q(BEGIN_READ);
      yield* read(q);
    } finally {
      await q('ROLLBACK').catch(() => {});
      client.release();
    }
  }

  /** Work the store does after a write's answer (statistics), awaited before the pool closes. */
  private readonly behind = new Set<Promise<unknown>>();

  /** Runs `work` in the background; its failure is nobody's (it changes nothing of the ledger). */
  background(work: Promise<unknown>): void {
    const held = work.catch(() => {}).finally(() => this.behind.delete(held));
    this.behind.add(held);
  }

  async close(): Promise<void> {
    await Promise.all(this.behind);
    return this.pool.end();
  }
}

/**
 * Statements on one connection, run one after another in the order asked: a store may ask several at
 * once (look-ups together, rows queued while the next entries are read), and a connection runs one
 * statement at a time. Answers whole results (COMMIT's command tag is read).
 */
function queueOn(client: Conn, db: PgDb) {
  let last: Promise<unknown> = Promise.resolve();
  return (
    sql: string,
    params: unknown[] = [],
    as: (sql: string, params: unknown[]) => pg.QueryConfig = statementOf,
  ): Promise<pg.QueryResult> => {
    const run = (client.pipelined ? Promise.resolve() : last).then(async () => {
      try {
        const statement = as(sql, params);
        const result = (await client.query(statement)) as pg.QueryResult;
        if (statement.name) preparedOn(client).add(statement.name);
        return result;
      } catch (e) {
        throw db.error(e);
      }
    });
    last = run.catch(() => {});
    return run;
  };
}

/**
 * A transaction's statements on their generic plans, planned for any entity rather than for the one
 * named: the statistics of a database of many entities say little of one entity, least of one being
 * filled (its rows not yet committed, or not yet analysed), and a plan made for its values can walk
 * every row it has (docs/scaling.md, "Figures").
 */
export const GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan';

/** A read transaction's BEGIN: one snapshot for all its statements. */
const BEGIN_READ = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** BEGIN and statements without parameters in one simple query: the rows of each statement. */
export async function beginWith(
  client: pg.PoolClient,
  db: PgDb,
  readOnly: boolean,
  statements: string[],
): Promise<unknown[][]> {
  try {
    const results = (await client.query(
      [readOnly ? BEGIN_READ : 'BEGIN', ...statements].join('; '),
    )) as unknown as pg.QueryResult[];
    return results.slice(1).map((r) => r.rows);
  } catch (e) {
    throw db.error(e);
  }
}

/**
 * A prepared statement as EXECUTE, where the connection has prepared it and its values may go as
 * literals (none is refused: a refusal is raised where the statement runs on its own).
 */
export function executable(client: pg.PoolClient, statement?: [string, unknown[]]): string[] {
  if (!statement) return [];
  try {
    const { name } = statementOf(...statement);
    return name && preparedOn(client).has(name) ? [executed(name, statement[1])] : [];
  } catch {
    return [];
  }
}

const listened = new WeakSet<pg.PoolClient>();

/** A connection as a transaction uses it: one of the pool, or one of its own (pipelined.ts). */
export interface Conn {
  query(config: pg.QueryConfig): Promise<pg.QueryResult | pg.QueryResult[]>;
  release(broken?: boolean): void;
  /** It queues statements itself, in order: each is sent without waiting for the one before to answer. */
  readonly pipelined?: boolean;
}

/** A transaction's statements on a connection, and its COMMIT. */
export interface Transaction<C extends Conn = Conn> {
  client: C;
  q: TxQuery;
  commit: () => Promise<void>;
  committed: () => boolean;
  rollback: () => Promise<void>;
}

/** A connection of the pool, for a transaction or a stream of its own: its queries and its COMMIT. */
export async function connection(db: PgDb): Promise<Transaction<pg.PoolClient>> {
  let client: pg.PoolClient;
  try {
    client = await db.pool.connect();
  } catch (e) {
    throw db.error(e);
  }
  // A connection the server ends while it is out of the pool (a terminated backend, a failover)
  // fails its queries; without a listener its 'error' event would end the process.
  if (!listened.has(client)) {
    listened.add(client);
    client.on('error', () => {});
  }
  return transactionOn(client, db);
}

/** A transaction's statements on `client`, and its COMMIT. */
export function transactionOn<C extends Conn>(client: C, db: PgDb): Transaction<C> {
  const run = queueOn(client, db);
  let ended = false;
  // COMMIT of a transaction that a failed statement left aborted rolls it back, without an error:
  // nothing of it may then be acknowledged.
  const committedBy = ({ command }: pg.QueryResult) => {
    if (command !== 'COMMIT')
      throw errors.unavailable(
        `the database rolled the transaction back at COMMIT (${command}): ` +
          'a statement in it had failed; nothing of it was written',
      );
  };
  const commit = async () => {
    ended = true;
    committedBy(await run('COMMIT'));
  };
  const q: TxQuery = async (sql, params) => {
    if (ended) throw new Error('a statement after the transaction’s COMMIT');
    return (await run(sql, params)).rows as never;
  };
  // A statement the connection has prepared goes as EXECUTE with its values, then COMMIT, in one
  // simple query: if it fails, the server skips the COMMIT and the transaction is rolled back.
  q.lastWith = async (sql, params = []) => {
    const name = statementOf(sql, params).name;
    if (!name || !preparedOn(client).has(name)) {
      const rows = await q(sql, params);
      await commit();
      return rows as never;
    }
    ended = true;
    const results = (await run(`${executed(name, params)}; COMMIT`, [], (text) => ({
      text,
    }))) as unknown as pg.QueryResult[];
    committedBy(results[1]!);
    return results[0]!.rows as never;
  };
  const rollback = async () => void (await run('ROLLBACK'));
  return { client, q, commit, committed: () => ended, rollback };
}
