import type { Counterparty, Entity, EntityRecord, GlAccount } from '../../domain/accounts.js';
import type { ChartFile, CounterpartyRow } from '../../domain/chart.js';
import type { DumpCounts, DumpRecord } from '../../domain/dump.js';
import type { Problem } from '../../domain/errors.js';
import type { ApiKeyInfo, Permission } from '../../domain/keys.js';

/** The books themselves on the port: the entity, its chart, its API keys, their upkeep. */

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

export interface KeyOps {
  /** Mints a key with its permissions; returns the key once (only its hash is stored). */
  create(name: string | null, permissions: Permission[]): Promise<ApiKeyInfo & { key: string }>;
  list(): Promise<ApiKeyInfo[]>;
  /** Revokes a key at once; revoking twice is harmless. */
  revoke(id: string): Promise<ApiKeyInfo>;
  /** The permissions and name of a valid, unrevoked key, or null. */
  authenticate(key: string): Promise<KeyGrant | null>;
}

/** What a valid key grants, and its name (for the audit trail's actor). */
export interface KeyGrant {
  permissions: Permission[];
  name: string | null;
}

export interface MaintenanceOps {
  /** Every invariant the ledger relies on, checked; an empty list means the ledger is sound. */
  check(): Promise<{ problems: Problem[]; checked: Record<string, number>; notes?: string[] }>;
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
