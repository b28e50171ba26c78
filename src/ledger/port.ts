import type { Counterparty, Entity, EntityRecord, GlAccount } from '../domain/accounts.js';
import type { BalanceSheet } from '../domain/balanceSheet.js';
import type { ChartFile, CounterpartyRow } from '../domain/chart.js';
import type { DumpCounts, DumpRecord } from '../domain/dump.js';
import type { JournalEntry } from '../domain/entry.js';
import type { Problem } from '../domain/errors.js';
import type { ApiKeyInfo, Permission } from '../domain/keys.js';
import type { GlEvent } from '../domain/generalLedger.js';
import type { IncomeStatement } from '../domain/incomeStatement.js';
import type { ReportQuery } from '../domain/periods.js';
import type { GeneralLedgerQuery, TrialBalanceQuery } from '../domain/reportQueries.js';
import type { TrialBalance } from '../domain/trialBalance.js';
import type { LedgerInit } from './open.js';
import type { ReconcileOps } from './reconcilePort.js';
import type { AgingReport } from '../domain/aging.js';
import type { AgingQueryArgs, BudgetOps, RecurringOps } from './planPort.js';

export type { AgingQueryArgs, BudgetOps, RecurringOps, RecurringRun } from './planPort.js';
import type { GlCursor } from './reports.js';

/**
 * The one door between commands and stores. A store (SQLite, the HTTP client, PostgreSQL next)
 * implements every concern below; an operation a store cannot offer raises a usage error saying it
 * is not offered by the profile. Stores raise BooksError values with the codes of spec part 7, so
 * that commands and exit codes never care which store they hold.
 */
export interface Ledger {
  /** What this ledger can do beyond the port's core: commands ask this, never which store it is. */
  readonly capabilities: Capabilities;
  /** Where the ledger is, for messages (a file path or a base URL). */
  readonly location: string;
  readonly entity: EntityOps;
  readonly chart: ChartOps;
  readonly journal: JournalOps;
  readonly reports: ReportOps;
  readonly keys: KeyOps;
  readonly maintenance: MaintenanceOps;
  readonly reconcile: ReconcileOps;
  readonly budgets: BudgetOps;
  readonly recurring: RecurringOps;
  close(): Promise<void>;
}

/** What a ledger offers beyond the operations every ledger has. */
export interface Capabilities {
  /** An import is one transaction: all of it posts, or none (otherwise it posts entry by entry). */
  atomicImport: boolean;
  /** The ledger itself answers a dry run of a post or reversal (`--dry-run`). */
  dryRun: boolean;
  /** A write waits here, in this process, for the write lock or a rebuild (a service is asked again). */
  waitsHere: boolean;
  /** The journal can be listed (je list, exports); a service's API has no listing. */
  listsEntries: boolean;
}

/**
 * A place that holds ledgers: a SQLite file (one entity) or a database of many entities. What the
 * commands that work on a ledger get from it is a Ledger; `books serve` works through the store,
 * each request acting on the entity its key belongs to.
 */
export interface LedgerStore {
  /** Where the store is, for messages (a file path, a database URL without its password). */
  readonly location: string;
  /** The entities the store holds. */
  entities(): Promise<{ id: string; slug: string | null; name: string }[]>;
  /** Opens an entity's ledger: the one named (by slug or id), or the only one. */
  open(entity?: string): Promise<Ledger>;
  /** Creates an entity with its books, named by `slug` (a store of one entity refuses). */
  create(slug: string, init: LedgerInit): Promise<Ledger>;
  /**
   * Creates an entity and restores a dump into it in one transaction, checked before it commits:
   * refused or interrupted, it leaves no entity behind (books migrate). A store of one entity refuses.
   */
  createRestored(
    slug: string,
    init: LedgerInit,
    records: AsyncIterable<unknown>,
  ): Promise<{ ledger: Ledger; counts: DumpCounts }>;
  /** The ledger of an API key's entity and the key's permissions, or null for a key not valid here. */
  authenticate(key: string): Promise<{ ledger: Ledger; permissions: Permission[] } | null>;
  /** A quick check of the store's storage before serving: damage is marked and said. */
  verify(): Promise<Problem[]>;
  close(): Promise<void>;
}

