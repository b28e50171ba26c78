import type { AuditEvent, Who } from '../../domain/audit.js';
import type { Entity } from '../../domain/accounts.js';
import type { AccountRef, CounterpartyRef, JournalEntry, ValidEntry } from '../../domain/entry.js';
import type { JeSeq, NumberedEntry } from '../../domain/jeNumber.js';
import type { Reversible, UsedKey } from '../../domain/posting.js';
import type { FxHistoryLine } from '../../domain/settlement.js';
import type { EntryFilter } from './port.js';
import type { EventNamer, Trail } from '../audit/trail.js';

/**
 * Whether an import is large enough (its input's size in bytes, null when unknown: a stream) to be
 * worth a writer of its own: a ledger file's writer thread, a database's pipelined connection.
 */
export const largeImport = (sizeHint: number | null | undefined): boolean =>
  sizeHint === null || (sizeHint ?? 0) >= 1024 * 1024;

/** How long a write waits for a lock another writer holds before it is "unavailable" (exit 4, 503). */
export const LOCK_WAIT_MS = 30_000;

/**
 * What a store offers the store-neutral journal (ledger/journal/journal.ts): transactions, look-ups fetched
 * for many entries at once, and the writing of entries already checked and numbered. A store
 * persists and sums; every rule is the domain's, applied by the journal. SQLite implements it over
 * one file, PostgreSQL over a database of many entities: every method may go to a server.
 */
export interface JournalStore<R extends ReadTx = ReadTx, W extends WriteTx = WriteTx> {
  /**
   * Runs fn in one transaction that holds the entity's write lock (taken up front: writers queue,
   * and numbers and keys read inside are final until it commits). Writes requested together may
   * share one transaction, each all or nothing on its own (a savepoint): fn must touch the ledger
   * only through `tx`. A write of `kind` 'entries' (a post, a reversal) writes entries and reads no
   * totals: its entries' totals may be summed with its group's and written once before it commits.
   * Its audit event is by `who`, else by whoever is acting now (runtime/actor.ts). `facts`, when
   * given, is the first reading fn asks (tx.facts with this very object): a store may send it with
   * its lock, in one round trip.
   */
  write<T>(
    fn: (tx: W) => Promise<T>,
    kind?: WriteKind,
    who?: Who,
    facts?: FactsRequest,
  ): Promise<T>;
  /** Runs fn in one read transaction: a consistent view, no lock (a dry run's). */
  read<T>(fn: (tx: R) => Promise<T>): Promise<T>;
  /** One entry by id or JE number as the API answers for it (not_found otherwise). */
  get(idOrNumber: string): Promise<JournalEntry>;
  /** Entries in date order, streamed (memory does not grow with the ledger). */
  list(filter: EntryFilter): AsyncIterable<JournalEntry>;
  /**
   * Whether posts waiting together are checked against one reading of their facts and written in
   * one round trip (journal/postGroup.ts): its write transactions are GroupWriteTx.
   */
  readonly groupsPosts?: boolean;
  /** What an import of a batch needs of the store (see ImportStore). */
  importStore(sizeHint: number | null | undefined): Promise<ImportStore>;
  now(): Date;
}

/** What a write does, as a group commit may use it (see JournalStore.write). */
export type WriteKind = 'entries';

/** The entity as a write reads it, inside its transaction: its settings and its rebuild mark. */
export interface EntityState extends Entity {
  rebuild_started_at: string | null;
  rebuild_owner: string | null;
}

/** What validation of some entries asks of the ledger, named as the entries name it. */
export interface Wants {
  /** Account references: an external id, else an account number. */
  accounts: Set<string>;
  /** Counterparties as `type\u0000external_id`. */
  counterparties: Set<string>;
  /** Normalised JE numbers the entries give. */
  jeNumbers: Set<string>;
  /** Rates the entries convert at, as `currency\u0000date`: the latest on or before the date. */
  rates: Set<string>;
  /**
   * Foreign receivables and payables the entries may settle, as `account\u0000type\u0000id\u0000date`
   * (the account as the line names it): their foreign lines with the counterparty through the date.
   */
  settlements: Set<string>;
}

