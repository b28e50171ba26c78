import { recordBooksStart, recordLockDate } from '../sql/auditTables.js';
import { whoNow } from '../runtime/actor.js';
import { Scope, type Session } from '../sql/dialect.js';
import { pgSql } from './tables.js';
import pg from 'pg';
import { withoutUnset, type Entity, type EntityRecord } from '../../domain/accounts.js';
import { booksStartRule, lockRule } from '../../domain/entityRules.js';
import { errors } from '../../domain/errors.js';
import type { EntityOps } from '../port.js';
import type { EntityState } from '../journal/store.js';
import { GENERIC_PLANS, type PgDb, type Query, type TxQuery } from './db.js';
import { mergeOf } from './merge.js';

const ENTITY = `entity_id AS id, name, currency, books_start, fiscal_year_start_month, lock_date,
  rebuild_started_at, rebuild_owner, fx_realized, fx_unrealized`;

/** The entity as the port answers for it: the store's own marks left out. */
export function publicOf(e: EntityState): Entity {
  const { rebuild_started_at: _s, rebuild_owner: _o, ...entity } = withoutUnset(e);
  return entity;
}

/**
 * One entity of a database: its settings, read fresh in every transaction (never kept by a process,
 * as other servers change them), and its write lock: the entity's row taken FOR UPDATE, which every
 * writer of the entity takes first, so that JE numbers, keys and sequence numbers read under it are
 * final until commit, and writers of other entities never wait.
 */
export class PgEntities implements EntityOps {
  /**
   * The entity's row taken FOR UPDATE as a statement without parameters, to go with BEGIN in one
   * round trip: the id quoted by pg (backslashes too, whatever standard_conforming_strings says).
   */
  private readonly lock: string[];
  /**
   * The lock of a transaction of posts and reversals, whose statements run on their generic plans:
   * left to choose, PostgreSQL planned a group's facts and rows again at every run, about a third of
   * its time per entry, spent under the entity's lock (docs/scaling.md).
   */
  private readonly entriesLock: string[];

  constructor(
    private readonly db: PgDb,
    readonly entityId: string,
  ) {
    this.lock = [
      `SELECT ${ENTITY} FROM entities WHERE entity_id = ${pg.escapeLiteral(entityId)} FOR UPDATE`,
    ];
    this.entriesLock = [GENERIC_PLANS, ...this.lock];
  }

  /** The entity's row in a transaction: FOR UPDATE takes its write lock. */
  async state(q: Query, lock: 'FOR UPDATE' | '' = ''): Promise<EntityState> {
    const rows = await q<EntityState>(
      `SELECT ${ENTITY} FROM entities WHERE entity_id = $1 ${lock}`,
      [this.entityId],
    );
    return this.found(rows);
  }

  private found(rows: EntityState[]): EntityState {
    if (!rows[0]) throw errors.notFound(`no entity '${this.entityId}' in ${this.db.location}`);
    return rows[0];
  }

  /**
   * Runs fn in a transaction that holds the entity's write lock, with the entity as it then is;
   * `entries`: a transaction of posts and reversals only. `then`, a prepared statement with its
   * values, runs right after the lock (fn gets its rows, or none where it ran not).
   */
  write<T>(
    fn: (q: TxQuery, entity: EntityState, then?: unknown[]) => Promise<T>,
    entries = false,
    then?: [string, unknown[]],
  ): Promise<T> {
    const alone = () =>
      this.db.tx(
        async (q, rows, thenRows) => fn(q, this.found(rows as EntityState[]), thenRows),
        false,
        entries ? this.entriesLock : this.lock,
        then,
      );
    // Posts whose facts go with the lock may share a transaction with other entities' (merge.ts).
    if (!entries || !then) return alone();
    return mergeOf(this.db).run<T>({
      entityId: this.entityId,
      lock: this.lock[0]!,
      then,
      fn: (q, rows, thenRows) => fn(q, this.found(rows as EntityState[]), thenRows),
      alone,
    });
  }

  async get(): Promise<Entity> {
    return publicOf(await this.state(this.db.query));
  }

  async record(): Promise<EntityRecord> {
    return this.db.tx(async (q) => {
      const e = this.entityId;
      const [counts] = await q<{ accounts: number; entries: number }>(
        `SELECT (SELECT COUNT(*) FROM accounts WHERE entity_id = $1) AS accounts,
                (SELECT COUNT(*) FROM journal_entries WHERE entity_id = $1) AS entries`,
        [e],
      );
      return {
        object: 'entity',
        ...publicOf(await this.state(q)),
        account_count: counts!.accounts,
        entry_count: counts!.entries,
      };
    }, true);
  }

  async setBooksStart(month: string): Promise<Entity> {
    const who = whoNow();
    return this.write(async (q, entity) => {
      const [earlier] = await q<{ je_number: string; entry_date: string }>(
        `SELECT je_number, entry_date FROM journal_entries WHERE entity_id = $1 AND entry_date < $2
         ORDER BY entry_date LIMIT 1`,
        [this.entityId, `${month}-01`],
      );
      const start = booksStartRule(month, earlier);
      await q(`UPDATE entities SET books_start = $2, updated_at = $3 WHERE entity_id = $1`, [
        this.entityId,
        start,
        this.db.stamp(),
      ]);
      await recordBooksStart(this.session(q), who, entity.books_start, start);
      return publicOf(await this.state(q));
    });
  }

  async closeThrough(
    date: string,
    reopen: boolean,
  ): Promise<{ previous: string | null; entity: Entity }> {
    const who = whoNow();
    return this.write(async (q, entity) => {
      const previous = entity.lock_date;
      lockRule(previous, date, reopen);
      await q(`UPDATE entities SET lock_date = $2, updated_at = $3 WHERE entity_id = $1`, [
        this.entityId,
        date,
        this.db.stamp(),
      ]);
      await recordLockDate(this.session(q), who, previous, date);
      return { previous, entity: publicOf(await this.state(q)) };
    });
  }

  /** The transaction as the store-neutral statements take it. */
  private session(q: Query): Session {
    return { sql: pgSql(q), scope: new Scope(this.entityId) };
  }
}
