import type { DumpCounts } from '../domain/dump.js';
import type { Problem } from '../domain/errors.js';
import type { Permission } from '../domain/keys.js';
import type { ChartOps, EntityOps, KeyOps, MaintenanceOps } from './books/port.js';
import type { JournalOps } from './journal/port.js';
import type { FxOps } from './fx/port.js';
import type { BudgetOps, RecurringOps } from './plans/port.js';
import type { ReconcileOps } from './reconcile/port.js';
import type { ReportOps } from './reports/port.js';
import type { AuditOps } from './audit/port.js';

export type * from './books/port.js';
export type * from './fx/port.js';
export type * from './journal/port.js';
export type * from './plans/port.js';
export type * from './reconcile/port.js';
export type * from './reports/port.js';
export type * from './audit/port.js';

/** The settings a new entity's books start with. */
export interface LedgerInit {
  name: string;
  currency: string;
  books_start: string | null;
  fiscal_year_start_month: number;
}

/**
 * The one door between commands and stores. A store (SQLite, PostgreSQL, the HTTP client)
 * implements every concern below; an operation a store cannot offer raises a usage error saying it
 * is not offered by the profile. Stores raise BooksError values with the codes of docs/api.md, so
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
  readonly fx: FxOps;
  readonly audit: AuditOps;
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

/** What an API key grants: its entity's ledger, its permissions, and its name. */
export interface Grant {
  ledger: Ledger;
  permissions: Permission[];
  name: string | null;
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
  /**
   * The ledger of an API key's entity and the key's permissions, or null for a key not valid here.
   * `checkedInWrite`: the request's write reads the key again (PostOptions.keyToVerify), so a grant
   * the store remembers from an earlier request will do.
   */
  authenticate(key: string, checkedInWrite?: boolean): Promise<Grant | null>;
  /** A quick check of the store's storage before serving: damage is marked and said. */
  verify(): Promise<Problem[]>;
  /** Held open by a server: upkeep that pays only over many requests may start (a file's checkpoints). */
  serving?(): void;
  close(): Promise<void>;
}
