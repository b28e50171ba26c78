import type { Counterparty, Entity, GlAccount } from '../domain/accounts.js';
import type { BalanceSheet } from '../domain/balanceSheet.js';
import type { JournalEntry } from '../domain/entry.js';
import type { ReportQuery } from '../domain/periods.js';

export interface PostOptions {
  /** The X-Idempotency-Key of the request. */
  idempotencyKey: string;
  /** `manual_api` or `csv_import`. */
  source?: string;
  /** Validate and number the entry as it would post, but write nothing. */
  dryRun?: boolean;
}

export interface ReverseOptions {
  idempotencyKey: string;
  /** Date of the reversing entry; the original's date when omitted. */
  entryDate?: string;
  dryRun?: boolean;
}

export interface EntryFilter {
  from?: string;
  to?: string;
}

export type BatchResult =
  | { status: 'posted' | 'would_post' | 'skipped' }
  | { status: 'invalid'; problems: import('../domain/errors.js').Problem[] };

/** A batch import in progress: every entry is added (validated) first, then the batch commits or rolls back. */
export interface ImportBatch {
  /** Validates one entry of the file; a local ledger also writes it while the batch is clean. */
  add(body: unknown, fingerprint: string, hasRowProblems: boolean, row: number): BatchResult;
  /** Resolves when the batch can take more entries (its writes may be behind); call between chunks of the file. */
  ready(): Promise<void>;
  /** Makes the batch visible; returns the rows of entries found already posted while committing. */
  commit(): Promise<{ alreadyPosted: number[] }>;
  rollback(): Promise<void>;
}

export interface ImportOptions {
  dryRun: boolean;
  allowDuplicates: boolean;
  /** Size of the input in bytes when known (null for a stream): a large batch may write on another thread. */
  sizeHint?: number | null;
}

/**
 * What every command needs of a ledger, local or remote. Implementations raise BooksError values
 * with the codes of spec part 7, so that commands and exit codes do not care which one they hold.
 */
export interface Ledger {
  readonly kind: 'local' | 'remote';
  /** Where the ledger is, for messages (a file path or a base URL). */
  readonly location: string;
  entity(): Promise<Entity>;
  accounts(): Promise<GlAccount[]>;
  /** Posts one entry (a `POST /v1/journal-entries` body) and returns it as stored. */
  post(body: unknown, options: PostOptions): Promise<JournalEntry>;
  /** Posts the mirror of an entry, given by id or je_number, and links the two. */
  reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry>;
  /** The balance sheet of a checked query (see checkReportQuery); refuses a window over 5 years with CAPI69. */
  balanceSheet(query: ReportQuery): Promise<BalanceSheet>;
  /** Starts a batch import (see ImportBatch). */
  beginImport(options: ImportOptions): Promise<ImportBatch>;
  close(): Promise<void>;
}

/** Operations a local ledger file offers beyond the API. */
export interface LocalLedgerOps extends Ledger {
  readonly kind: 'local';
  counterparties(): Promise<Counterparty[]>;
  getEntry(idOrNumber: string): Promise<JournalEntry>;
  listEntries(filter: EntryFilter): Promise<JournalEntry[]>;
}