export interface EntityOps {
  get(): Promise<Entity>;
  /** The entity with the counts of its accounts and entries (`books entity show`, `GET /v1/entity`). */
  record(): Promise<EntityRecord>;
  /** Applies the First Month of Books; refused when entries already exist before it. */
  setBooksStart(month: string): Promise<Entity>;
  /** Locks the books through a date; moving the lock earlier (reopening) must be asked for. */
  closeThrough(date: string, reopen: boolean): Promise<{ previous: string | null; entity: Entity }>;
}

/** What a chart or counterparties import did: rows created, changed, and left as they were. */
export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export interface ChartOps {
  accounts(): Promise<GlAccount[]>;
  counterparties(): Promise<Counterparty[]>;
  /**
   * Creates or updates accounts by external_id from a chart file's records (read by `load`, once the
   * store has said it offers the import), after checking the chart they leave behind as a whole;
   * refuses with every problem by row (invalid_input), changing nothing.
   */
  importAccounts(load: () => Promise<ChartFile>): Promise<ImportCounts>;
  /** Creates or updates counterparties by type and external id, from checked rows (read by `load`). */
  importCounterparties(load: () => Promise<CounterpartyRow[]>): Promise<ImportCounts>;
}

export interface PostOptions {
  /** The idempotency key of the request (X-Idempotency-Key over HTTP). */
  idempotencyKey: string;
  /** `manual_api` or `csv_import`. */
  source?: string;
  /** Validate and number the entry as it would post, but write nothing. */
  dryRun?: boolean;
  /**
   * An imported entry's fingerprint: an entry of the ledger that carries it already is this one,
   * posted by an earlier import (local or remote), and the post is refused as already posted.
   */
  fingerprint?: string;
}

export interface ReverseOptions {
  idempotencyKey: string;
  /** Date of the reversing entry; the original's date when omitted. */
  entryDate?: string;
  dryRun?: boolean;
}

export interface EntryFilter {
  from?: string | undefined;
  to?: string | undefined;
  /** External ids of accounts: entries with a line on one of them or on an account below one. */
  accounts?: string[] | undefined;
  /** Entries with a line naming this counterparty. */
  counterparty?: { type: string; external_id: string } | undefined;
  /** Text in the entry's memo, one of its line memos or its JE number, case aside. */
  search?: string | undefined;
  /** At most this many entries, the first in date order. */
  limit?: number | undefined;
}

export type BatchResult =
  { status: 'posted' | 'would_post' | 'skipped' } | { status: 'invalid'; problems: Problem[] };

/** One entry of an import's file, as the batch takes it. */
export interface ImportEntry {
  /** The `POST /v1/journal-entries` body it stands for. */
  body: unknown;
  /** Its stable identity: a re-run of the file finds it posted by this. */
  fingerprint: string;
  /** Its rows already had problems (cells that could not be read): it is checked, never written. */
  hasRowProblems: boolean;
  /** The file's row of its first line. */
  row: number;
}

/**
 * A batch import in progress: the file's entries are added a chunk at a time, in file order, then
 * the batch commits or rolls back. A local ledger writes clean entries as they come (all of it
 * becoming visible at commit, or none).
 */
export interface ImportBatch {
  /** Validates a chunk of entries (each chunk's look-ups fetched at once); resolves when more may come. */
  add(chunk: ImportEntry[]): Promise<BatchResult[]>;
  /** Makes the batch visible; returns the rows of entries found already posted while committing. */
  commit(): Promise<{ alreadyPosted: number[] }>;
  rollback(): Promise<void>;
}

