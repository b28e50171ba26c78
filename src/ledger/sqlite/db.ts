import type Database from 'better-sqlite3';
import { withoutUnset } from '../../domain/accounts.js';
import type { Entity } from '../../domain/accounts.js';
import { fileIdentity, storageError } from './connection.js';

export type Clock = () => Date;

/** The entity row, with the rebuild mark that only the store reads. */
export interface EntityRow extends Entity {
  rebuild_started_at: string | null;
  rebuild_owner: string | null;
}

/**
 * A ledger file's connection as the store's modules share it: statements prepared once and kept by
 * their SQL, transactions that take the write lock up front, the clock. Nothing outside
 * src/ledger/sqlite sees it.
 */
export class Db {
  private readonly stmts = new Map<string, Database.Statement>();
  private ownWrites = 0;
  private writing = 0;
  private keptTag = '';
  private readonly keptValues = new Map<string, unknown>();

  /** Null while the path still names the file this connection writes; else why no write may go on. */
  readonly stillHere: () => Error | null;

  constructor(
    readonly sqlite: Database.Database,
    readonly location: string,
    readonly now: Clock,
  ) {
    this.stillHere = fileIdentity(location);
  }

  /**
   * Prepared statements, kept by their SQL: preparing costs more than running a small statement, and a
   * served ledger runs the same few for every request. A given SQL text is always used in one mode
   * (pluck, raw, safeIntegers), so sharing it is safe.
   */
  prep(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.sqlite.prepare(sql)));
    return s;
  }

  /**
   * A value read from the ledger (the entity, the chart as validation sees it, API keys), kept while
   * nothing can have changed it: until another connection commits (SQLite's data_version) or this one
   * writes through write(). Posts do not change what is kept, so a server reads it once, not per request.
   */
  kept<T>(name: string, read: () => T): T {
    // Inside write() a value may be read, written and read again: nothing is kept there.
    if (this.writing > 0) return read();
    const tag = this.changes();
    if (tag !== this.keptTag) {
      this.keptTag = tag;
      this.keptValues.clear();
    }
    if (!this.keptValues.has(name)) this.keptValues.set(name, read());
    return this.keptValues.get(name) as T;
  }

  /**
   * What has written the ledger: another connection's commits (data_version) and this connection's
   * writes other than posts. The same text twice: nothing but this connection's posts wrote between.
   */
  changes(): string {
    return `${this.dataVersion()}:${this.ownWrites}`;
  }

  /** SQLite's data_version as read while this connection holds the write lock (see locked). */
  private lockedVersion: number | null = null;
  private holdsLock = false;

  /**
   * SQLite's data_version: asked each time, except while this connection holds the write lock, when
   * no other can commit and the first answer holds (a group of posts asks once, not two or three
   * times a post, at 2.5 µs each). A request read outside a transaction (a key's authentication)
   * always sees what another process committed before it.
   */
  private dataVersion(): number {
    return this.holdsLock ? (this.lockedVersion ??= this.readVersion()) : this.readVersion();
  }

  private readVersion(): number {
    return this.prep('PRAGMA data_version').pluck().get() as number;
  }

  /** This connection has just taken the write lock (BEGIN IMMEDIATE) for a group's transaction. */
  locked(): void {
    this.holdsLock = true;
    this.lockedVersion = null;
  }

  /** The group's transaction has ended (committed or rolled back): the lock is no longer held. */
  released(): void {
    this.holdsLock = false;
  }

  /**
   * This connection changes, or has undone, what a kept value may hold (a write of the group commit
   * other than a post): what is kept is read again.
   */
  changed(): void {
    this.ownWrites++;
  }

  /** Runs fn in one IMMEDIATE transaction: the write lock is taken up front, so writers queue instead of failing. */
  write<T>(fn: () => T): T {
    // Before and after: nothing read before or during it is kept past what it writes.
    this.ownWrites++;
    this.writing++;
    try {
      if (this.sqlite.inTransaction) return fn();
      const gone = this.stillHere();
      if (gone) throw gone;
      try {
        this.prep('BEGIN IMMEDIATE').run();
      } catch (e) {
        throw storageError(e, this.location);
      }
      return this.finish(fn);
    } finally {
      this.writing--;
      this.ownWrites++;
    }
  }

  /** Runs fn in one read transaction: a consistent view, without the write lock. */
  read<T>(fn: () => T): T {
    if (this.sqlite.inTransaction) return fn();
    this.prep('BEGIN DEFERRED').run();
    return this.finish(fn);
  }

  /**
   * read() for a function that awaits: the store answers synchronously, so nothing else runs on the
   * connection between BEGIN and COMMIT (only the microtasks of fn itself).
   */
  async readAsync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.sqlite.inTransaction) return fn();
    this.prep('BEGIN DEFERRED').run();
    try {
      const result = await fn();
      this.prep('COMMIT').run();
      return result;
    } catch (e) {
      if (this.sqlite.inTransaction) this.prep('ROLLBACK').run();
      throw storageError(e, this.location);
    }
  }

  /**
   * write() for a function that awaits (a restore reading its records as they come): one IMMEDIATE
   * transaction, committed when fn resolves. Nothing else may use the connection meanwhile.
   */
  async writeAsync<T>(fn: () => Promise<T>): Promise<T> {
    this.ownWrites++;
    this.writing++;
    try {
      const gone = this.stillHere();
      if (gone) throw gone;
      try {
        this.prep('BEGIN IMMEDIATE').run();
      } catch (e) {
        throw storageError(e, this.location);
      }
      try {
        const result = await fn();
        this.prep('COMMIT').run();
        return result;
      } catch (e) {
        if (this.sqlite.inTransaction) this.prep('ROLLBACK').run();
        throw storageError(e, this.location);
      }
    } finally {
      this.writing--;
      this.ownWrites++;
    }
  }

  private finish<T>(fn: () => T): T {
    try {
      const result = fn();
      this.prep('COMMIT').run();
      return result;
    } catch (e) {
      if (this.sqlite.inTransaction) this.prep('ROLLBACK').run();
      throw storageError(e, this.location);
    }
  }

  entity(): EntityRow {
    return this.kept('entity', () => this.readEntity());
  }

  private readEntity(): EntityRow {
    return this.prep(
      `SELECT id, name, currency, books_start, fiscal_year_start_month, lock_date,
              rebuild_started_at, rebuild_owner, fx_realized, fx_unrealized
       FROM entity`,
    ).get() as EntityRow;
  }

  stamp(): string {
    return this.now().toISOString();
  }
}

/** The entity as the port answers for it: the store's own marks left out. */
export function publicEntity(e: EntityRow): Entity {
  const { rebuild_started_at: _s, rebuild_owner: _o, ...entity } = e;
  return withoutUnset(entity);
}
