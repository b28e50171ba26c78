import pg from 'pg';
import { BooksError, errors, isBooksError } from '../../domain/errors.js';
import { redacted } from '../redact.js';

export { redacted };

export type Clock = () => Date;

/** A query on one connection: rows as objects, parameters as $1, $2, … */
export type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

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

/** What node-postgres runs for a statement: named when it is prepared. */
function statementOf(sql: string, params: unknown[]): pg.QueryConfig {
  return { text: sql, values: params, name: names.get(sql) };
}

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
    // A unix socket the libpq way: postgresql://user@/db?host=/dir. pg reads `host` from the query.
    this.pool = new pg.Pool({ connectionString: location, max: poolSize });
    this.pool.on('error', () => {});
  }

  stamp(): string {
    return this.now().toISOString();
  }

  /** One statement on any connection of the pool. */
  query: Query = async (sql, params = []) => {
    try {
      return (await this.pool.query(statementOf(sql, params))).rows as never;
    } catch (e) {
      throw dbError(e, this.location);
    }
  };

  /** Runs fn in one transaction on one connection; rolled back when fn throws. */
  async tx<T>(fn: (q: Query) => Promise<T>, readOnly = false): Promise<T> {
    const { client, q, commit } = await connection(this);
    let broken = false;
    try {
      await q(readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      const result = await fn(q);
      await commit();
      return result;
    } catch (e) {
      await q('ROLLBACK').catch(() => (broken = true));
      throw e;
    } finally {
      client.release(broken);
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
      await q('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      yield* read(q);
    } finally {
      await q('ROLLBACK').catch(() => {});
      client.release();
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * Statements on one connection, run one after another in the order asked: a store may ask several at
 * once (look-ups together, rows queued while the next entries are read), and a connection runs one
 * statement at a time. Answers whole results (COMMIT's command tag is read).
 */
function queueOn(client: pg.PoolClient, location: string) {
  let last: Promise<unknown> = Promise.resolve();
  return (sql: string, params: unknown[] = []): Promise<pg.QueryResult> => {
    const run = last.then(async () => {
      try {
        return await client.query(statementOf(sql, params));
      } catch (e) {
        throw dbError(e, location);
      }
    });
    last = run.catch(() => {});
    return run;
  };
}

/** A connection of the pool, for a transaction or a stream of its own: its queries and its COMMIT. */
export async function connection(
  db: PgDb,
): Promise<{ client: pg.PoolClient; q: Query; commit: () => Promise<void> }> {
  let client: pg.PoolClient;
  try {
    client = await db.pool.connect();
  } catch (e) {
    throw dbError(e, db.location);
  }
  const run = queueOn(client, db.location);
  return {
    client,
    q: async (sql, params) => (await run(sql, params)).rows as never,
    // COMMIT of a transaction that a failed statement left aborted rolls it back, without an error:
    // nothing of it may then be acknowledged.
    commit: async () => {
      const { command } = await run('COMMIT');
      if (command !== 'COMMIT')
        throw errors.unavailable(
          `the database rolled the transaction back at COMMIT (${command}): ` +
            'a statement in it had failed; nothing of it was written',
        );
    },
  };
}

/** A database error as the ledger's errors say it: unreachable (exit 4), else as it is. */
export function dbError(e: unknown, location: string): unknown {
  if (isBooksError(e)) return e;
  const code = String((e as { code?: unknown }).code ?? '');
  const where = redacted(location);
  if (['ECONNREFUSED', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH', '57P03'].includes(code))
    return errors.unavailable(`cannot reach the database at ${where}: ${(e as Error).message}`);
  if (code === '3D000' || code === '28P01' || code === '28000')
    return new BooksError('no_ledger', `cannot open ${where}: ${(e as Error).message}`);
  if (code === '40001' || code === '40P01')
    return errors.unavailable(`the database gave up a transaction (${code}); try again`);
  return e;
}
