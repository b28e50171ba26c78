import type { Who } from '../../domain/audit.js';
import type { JournalEntry } from '../../domain/entry.js';
import type { Problem } from '../../domain/errors.js';

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
  /** Who asks (the audit trail's actor and via); else who is acting now (runtime/actor.ts). */
  who?: Who;
  /**
   * The id of the API key the request was granted by from a server's memory, not read for it: the
   * post reads it with its facts and is refused as unauthenticated if it is revoked or gone.
   */
  keyToVerify?: string;
}

export interface ReverseOptions {
  idempotencyKey: string;
  /** As PostOptions.keyToVerify: the request's API key, read again in the reversal's write. */
  keyToVerify?: string;
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
  /**
   * Validates a chunk of entries (each chunk's look-ups fetched at once); resolves when more may come.
   * `next`, the chunk that will be added next: its look-ups may be fetched meanwhile.
   */
  add(chunk: ImportEntry[], next?: ImportEntry[]): Promise<BatchResult[]>;
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
