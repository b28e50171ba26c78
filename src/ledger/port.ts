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
  close(): Promise<void>;
}

/** Operations a local ledger file offers beyond the API. */
export interface LocalLedgerOps extends Ledger {
  readonly kind: 'local';
  counterparties(): Promise<Counterparty[]>;
  getEntry(idOrNumber: string): Promise<JournalEntry>;
  listEntries(filter: EntryFilter): Promise<JournalEntry[]>;
}