/** What looks a thing up by the name an entry gives it. */
export interface Lookup<T> {
  get(name: string): T | undefined;
  has(name: string): boolean;
}

/**
 * The look-ups validation of some entries reads: their accounts (by external id, else number),
 * counterparties (by `type\u0000external_id`) and which of their JE numbers are taken. A store that
 * goes to a server fetches what the entries' Wants name at once (domain/posting.ts wantsOf); one
 * that answers at once may look each up when asked.
 */
export interface Facts {
  accounts: Lookup<AccountRef>;
  counterparties: Lookup<CounterpartyRef>;
  takenNumbers: Pick<Lookup<true>, 'has'>;
  /** The rate table's rate for `currency\u0000date` (the latest on or before it). */
  rates: Pick<Lookup<string>, 'get'>;
  /** The foreign lines of a Wants.settlements key, in date order. */
  fxHistory: Pick<Lookup<FxHistoryLine[]>, 'get'>;
}

/** An entry as stored, for its reversal: its identity, and its lines named as a request names them. */
export interface StoredEntry extends Reversible {
  seq: number;
  id: string;
}

/**
 * Where numbering stands: the largest JE-n that counts, and how to find the n above it that entries
 * took without counting (the smallest at or above `from`), for automatic numbers to pass over.
 */
export interface NumberingFacts {
  last: JeSeq;
  nextTaken: (from: JeSeq) => JeSeq | null;
}

/** What a write of entries asks of the ledger before its rules run, all at once. */
export interface FactsRequest {
  /** The request bodies: their accounts, counterparties and JE numbers are looked up. */
  bodies: unknown[];
  /** The idempotency key the write is made under, to find it used. */
  idempotencyKey?: string;
  /** An imported entry's fingerprint, to find the entry that carries it. */
  fingerprint: string | null;
  /** The keys of a group of posts (GroupWriteTx), each to find used (WriteFacts.usedKeys). */
  idempotencyKeys?: string[];
  /** How many automatic numbers the write may take (2 unless said: an accrual and its reversal). */
  automatic?: number;
  /** API key ids to read again (PostOptions.keyToVerify): those live are in WriteFacts.liveKeys. */
  apiKeys?: string[];
}

/**
 * What a write reads before its rules run, in one reading (one round trip to a server): the entity
 * with its rebuild mark, the key's earlier use, the entry that carries the fingerprint, the entries'
 * look-ups, and where numbering stands. Inside a write transaction all of it is final until commit.
 */
export interface WriteFacts {
  /**
   * The time of the reading, in ms: a database's own clock, so that servers whose clocks differ agree
   * on the idempotency key's hour (the key is stored with the same clock).
   */
  nowMs: number;
  entity: EntityState;
  usedKey: UsedKey | undefined;
  fingerprinted: { id: string; je_number: string } | undefined;
  lookups: Facts;
  numbering: NumberingFacts;
  /** The earlier use of each of FactsRequest.idempotencyKeys that has one. */
  usedKeys?: Map<string, UsedKey>;
  /** Which of FactsRequest.apiKeys are keys of the entity, not revoked (read in the transaction). */
  liveKeys?: Set<string>;
}

export interface ReadTx {
  /** The entity's audit trail on this transaction's connection. */
  trail: Trail;
  facts(request: FactsRequest): Promise<WriteFacts>;
  /** Accounts resembling a reference that names none, described for a message (an error's path). */
  resembling(ref: string): Promise<string[]>;
  entry(idOrNumber: string): Promise<StoredEntry | undefined>;
}

export interface WriteTx extends ReadTx {
  /**
   * The audit event this write makes (audit/recording.ts): the entries it writes feed it, and a
   * feature names it. Given by the store-neutral layer around the store's own transaction.
   */
  event: EventNamer;
  /**
   * Writes one checked, numbered entry, the monthly totals it adds, and the idempotency key it was
   * posted under, if any (a reversal also marks its original reversed; an automatic reversal posts
   * under its entry's key).
   */
  write(
    entry: ValidEntry,
    numbered: NumberedEntry,
    meta: EntryMeta,
    key: { key: string; hash: string } | null,
  ): Promise<Inserted>;
}

