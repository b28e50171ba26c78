import { existsSync, rmSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { BooksError, errors } from '../../domain/errors.js';
import type { Ledger } from '../port.js';
import { StoreLedger } from '../compose/storeLedger.js';
import { SqliteChart } from './chart.js';
import { accessProblem, connect, damaged, storageError } from './connection.js';
import { Db, type Clock } from './db.js';
import { SqliteEntity, type EntityInit } from './entity.js';
import { GroupCommit } from './groupCommit.js';
import { Checkpointer } from './checkpointer.js';
import { SqliteJournalStore } from './journal.js';
import { SqliteKeys } from './keys.js';
import { SqliteMaintenance } from './maintenance.js';
import { APPLICATION_ID, AUDIT_VERSION, MIGRATIONS } from './schema.js';
import { startTrail } from './trailStart.js';
import { STRICT_TOTALS_VERSION, wholeTotals } from './wholeTotals.js';
import { SqliteSums } from './sums.js';
import { newId } from '../ids.js';

export type { EntityInit };

export interface OpenOptions {
  clock?: Clock;
  /** How long a write waits for another process's lock before it is "unavailable". */
  busyTimeoutMs?: number;
}

/**
 * The local ledger: one SQLite file in WAL mode that several processes may write at once. Each
 * concern of the port lives in a module of its own, over one shared connection.
 */
export class SqliteLedger extends StoreLedger implements Ledger {
  readonly location: string;
  readonly entity: SqliteEntity;
  readonly chart: SqliteChart;
  readonly keys: SqliteKeys;
  private readonly db: Db;
  private readonly commits: GroupCommit;
  private checkpointer: Checkpointer | null = null;

  private constructor(sqlite: Database.Database, location: string, now: Clock) {
    const db = new Db(sqlite, location, now);
    const chart = new SqliteChart(db);
    const commits = new GroupCommit(sqlite, location, db.stillHere, db);
    super(
      new SqliteJournalStore(db, chart, commits),
      new SqliteSums(db, chart),
      new SqliteMaintenance(db),
      chart,
    );
    [this.location, this.db, this.chart, this.commits] = [location, db, chart, commits];
    this.entity = new SqliteEntity(db);
    this.keys = new SqliteKeys(db);
  }

  /** Creates a new ledger file with its entity; refuses a path that already exists. */
  static create(path: string, init: EntityInit, options: OpenOptions = {}): SqliteLedger {
    if (existsSync(path))
      throw errors.usage(`a file already exists at ${path}; books init will not overwrite it`);
    let sqlite: Database.Database;
    try {
      sqlite = connect(path, { create: true, ...options });
    } catch (e) {
      rmSync(path, { force: true });
      throw storageError(e, path);
    }
    const ledger = new SqliteLedger(sqlite, path, options.clock ?? (() => new Date()));
    ledger.migrate();
    const ts = ledger.db.stamp();
    ledger.db
      .prep(
        `INSERT INTO entity (id, name, currency, books_start, fiscal_year_start_month, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        newId('ent'),
        init.name,
        init.currency,
        init.books_start,
        init.fiscal_year_start_month,
        ts,
        ts,
      );
    return ledger;
  }

  /** Opens an existing ledger file, bringing its schema up to date; says how to create one when absent. */
  static open(path: string, options: OpenOptions = {}): SqliteLedger {
    try {
      statSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new BooksError('no_ledger', `cannot open ${path}: ${(e as Error).message}`);
      }
      throw new BooksError(
        'no_ledger',
        `no ledger at ${path}; create one with \`books init\` (or name another with --ledger PATH)`,
      );
    }
    const sqlite = openFile(path, options.busyTimeoutMs);
    const ledger = new SqliteLedger(sqlite, path, options.clock ?? (() => new Date()));
    ledger.migrate();
    return ledger;
  }

  private migrate(): void {
    // Read without a lock first: a ledger that is up to date (nearly always) must open while another
    // process holds the write lock for a long import. Only a migration takes the lock (and looks again).
    const sqlite = this.db.sqlite;
    if ((sqlite.pragma('user_version', { simple: true }) as number) === MIGRATIONS.length) return;
    this.db.write(() => {
      const version = sqlite.pragma('user_version', { simple: true }) as number;
      if (version > MIGRATIONS.length) {
        throw errors.usage(
          `${this.location} was written by a newer books (schema ${version}); upgrade books`,
        );
      }
      for (let v = version; v < MIGRATIONS.length; v++) {
        if (v === STRICT_TOTALS_VERSION) wholeTotals(sqlite, this.location);
        sqlite.exec(MIGRATIONS[v]!);
      }
      if (version < AUDIT_VERSION) startTrail(this.db);
      sqlite.pragma(`application_id = ${APPLICATION_ID}`);
      sqlite.pragma(`user_version = ${MIGRATIONS.length}`);
    });
  }

  /** Held open by a server: its WAL is checkpointed on a thread of its own (Checkpointer). */
  serving(): void {
    if (this.checkpointer || !this.db.sqlite.open) return;
    this.checkpointer = Checkpointer.start(this.db.sqlite, this.location);
    this.commits.afterCommit = () => this.checkpointer?.committed();
  }

  async close(): Promise<void> {
    this.commits.afterCommit = undefined;
    await this.checkpointer?.stop();
    this.checkpointer = null;
    if (this.db.sqlite.open) this.db.sqlite.close();
  }
}

/**
 * Opens the file and checks that it is a books ledger. What stops it is said as it is: the operating
 * system's refusal, a damaged file, or a file that is not a ledger.
 */
function openFile(path: string, busyTimeoutMs: number | undefined): Database.Database {
  let sqlite: Database.Database | null = null;
  try {
    sqlite = connect(path, busyTimeoutMs === undefined ? {} : { busyTimeoutMs });
    if (sqlite.pragma('application_id', { simple: true }) === APPLICATION_ID) return sqlite;
  } catch (e) {
    sqlite?.close();
    const c = String((e as { code?: unknown }).code ?? '');
    const os = accessProblem(path);
    if (os) throw new BooksError('no_ledger', `cannot open ${path}: ${os}`);
    if (c.startsWith('SQLITE_CORRUPT')) throw damaged(path, (e as Error).message);
    if (c !== 'SQLITE_NOTADB') throw storageError(e, path);
  }
  sqlite?.close();
  throw new BooksError(
    'no_ledger',
    `${path} is not a books ledger; create one with \`books init --ledger NEW_PATH\``,
  );
}
