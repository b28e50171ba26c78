import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { AccountType, Counterparty, Entity, GlAccount } from '../../domain/accounts.js';
import type { ChartRow, CounterpartyRow, ExistingAccount } from '../../domain/chart.js';
import {
  idempotencyKeyProblem,
  validateEntry,
  type AccountRef,
  type CounterpartyRef,
  type JournalEntry,
  type JournalEntryLine,
  type ValidationContext,
  type ValidEntry,
} from '../../domain/entry.js';
import { BooksError, entryInvalid, errors, type Problem } from '../../domain/errors.js';
import { normaliseJeNumber } from '../../domain/jeNumber.js';
import { keyId, type ApiKeyInfo, type Permission } from '../../domain/keys.js';
import {
  buildBalanceSheet,
  cutDates,
  type BalanceSheet,
  type Cumulative,
  type SheetAccount,
} from '../../domain/balanceSheet.js';
import { endOfMonth, parts } from '../../domain/dates.js';
import {
  checkReportQuery,
  splitPeriods,
  windowTooLong,
  type ReportQuery,
} from '../../domain/periods.js';
import type {
  EntryFilter,
  ImportOptions,
  LocalLedgerOps,
  PostOptions,
  ReverseOptions,
} from '../port.js';
import { writesHere, writesOnThread } from './batchWrites.js';
import { GroupCommit } from './groupCommit.js';
import { ImportBatch } from './importBatch.js';
import { busyToUnavailable, connect } from './connection.js';
import { APPLICATION_ID, MIGRATIONS } from './schema.js';
import {
  EntryWriter,
  newId,
  type EntryMeta,
  type Inserted,
  type RunWrite,
  type WriterStart,
} from './writer.js';

const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;
const REBUILD_STALE_MS = 10 * 60 * 1000;
/** Imports of at least this many bytes (or of unknown size) write on a thread of their own. */
const THREAD_MIN_BYTES = 1024 * 1024;

export interface EntityInit {
  name: string;
  currency: string;
  books_start: string | null;
  fiscal_year_start_month: number;
}

export type Clock = () => Date;