/**
 * Writes of several entries gathered into one pending write, sent in one round trip by `flush`: a
 * group of posts checked together (journal/postGroup.ts). Each write is known (its seq, id, number)
 * when it is buffered; nothing of it is in the ledger until flush and the commit after it.
 */
export interface EntryBatch {
  write(
    entry: ValidEntry,
    numbered: NumberedEntry,
    meta: EntryMeta,
    key: { key: string; hash: string } | null,
  ): Inserted;
  /** Audit events to insert with the rows, in the same round trip (sealed: Trail.seal). */
  record(events: AuditEvent[]): void;
  /**
   * Sends the rows. `last`: nothing else follows in the transaction, so a store may send its COMMIT
   * with them (one round trip fewer while the entity's lock is held).
   */
  flush(last?: boolean): Promise<void>;
}

/** A write transaction that also takes a group of posts' writes as one (EntryBatch). */
export interface GroupWriteTx extends WriteTx {
  batch(): EntryBatch;
}

/** Where a write of an entry came from, and what it links to. */
export interface EntryMeta {
  source: string;
  fingerprint: string | null;
  originalSeq: number | null;
  /** The id of the entry it reverses (as its audit event records it); null for none. */
  originalId?: string | null;
  /** `reversed` for an entry written with its automatic reversal; `posted` otherwise. */
  status?: 'posted' | 'reversed';
}

/** What a store wrote of an entry: enough to answer without reading it back. */
export interface Inserted {
  seq: number;
  id: string;
  je_number: string;
  ts: string;
}

/**
 * Writes checked and numbered entries, their lines and the monthly totals they add (the domain's
 * MonthTotals) inside the transaction it was made in. Rows may be buffered: `flush` writes what is
 * pending and runs before the transaction commits.
 */
export interface EntrySink {
  write(entry: ValidEntry, numbered: NumberedEntry, meta: EntryMeta): Inserted;
  /** Gives the entry written with JE number `from` (in this transaction) the number `to` instead. */
  renumber(from: string, to: NumberedEntry): void;
  /** Gives the entry written with JE number `jeNumber` (in this transaction) another memo. */
  setMemo(jeNumber: string, memo: string): void;
  flush(): Promise<void>;
}

/**
 * What an all-or-nothing import asks of the store: look-ups for a chunk of the file, read without
 * the write lock, and one write transaction for the whole batch, begun when the first entry is
 * ready and held while the rest streams in.
 */
export interface ImportStore {
  entity(): Promise<EntityState>;
  facts(bodies: unknown[]): Promise<Facts>;
  resembling(ref: string): Promise<string[]>;
  /** A chunk's look-ups: its entries' facts, and which of their fingerprints entries posted carry. */
  lookups(bodies: unknown[], fingerprints: string[]): Promise<[Facts, Set<string>]>;
  /** Takes the write lock for the batch (the rebuild mark read again under it). */
  openWrites(): Promise<BatchWrites>;
}

/** The open write transaction of an import batch. */
export interface BatchWrites {
  /** The entity's audit trail, written in the batch's transaction. */
  trail: Trail;
  entity(): Promise<EntityState>;
  /**
   * Which of these fingerprints entries already posted carry, read under the batch's lock: another
   * import may have posted them since the look-ups of the batch's first entries.
   */
  taken(fingerprints: string[]): Promise<Set<string>>;
  numbering(): Promise<NumberingFacts>;
  sink(): EntrySink;
  /**
   * Where the store takes the audit digest of the entries from the rows it writes (a writer thread):
   * how many it wrote and the digest, asked once the sink is flushed. Absent, the batch digests them.
   */
  digest?(): Promise<{ count: number; hex: string | null }>;
  /** Resolves when more entries may be written (the store's writes may be behind). */
  ready(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}