export interface ImportOptions {
  dryRun: boolean;
  allowDuplicates: boolean;
  /** Size of the input in bytes when known (null for a stream): a large batch may write on another thread. */
  sizeHint?: number | null;
  /** The file's name, for messages. */
  file?: string;
  /**
   * A remote import's entries that an earlier run sent over an hour ago without learning the answer:
   * take them as posted, or as not posted (to post again). Without it they are refused by row.
   */
  settle?: 'posted' | 'unposted';
}

export interface JournalOps {
  /** Posts one entry (a `POST /v1/journal-entries` body) and returns it as stored. */
  post(body: unknown, options: PostOptions): Promise<JournalEntry>;
  /** Posts the mirror of an entry, given by id or je_number, and links the two. */
  reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry>;
  /** One entry by id or JE number (not_found otherwise). */
  get(idOrNumber: string): Promise<JournalEntry>;
  /** Entries in date order, streamed: memory does not grow with the ledger. */
  list(filter: EntryFilter): AsyncIterable<JournalEntry>;
  /** Starts a batch import (see ImportBatch). */
  beginImport(options: ImportOptions): Promise<ImportBatch>;
}

export interface ReportOps {
  /** The balance sheet of a checked query; a window over 5 years is CAPI69. */
  balanceSheet(query: ReportQuery): Promise<BalanceSheet>;
  /** The income statement: activity within each period, its sections and computed rows. */
  incomeStatement(query: ReportQuery): Promise<IncomeStatement>;
  /** The trial balance as of a date, with adjusting entries included, left out, or shown apart. */
  trialBalance(query: TrialBalanceQuery): Promise<TrialBalance>;
  /**
   * The general ledger as a stream of accounts and lines (memory does not grow with the lines); it
   * goes on after a position when given one (the API's cursor).
   */
  generalLedger(query: GeneralLedgerQuery, from?: GlCursor): AsyncIterable<GlEvent>;
  /**
   * What the API's general-ledger cursors are signed with: a secret kept in the ledger (so that any
   * server over it accepts a cursor another gave) and the entity it is scoped to.
   */
  cursorKey(): Promise<{ secret: Buffer; scope: string }>;
  /** Aged receivables or payables: open items first-in-first-out per counterparty (close.md). */
  aging(query: AgingQueryArgs): Promise<AgingReport>;
}

export interface KeyOps {
  /** Mints a key with its permissions; returns the key once (only its hash is stored). */
  create(name: string | null, permissions: Permission[]): Promise<ApiKeyInfo & { key: string }>;
  list(): Promise<ApiKeyInfo[]>;
  /** Revokes a key at once; revoking twice is harmless. */
  revoke(id: string): Promise<ApiKeyInfo>;
  /** The permissions of a valid, unrevoked key, or null. */
  authenticate(key: string): Promise<Permission[] | null>;
}

export interface MaintenanceOps {
  /** Every invariant the ledger relies on, checked; an empty list means the ledger is sound. */
  check(): Promise<{ problems: Problem[]; checked: Record<string, number> }>;
  /**
   * SQLite's quick check of the file's pages (seconds on a large ledger, so for a server's start):
   * a damaged file is marked, and writers refuse it from then on.
   */
  verifyFile(): Promise<Problem[]>;
  /** Recomputes the derived totals from the journal lines; posts wait with CAPI73 meanwhile. */
  rebuild(): Promise<{ totals: number; lines: number }>;
  /**
   * The whole ledger of the entity as records (domain/dump.ts), in the same words on every store,
   * streamed from one consistent reading: the basis of moving books between stores.
   */
  dump(): AsyncIterable<DumpRecord>;
  /**
   * Restores a dump into this ledger, which holds nothing yet: all of it or nothing, every record
   * checked; derived data is computed from the lines. Returns the dump's counts.
   */
  restore(records: AsyncIterable<unknown>): Promise<DumpCounts>;
}

export type * from './reconcilePort.js';
/** Cleared and reconciled lines by id, with the date each counts as cleared from. */
export type LineStates = Record<string, { state: 'cleared' | 'reconciled'; cleared_date: string }>;