/** A stable hash of a request, to tell a repeated request from a different one under the same key. */
export function requestHash(endpoint: string, body: unknown): string {
  return createHash('sha256')
    .update(endpoint)
    .update('\0')
    .update(canonicalJson(body))
    .digest('hex');
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

interface EntryRow {
  seq: number;
  id: string;
  je_number: string;
  entry_date: string;
  currency: string;
  memo: string | null;
  source: string;
  status: string;
  is_adjusting: number;
  manual_entry_reason: string | null;
  total_atoms: number;
  original_id: string | null;
  original_date: string | null;
  created_at: string;
  updated_at: string;
}

/** The local ledger: one SQLite file in WAL mode that several processes may write at once. */
export class SqliteLedger implements LocalLedgerOps {
  readonly kind = 'local' as const;
  readonly location: string;
  readonly db: Database.Database;
  private readonly now: Clock;

  /** Posts and reversals requested together share a transaction (see GroupCommit). */
  private readonly commits: GroupCommit;

  private constructor(db: Database.Database, location: string, now: Clock) {
    this.db = db;
    this.location = location;
    this.now = now;
    this.commits = new GroupCommit(db);
  }

  /** Creates a new ledger file with its entity; refuses a path that already exists. */
  static create(path: string, init: EntityInit, now: Clock = () => new Date()): SqliteLedger {
    if (existsSync(path))
      throw errors.usage(`a file already exists at ${path}; books init will not overwrite it`);
    const ledger = new SqliteLedger(connect(path), path, now);
    ledger.migrate();
    const ts = now().toISOString();
    ledger.db
      .prepare(
        `INSERT INTO entity (id, name, currency, books_start, fiscal_year_start_month, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
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
  static open(path: string, now: Clock = () => new Date()): SqliteLedger {
    if (!existsSync(path)) {
      throw new BooksError(
        'no_ledger',
        `no ledger at ${path}; create one with \`books init\` (or name another with --ledger PATH)`,
      );
    }
    let db: Database.Database;
    try {
      db = connect(path);
      const appId = db.pragma('application_id', { simple: true });
      if (appId !== APPLICATION_ID) throw new Error('foreign');
    } catch {
      throw new BooksError(
        'no_ledger',
        `${path} is not a books ledger; create one with \`books init --ledger NEW_PATH\``,
      );
    }
    const ledger = new SqliteLedger(db, path, now);
    ledger.migrate();
    return ledger;
  }

  private migrate(): void {
    // Read without a lock first: a ledger that is up to date (nearly always) must open while another
    // process holds the write lock for a long import. Only a migration takes the lock (and looks again).
    if ((this.db.pragma('user_version', { simple: true }) as number) === MIGRATIONS.length) return;
    this.write(() => {
      const version = this.db.pragma('user_version', { simple: true }) as number;
      if (version > MIGRATIONS.length) {
        throw new BooksError(
          'usage',
          `${this.location} was written by a newer books (schema ${version}); upgrade books`,
        );
      }
      for (let v = version; v < MIGRATIONS.length; v++) this.db.exec(MIGRATIONS[v]!);
      if (version < MIGRATIONS.length) {
        this.db.pragma(`application_id = ${APPLICATION_ID}`);
        this.db.pragma(`user_version = ${MIGRATIONS.length}`);
      }
    });
  }

  /** Runs fn in one IMMEDIATE transaction: the write lock is taken up front, so writers queue instead of failing. */
  write<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    try {
      this.prep('BEGIN IMMEDIATE').run();
    } catch (e) {
      throw busyToUnavailable(e);
    }
    try {
      const result = fn();
      this.prep('COMMIT').run();
      return result;
    } catch (e) {
      if (this.db.inTransaction) this.prep('ROLLBACK').run();
      throw busyToUnavailable(e);
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async entity(): Promise<Entity> {
    return this.entitySync();
  }

  entitySync(): Entity & { rebuild_started_at: string | null } {
    return this.prep(
      `SELECT id, name, currency, books_start, fiscal_year_start_month, lock_date, rebuild_started_at FROM entity`,
    ).get() as Entity & {
      rebuild_started_at: string | null;
    };
  }

  /** Applies the First Month of Books; refused when entries already exist before it. */
  setBooksStart(month: string): Entity {
    const start = `${month}-01`;
    return this.write(() => {
      const earlier = this.prep(
        `SELECT je_number, entry_date FROM journal_entries WHERE entry_date < ? ORDER BY entry_date LIMIT 1`,
      ).get(start) as { je_number: string; entry_date: string } | undefined;
      if (earlier) {
        throw new BooksError(
          'CAPI33',
          `${earlier.je_number} is dated ${earlier.entry_date}, before ${start}; the books cannot start after posted entries`,
          [
            {
              path: 'first_month',
              reason: 'entries_before_start',
              message: `${earlier.je_number} is dated ${earlier.entry_date}`,
            },
          ],
        );
      }
      this.prep(`UPDATE entity SET books_start = ?, updated_at = ?`).run(
        start,
        this.now().toISOString(),
      );
      return this.entitySync();
    });
  }

  /** Locks the books through a date; moving the lock earlier (reopening) must be asked for. */
  closeThrough(date: string, reopen: boolean): { previous: string | null; entity: Entity } {
    return this.write(() => {
      const previous = this.entitySync().lock_date;
      if (previous && date < previous && !reopen) {
        throw errors.usage(
          `the books are closed through ${previous}; moving the lock back to ${date} reopens a closed period: add --reopen to do so`,
        );
      }
      this.prep(`UPDATE entity SET lock_date = ?, updated_at = ?`).run(
        date,
        this.now().toISOString(),
      );
      return { previous, entity: this.entitySync() };
    });
  }

  async accounts(): Promise<GlAccount[]> {
    const rows = this.prep(
      `SELECT a.id, a.external_id, a.account_number, a.name, a.account_type, p.id AS parent_id, a.is_postable, a.is_active, a.currency, a.created_at, a.updated_at
         FROM accounts a LEFT JOIN accounts p ON p.key = a.parent_key ORDER BY a.account_number IS NULL, a.account_number, a.external_id`,
    ).all() as (Omit<GlAccount, 'is_postable' | 'is_active' | 'object' | 'account_kind'> & {
      is_postable: number;
      is_active: number;
    })[];
    return rows.map((r) => ({
      id: r.id,
      object: 'gl_account',
      external_id: r.external_id,
      account_number: r.account_number,
      name: r.name,
      account_type: r.account_type,
      parent_id: r.parent_id,
      is_postable: r.is_postable === 1,
      is_active: r.is_active === 1,
      account_kind: 'regular',
      currency: r.currency,
      created_at: r.created_at,
      updated_at: r.updated_at,
    }));
  }

  /** The chart as chart-file checking needs it. */
  existingAccounts(): ExistingAccount[] {
    return this.prep(
      `SELECT a.external_id, a.account_number, a.account_type, p.external_id AS parent_external_id FROM accounts a LEFT JOIN accounts p ON p.key = a.parent_key`,
    ).all() as ExistingAccount[];
  }

  /** Inserts or updates accounts by external_id, parents resolved after every row exists. */
  upsertAccounts(rows: ChartRow[]): { created: number; updated: number } {
    return this.write(() => {
      const ts = this.now().toISOString();
      const find = this.prep(`SELECT key FROM accounts WHERE external_id = ?`).pluck();
      const insert = this.prep(
        `INSERT INTO accounts (id, external_id, account_number, name, account_type, is_postable, is_active, currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const update = this.prep(`UPDATE accounts SET account_number = NULL WHERE external_id = ?`);
      const set = this.prep(
        `UPDATE accounts SET account_number = ?, name = ?, account_type = ?, is_postable = ?, is_active = ?, currency = ?, updated_at = ? WHERE external_id = ?`,
      );
      const setParent = this.prep(
        `UPDATE accounts SET parent_key = (SELECT key FROM accounts WHERE external_id = ?) WHERE external_id = ?`,
      );
      let created = 0;
      let updated = 0;
      // Numbers may move between accounts within one file: clear them first so UNIQUE holds midway.
      for (const r of rows) if (find.get(r.external_id) !== undefined) update.run(r.external_id);
      for (const r of rows) {
        if (find.get(r.external_id) === undefined) {
          insert.run(
            newId('acct'),
            r.external_id,
            r.account_number,
            r.name,
            r.account_type,
            +r.is_postable,
            +r.is_active,
            r.currency,
            ts,
            ts,
          );
          created++;
        } else {
          set.run(
            r.account_number,
            r.name,
            r.account_type,
            +r.is_postable,
            +r.is_active,
            r.currency,
            ts,
            r.external_id,
          );
          updated++;
        }
      }
      for (const r of rows) setParent.run(r.parent_external_id, r.external_id);
      return { created, updated };
    });
  }

  async counterparties(): Promise<Counterparty[]> {
    const rows = this.prep(
      `SELECT id, counterparty_type, external_id, name, is_active, created_at, updated_at FROM counterparties ORDER BY counterparty_type, external_id`,
    ).all() as (Omit<Counterparty, 'is_active' | 'object'> & { is_active: number })[];
    return rows.map((r) => ({ ...r, object: 'counterparty', is_active: r.is_active === 1 }));
  }

  /** Inserts or updates counterparties by (type, external_id). */
  upsertCounterparties(rows: CounterpartyRow[]): { created: number; updated: number } {
    return this.write(() => {
      const ts = this.now().toISOString();
      const upd = this.prep(
        `UPDATE counterparties SET name = ?, is_active = ?, updated_at = ? WHERE counterparty_type = ? AND external_id = ?`,
      );
      const ins = this.prep(
        `INSERT INTO counterparties (id, counterparty_type, external_id, name, is_active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      let created = 0;
      let updated = 0;
      for (const r of rows) {
        if (upd.run(r.name, +r.is_active, ts, r.counterparty_type, r.external_id).changes > 0)
          updated++;
        else {
          ins.run(newId('cp'), r.counterparty_type, r.external_id, r.name, +r.is_active, ts, ts);
          created++;
        }
      }
      return { created, updated };
    });
  }

  /** Look-ups for entry validation, memoised for one transaction. */
  validationContext(): ValidationContext {
    const accountStmt = this.prep(
      `SELECT key, id, external_id, account_number, name, account_type, is_active, is_postable, currency FROM accounts WHERE external_id = ?`,
    );
    const cpStmt = this.prep(
      `SELECT id, counterparty_type, external_id, name, is_active FROM counterparties WHERE counterparty_type = ? AND external_id = ?`,
    );
    const jeStmt = this.prep(`SELECT 1 FROM journal_entries WHERE je_number = ?`).pluck();
    const accounts = new Map<string, AccountRef | undefined>();
    // By type, then external id: no key string is built per look-up.
    const cps = new Map<string, Map<string, CounterpartyRef | undefined>>();
    return {
      entity: this.entitySync(),
      account(externalId) {
        if (!accounts.has(externalId)) {
          const r = accountStmt.get(externalId) as
            | (Omit<AccountRef, 'is_active' | 'is_postable'> & {
                is_active: number;
                is_postable: number;
              })
            | undefined;
          accounts.set(
            externalId,
            r && {
              ...r,
              account_type: r.account_type as AccountType,
              is_active: r.is_active === 1,
              is_postable: r.is_postable === 1,
            },
          );
        }
        return accounts.get(externalId);
      },
      counterparty(type, externalId) {
        let ofType = cps.get(type);
        if (!ofType) cps.set(type, (ofType = new Map()));
        if (!ofType.has(externalId)) {
          const r = cpStmt.get(type, externalId) as
            (Omit<CounterpartyRef, 'is_active'> & { is_active: number }) | undefined;
          ofType.set(externalId, r && { ...r, is_active: r.is_active === 1 });
        }
        return ofType.get(externalId);
      },
      jeNumberTaken: (n) => jeStmt.get(n) !== undefined,
    };
  }

  /** The checks every write of an entry runs first, in the order decisions.md gives. */
  private gate(idempotencyKey: string, hash: string): ValidationContext {
    const ctx = this.validationContext();
    if (!ctx.entity.books_start) throw errors.noBooksStart();
    if (this.rebuilding(ctx.entity as Entity & { rebuild_started_at: string | null }))
      throw errors.rebuilding(1);
    const used = this.prep(
      `SELECT request_hash, journal_entry_id, created_at_ms FROM idempotency_keys WHERE key = ?`,
    ).get(idempotencyKey) as
      { request_hash: string; journal_entry_id: string; created_at_ms: number } | undefined;
    if (used && this.now().getTime() - used.created_at_ms < IDEMPOTENCY_WINDOW_MS) {
      throw errors.idempotencyKeyUsed(used.request_hash === hash ? used.journal_entry_id : null);
    }
    return ctx;
  }

  async post(body: unknown, options: PostOptions): Promise<JournalEntry> {
    if (options.dryRun) return this.postSync(body, options);
    return this.commits.run(() => this.postSync(body, options));
  }

  postSync(body: unknown, options: PostOptions & { fingerprint?: string }): JournalEntry {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyMissing(keyProblem);
    const hash = requestHash('POST /v1/journal-entries', body);
    return this.write(() => {
      const ctx = this.gate(options.idempotencyKey, hash);
      const { entry, problems } = validateEntry(body, ctx);
      if (!entry) throw entryInvalid(problems);
      const source = options.source ?? 'manual_api';
      if (options.dryRun) return this.asEntry(entry, source, null);
      const inserted = this.writeOne(entry, {
        source,
        fingerprint: options.fingerprint ?? null,
        originalSeq: null,
      });
      this.recordKey(options.idempotencyKey, hash, inserted.id);
      return this.asEntry(entry, source, inserted);
    });
  }

  private recordKey(key: string, hash: string, id: string): void {
    this.prep(
      `INSERT INTO idempotency_keys (key, request_hash, journal_entry_id, created_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash, journal_entry_id = excluded.journal_entry_id, created_at_ms = excluded.created_at_ms`,
    ).run(key, hash, id, this.now().getTime());
  }

  /** Writes one valid entry inside a write transaction. */
  private writeOne(entry: ValidEntry, meta: EntryMeta): Inserted {
    const writer = this.writer();
    const inserted = writer.write(entry, meta);
    writer.flush();
    return inserted;
  }

  /** A writer of entries on this connection; call inside a write transaction. */
  writer(run: RunWrite = (sql, params) => this.prep(sql).run(...params)): EntryWriter {
    return new EntryWriter(run, this.writerStart(), this.now);
  }

  /** The largest sequence and JE numbers committed; a writer that holds the write lock numbers on from them. */
  writerStart(): WriterStart {
    return {
      lastSeq:
        (this.prep(`SELECT MAX(seq) FROM journal_entries`).pluck().get() as number | null) ?? 0,
      lastJeSeq:
        (this.prep(`SELECT MAX(je_seq) FROM journal_entries`).pluck().get() as number | null) ?? 0,
    };
  }

  /**
   * Starts an all-or-nothing import: one IMMEDIATE transaction held while the caller streams entries
   * in (on a writer thread for a large batch, so that SQLite works while the next entries are parsed);
   * nothing is visible to others until commit, and a killed process leaves none of it.
   */
  async beginImport(options: ImportOptions): Promise<ImportBatch> {
    const large = options.sizeHint === null || (options.sizeHint ?? 0) >= THREAD_MIN_BYTES;
    const writes =
      (!options.dryRun && large && (await writesOnThread(this.location))) ||
      writesHere(this.db, (sql) => this.prep(sql));
    try {
      const ctx = this.validationContext();
      if (!ctx.entity.books_start) throw errors.noBooksStart();
      if (this.rebuilding()) throw errors.rebuilding(1);
      return new ImportBatch(this, writes, ctx, options);
    } catch (e) {
      await writes.rollback();
      throw e;
    }
  }

  private readonly stmts = new Map<string, Database.Statement>();
  /**
   * Prepared statements, kept by their SQL: preparing costs more than running a small statement, and a
   * served ledger runs the same few for every request. A given SQL text is always used in one mode
   * (pluck, raw, safeIntegers), so sharing it is safe.
   */
  prep(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /**
   * The response for a valid entry: as stored when `inserted` is given (the same fields `je show` reads
   * back), or as it would post (id empty, status draft) for a dry run.
   */
  private asEntry(
    entry: ValidEntry,
    source: string,
    inserted: Inserted | null,
    original: { id: string; date: string } | null = null,
  ): JournalEntry {
    const ts = inserted?.ts ?? this.now().toISOString();
    const jeNumber =
      inserted?.je_number ?? entry.je_number ?? `JE-${this.writerStart().lastJeSeq + 1}`;
    const id = inserted?.id ?? '';
    return {
      id,
      object: 'journal_entry',
      created_at: ts,
      updated_at: ts,
      is_deleted: false,
      je_number: jeNumber,
      entry_date: entry.entry_date,
      memo: entry.memo,
      source,
      total_debit_atoms: entry.total_atoms,
      total_credit_atoms: entry.total_atoms,
      currency: entry.currency,
      lines: entry.lines.map((l, i) => ({
        id: inserted ? `jel_${inserted.seq}_${i + 1}` : '',
        object: 'journal_entry_line',
        created_at: ts,
        updated_at: ts,
        is_deleted: false,
        journal_entry_id: id,
        account_id: l.account.id,
        account_number: l.account.account_number,
        account_name: l.account.name,
        account_type: l.account.account_type,
        line_type: l.line_type,
        amount_atoms: l.amount_atoms,
        memo: l.memo,
        counterparty_type: l.counterparty?.counterparty_type ?? null,
        counterparty_external_id: l.counterparty?.external_id ?? null,
        counterparty_name: l.counterparty?.name ?? null,
      })),
      status: inserted ? 'posted' : 'draft',
      manual_entry_reason: entry.manual_entry_reason,
      policy_key: null,
      tags: {},
      attachments: [],
      is_adjusting: entry.is_adjusting,
      entry_type_label: entryTypeLabel(entry.is_adjusting, original?.id ?? null),
      counterparty_name: singleCounterparty(entry.lines.map((l) => l.counterparty?.name ?? null)),
      source_description: source === 'csv_import' ? 'CSV import' : null,
      source_svc_object: null,
      original_journal_entry_id: original?.id ?? null,
      original_journal_entry_date: original?.date ?? null,
      reversed_by_journal_entry_ids: [],
    };
  }

  async reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry> {
    if (options.dryRun) return this.reverseSync(idOrNumber, options);
    return this.commits.run(() => this.reverseSync(idOrNumber, options));
  }

  reverseSync(idOrNumber: string, options: ReverseOptions): JournalEntry {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyMissing(keyProblem);
    return this.write(() => {
      const original = this.findEntryRow(idOrNumber);
      const hash = requestHash(`POST /v1/journal-entries/${original.id}/reverse`, {
        entry_date: options.entryDate ?? null,
      });
      const ctx = this.gate(options.idempotencyKey, hash);
      const reversedBy = this.reversedBy(original.seq);
      if (reversedBy.length > 0) {
        throw entryInvalid([
          {
            path: 'id',
            reason: 'already_reversed',
            message: `${original.je_number} is already reversed by ${reversedBy.join(', ')}`,
          },
        ]);
      }
      const full = this.loadEntry(original.id)!;
      const accountExt = this.prep(`SELECT external_id FROM accounts WHERE id = ?`).pluck();
      const body = {
        entry_date: options.entryDate ?? original.entry_date,
        currency: original.currency,
        memo: `Reversal of ${original.je_number}`,
        is_adjusting: original.is_adjusting === 1,
        lines: full.lines.map((l) => ({
          gl_account_id: accountExt.get(l.account_id),
          line_type: l.line_type === 'debit' ? 'credit' : 'debit',
          amount_atoms: l.amount_atoms,
          ...(l.memo !== null ? { memo: l.memo } : {}),
          ...(l.counterparty_type !== null
            ? {
                counterparty_type: l.counterparty_type,
                counterparty_external_id: l.counterparty_external_id,
              }
            : {}),
        })),
      };
      const { entry, problems } = validateEntry(body, ctx);
      if (!entry) throw entryInvalid(problems);
      const link = { id: original.id, date: original.entry_date };
      if (options.dryRun) return this.asEntry(entry, 'manual_api', null, link);
      const inserted = this.writeOne(entry, {
        source: 'manual_api',
        fingerprint: null,
        originalSeq: original.seq,
      });
      this.prep(`UPDATE journal_entries SET status = 'reversed', updated_at = ? WHERE seq = ?`).run(
        this.now().toISOString(),
        original.seq,
      );
      this.recordKey(options.idempotencyKey, hash, inserted.id);
      return this.asEntry(entry, 'manual_api', inserted, link);
    });
  }

  private reversedBy(seq: number): string[] {
    return this.prep(`SELECT id FROM journal_entries WHERE original_seq = ? ORDER BY seq`)
      .pluck()
      .all(seq) as string[];
  }

  private findEntryRow(idOrNumber: string): EntryRow {
    const n = normaliseJeNumber(idOrNumber);
    const row = this.entryQuery(`e.id = ? OR e.je_number = ?`).get(
      idOrNumber.trim(),
      n.ok ? n.value : null,
    ) as EntryRow | undefined;
    if (!row) throw errors.notFound(`no journal entry '${idOrNumber}'`);
    return row;
  }

  private entryQuery(where: string): Database.Statement {
    return this.prep(
      `SELECT e.seq, e.id, e.je_number, e.entry_date, e.currency, e.memo, e.source, e.status, e.is_adjusting, e.manual_entry_reason, e.total_atoms,
              o.id AS original_id, o.entry_date AS original_date, e.created_at, e.updated_at
       FROM journal_entries e LEFT JOIN journal_entries o ON o.seq = e.original_seq WHERE ${where}`,
    );
  }

  async getEntry(idOrNumber: string): Promise<JournalEntry> {
    return this.loadEntry(this.findEntryRow(idOrNumber).id)!;
  }

  async listEntries(filter: EntryFilter): Promise<JournalEntry[]> {
    const rows = this.entryQuery(
      `e.entry_date >= ? AND e.entry_date <= ? ORDER BY e.entry_date, e.seq`,
    ).all(filter.from ?? '0000-01-01', filter.to ?? '9999-12-31') as EntryRow[];
    return rows.map((r) => this.toEntry(r));
  }

  private loadEntry(id: string): JournalEntry | undefined {
    const row = this.entryQuery(`e.id = ?`).get(id) as EntryRow | undefined;
    return row && this.toEntry(row);
  }

  private toEntry(r: EntryRow): JournalEntry {
    const lines = this.prep(
      `SELECT l.line_no, l.line_type, l.amount_atoms, l.memo, a.id AS account_id, a.account_number, a.name AS account_name, a.account_type,
              c.counterparty_type, c.external_id AS counterparty_external_id, c.name AS counterparty_name
       FROM journal_lines l JOIN accounts a ON a.key = l.account_key LEFT JOIN counterparties c ON c.id = l.counterparty_id
       WHERE l.entry_seq = ? ORDER BY l.line_no`,
    ).all(r.seq) as (Omit<
      JournalEntryLine,
      'id' | 'object' | 'created_at' | 'updated_at' | 'is_deleted' | 'journal_entry_id'
    > & { line_no: number })[];
    return {
      id: r.id,
      object: 'journal_entry',
      created_at: r.created_at,
      updated_at: r.updated_at,
      is_deleted: false,
      je_number: r.je_number,
      entry_date: r.entry_date,
      memo: r.memo,
      source: r.source,
      total_debit_atoms: r.total_atoms,
      total_credit_atoms: r.total_atoms,
      currency: r.currency,
      lines: lines.map(({ line_no, ...l }) => ({
        id: `jel_${r.seq}_${line_no}`,
        object: 'journal_entry_line',
        created_at: r.created_at,
        updated_at: r.created_at,
        is_deleted: false,
        journal_entry_id: r.id,
        ...l,
      })),
      status: r.status,
      manual_entry_reason: r.manual_entry_reason,
      policy_key: null,
      tags: {},
      attachments: [],
      is_adjusting: r.is_adjusting === 1,
      entry_type_label: entryTypeLabel(r.is_adjusting === 1, r.original_id),
      counterparty_name: singleCounterparty(lines.map((l) => l.counterparty_name)),
      source_description: r.source === 'csv_import' ? 'CSV import' : null,
      source_svc_object: null,
      original_journal_entry_id: r.original_id,
      original_journal_entry_date: r.original_date,
      reversed_by_journal_entry_ids: this.reversedBy(r.seq),
    };
  }

  async balanceSheet(query: ReportQuery): Promise<BalanceSheet> {
    const checked = checkReportQuery(query);
    if ('problems' in checked)
      throw new BooksError(
        'invalid_parameters',
        checked.problems.map((p) => p.message).join('; '),
        checked.problems,
      );
    if (windowTooLong(query.start_date, query.end_date))
      throw errors.windowTooLong(query.start_date, query.end_date);
    return this.balanceSheetSync(query);
  }

  /**
   * The balance sheet from the derived monthly totals, never a scan of every line: only the lines of a
   * clipped (partial) month at a column edge are read. One read transaction, so the figures are consistent.
   */
  balanceSheetSync(query: ReportQuery): BalanceSheet {
    return this.db.transaction(() => {
      const entity = this.entitySync();
      const periods = splitPeriods(
        query.start_date,
        query.end_date,
        query.period_type,
        entity.fiscal_year_start_month,
      );
      const cuts = cutDates(periods, entity.fiscal_year_start_month);
      const accounts = (
        this.prep(
          `SELECT key, id, account_number, name, account_type, parent_key, is_postable FROM accounts`,
        ).all() as (Omit<SheetAccount, 'is_postable'> & { is_postable: number })[]
      ).map((a) => ({ ...a, is_postable: a.is_postable === 1 }));
      const lastMonth = cuts[cuts.length - 1]!.slice(0, 7);
      // One row per account with its months packed as text: building thousands of small row arrays
      // through the driver costs more than splitting one string.
      const packed = this.prep(
        `SELECT account_key, group_concat(month || ' ' || net_atoms || ' ' || line_count, ',')
           FROM (SELECT account_key, month, net_atoms, line_count FROM account_month_totals WHERE month <= ? ORDER BY account_key, month)
           GROUP BY account_key`,
      )
        .raw()
        .all(lastMonth) as [number, string][];
      // Cuts inside a month need that month's lines up to the cut, read by date.
      const partial = this.prep(
        `SELECT l.account_key, SUM(CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END), COUNT(*)
           FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq WHERE e.entry_date >= ? AND e.entry_date <= ? GROUP BY l.account_key`,
      )
        .safeIntegers(true)
        .raw();
      const partials = cuts.map((d) => {
        const [y, m] = parts(d);
        if (d === endOfMonth(y, m)) return null;
        const map = new Map<number, [bigint, number]>();
        for (const [k, net, n] of partial.all(`${d.slice(0, 7)}-01`, d) as [
          bigint,
          bigint,
          bigint,
        ][])
          map.set(Number(k), [net, Number(n)]);
        return map;
      });
      const totals = new Map<number, Cumulative>();
      for (const [key, text] of packed) {
        const months = text.split(',').map((part) => part.split(' ') as [string, string, string]);
        // Walk the account's months and the sorted cuts together, carrying the running sums.
        const net: bigint[] = [];
        const count: number[] = [];
        let k = 0;
        let sum = 0n;
        let n = 0;
        cuts.forEach((d, c) => {
          const month = d.slice(0, 7);
          const p = partials[c];
          while (k < months.length && (p ? months[k]![0] < month : months[k]![0] <= month)) {
            sum += BigInt(months[k]![1]);
            n += Number(months[k]![2]);
            k++;
          }
          const extra = p?.get(key);
          net.push(extra ? sum + extra[0] : sum);
          count.push(extra ? n + extra[1] : n);
        });
        totals.set(key, { net, count });
      }
      return buildBalanceSheet({
        accounts,
        periods,
        fiscalYearStartMonth: entity.fiscal_year_start_month,
        currency: entity.currency,
        cuts,
        totals,
      });
    })();
  }

  /** Mints an API key with its permissions; returns the key once. Only its SHA-256 is stored. */
  createKey(name: string | null, permissions: Permission[]): ApiKeyInfo & { key: string } {
    const id = randomBytes(9).toString('base64url');
    const key = `bk.${id}.${randomBytes(32).toString('base64url')}`;
    const created = this.now().toISOString();
    const perms = [...new Set(permissions)].sort() as Permission[];
    this.write(() =>
      this.prep(
        `INSERT INTO api_keys (id, name, key_hash, permissions, created_at) VALUES (?, ?, ?, ?, ?)`,
      ).run(id, name, sha256(key), JSON.stringify(perms), created),
    );
    return { id, name, permissions: perms, created_at: created, revoked_at: null, key };
  }

  listKeys(): ApiKeyInfo[] {
    return (
      this.prep(
        `SELECT id, name, permissions, created_at, revoked_at FROM api_keys ORDER BY created_at, id`,
      ).all() as (Omit<ApiKeyInfo, 'permissions'> & { permissions: string })[]
    ).map((k) => ({ ...k, permissions: JSON.parse(k.permissions) as Permission[] }));
  }

  /** Revokes a key at once; revoking twice is harmless. */
  revokeKey(id: string): ApiKeyInfo {
    return this.write(() => {
      const found = this.prep(`SELECT 1 FROM api_keys WHERE id = ?`).get(id);
      if (!found) throw errors.notFound(`no API key '${id}'`);
      this.prep(`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`).run(
        this.now().toISOString(),
        id,
      );
      return this.listKeys().find((k) => k.id === id)!;
    });
  }

  /** The permissions of a valid, unrevoked key, or null; hashes are compared in constant time. */
  authenticate(key: string): Permission[] | null {
    const id = keyId(key);
    const row = id
      ? (this.prep(`SELECT key_hash, permissions, revoked_at FROM api_keys WHERE id = ?`).get(
          id,
        ) as { key_hash: string; permissions: string; revoked_at: string | null } | undefined)
      : undefined;
    const given = Buffer.from(sha256(key), 'hex');
    const stored = Buffer.from(row?.key_hash ?? '0'.repeat(64), 'hex');
    const same = timingSafeEqual(given, stored);
    return row && same && row.revoked_at === null
      ? (JSON.parse(row.permissions) as Permission[])
      : null;
  }

  /**
   * True while a rebuild runs. A mark older than REBUILD_STALE_MS belongs to a rebuild that died (a
   * rebuild of a million lines takes seconds), so it no longer blocks posting.
   */
  private rebuilding(entity = this.entitySync()): boolean {
    const started = entity.rebuild_started_at;
    return started !== null && this.now().getTime() - Date.parse(started) < REBUILD_STALE_MS;
  }

  /**
   * Recomputes the derived monthly totals from the lines. Posts are refused with CAPI73 meanwhile: the
   * mark is committed first, the totals are computed from a snapshot without holding the write lock,
   * then written and the mark cleared in one short transaction.
   */
  rebuild(): { totals: number; lines: number } {
    this.write(() => {
      if (this.rebuilding())
        throw new BooksError(
          'CAPI73',
          'a rebuild is already running; try again when it finishes',
          [],
          { retryable: true, retry_after: 1 },
        );
      this.prep(`UPDATE entity SET rebuild_started_at = ?`).run(this.now().toISOString());
    });
    try {
      const rows = this.prep(
        `SELECT l.account_key, substr(e.entry_date, 1, 7) AS month, SUM(CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END) AS net, COUNT(*) AS n
           FROM journal_lines l JOIN journal_entries e ON e.seq = l.entry_seq GROUP BY 1, 2`,
      )
        .safeIntegers(true)
        .raw()
        .all() as [bigint, string, bigint, bigint][];
      return this.write(() => {
        this.db.exec('DELETE FROM account_month_totals');
        const insert = this.prep(
          `INSERT INTO account_month_totals (account_key, month, net_atoms, line_count) VALUES (?, ?, ?, ?)`,
        );
        let lines = 0;
        for (const [k, month, net, n] of rows) {
          insert.run(k, month, net, n);
          lines += Number(n);
        }
        this.prep(`UPDATE entity SET rebuild_started_at = NULL`).run();
        return { totals: rows.length, lines };
      });
    } catch (e) {
      this.write(() => this.prep(`UPDATE entity SET rebuild_started_at = NULL`).run());
      throw e;
    }
  }

  /** Every invariant the ledger relies on; an empty list means the file is sound. */
  checkInvariants(): Problem[] {
    const problems: Problem[] = [];
    const add = (path: string, reason: string, message: string) =>
      problems.push({ path, reason, message });
    const integrity = this.db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok')
      add('file', 'integrity', `SQLite integrity check: ${String(integrity)}`);
    for (const r of this.db.pragma('foreign_key_check') as {
      table: string;
      rowid: number;
      parent: string;
    }[]) {
      add(r.table, 'foreign_key', `${r.table} row ${r.rowid} points at a missing ${r.parent} row`);
    }
    const unbalanced = this.prep(
      `SELECT e.je_number, e.total_atoms, e.line_count,
                COALESCE(SUM(CASE WHEN l.line_type = 'debit' THEN l.amount_atoms END), 0) AS d,
                COALESCE(SUM(CASE WHEN l.line_type = 'credit' THEN l.amount_atoms END), 0) AS c, COUNT(l.line_no) AS n
         FROM journal_entries e LEFT JOIN journal_lines l ON l.entry_seq = e.seq GROUP BY e.seq
         HAVING d != c OR d != e.total_atoms OR n != e.line_count OR n < 2`,
    ).all() as {
      je_number: string;
      total_atoms: number;
      d: number;
      c: number;
      n: number;
      line_count: number;
    }[];
    for (const u of unbalanced) {
      add(
        u.je_number,
        'unbalanced',
        `${u.je_number}: debits ${u.d}, credits ${u.c}, recorded total ${u.total_atoms}, ${u.n} lines (recorded ${u.line_count})`,
      );
    }
    const badLines = this.prep(
      `SELECT e.je_number, l.line_no FROM journal_lines l JOIN journal_entries e ON e.seq = l.entry_seq WHERE l.amount_atoms < 1 OR l.line_type NOT IN ('debit', 'credit')`,
    ).all() as { je_number: string; line_no: number }[];
    for (const b of badLines)
      add(
        `${b.je_number}.lines[${b.line_no - 1}]`,
        'invalid_line',
        `${b.je_number} line ${b.line_no} has an invalid side or amount`,
      );
    const drift = this.prep(
      `WITH actual AS (
           SELECT l.account_key, substr(e.entry_date, 1, 7) AS month,
                  SUM(CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END) AS net, COUNT(*) AS n
           FROM journal_lines l JOIN journal_entries e ON e.seq = l.entry_seq GROUP BY 1, 2)
         SELECT a.external_id, x.month, x.net, x.n, x.tnet, x.tn FROM (
           SELECT actual.account_key, actual.month, actual.net, actual.n, t.net_atoms AS tnet, t.line_count AS tn
             FROM actual LEFT JOIN account_month_totals t ON t.account_key = actual.account_key AND t.month = actual.month
           UNION ALL
           SELECT t.account_key, t.month, NULL, NULL, t.net_atoms, t.line_count
             FROM account_month_totals t LEFT JOIN actual ON actual.account_key = t.account_key AND actual.month = t.month WHERE actual.account_key IS NULL
         ) x LEFT JOIN accounts a ON a.key = x.account_key
         WHERE x.net IS NOT x.tnet OR x.n IS NOT x.tn`,
    ).all() as {
      external_id: string;
      month: string;
      net: number | null;
      n: number | null;
      tnet: number | null;
      tn: number | null;
    }[];
    for (const d of drift) {
      add(
        `account_month_totals[${d.external_id}, ${d.month}]`,
        'derived_mismatch',
        `derived total for account '${d.external_id}' in ${d.month} is ${d.tnet ?? 'missing'} atoms over ${d.tn ?? 0} lines; the lines say ${d.net ?? 0} over ${d.n ?? 0}`,
      );
    }
    const reversals = this.prep(
      `SELECT o.je_number FROM journal_entries o WHERE o.status = 'reversed' AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.original_seq = o.seq)`,
    )
      .pluck()
      .all() as string[];
    for (const r of reversals)
      add(r, 'reversal_link', `${r} is marked reversed but no entry reverses it`);
    const parentCycle = this.prep(
      `WITH RECURSIVE up(start, key, depth) AS (SELECT key, parent_key, 1 FROM accounts WHERE parent_key IS NOT NULL
           UNION ALL SELECT up.start, a.parent_key, depth + 1 FROM up JOIN accounts a ON a.key = up.key WHERE a.parent_key IS NOT NULL AND depth < 1000)
         SELECT DISTINCT a.external_id FROM up JOIN accounts a ON a.key = up.start WHERE up.key = up.start`,
    )
      .pluck()
      .all() as string[];
    for (const c of parentCycle)
      add(`accounts[${c}]`, 'parent_cycle', `account '${c}' is its own ancestor`);
    const mark = this.entitySync().rebuild_started_at;
    if (mark && !this.rebuilding())
      add(
        'entity.rebuild_started_at',
        'stale_rebuild',
        `a rebuild started at ${mark} never finished; run books rebuild`,
      );
    return problems;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function entryTypeLabel(adjusting: boolean, originalId: string | null): string {
  if (originalId) return 'Reversing Journal Entry';
  return adjusting ? 'Adjusting Journal Entry' : 'Manual Journal Entry';
}

/** The entry's counterparty name when all its named counterparties are one; otherwise null. */
function singleCounterparty(names: (string | null)[]): string | null {
  const distinct = new Set(names.filter((n): n is string => n !== null));
  return distinct.size === 1 ? [...distinct][0]! : null;
}
