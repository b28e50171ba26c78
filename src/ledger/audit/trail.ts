import type { Amended, Anchor, AuditEvent, EventDraft, Verified, Who } from '../../domain/audit.js';

/** What `books audit list` and the API filter by. */
export interface AuditFilter {
  /** Events on or after this day (UTC). */
  since?: string | undefined;
  /** Events on or before this day (UTC). */
  until?: string | undefined;
  actor?: string | undefined;
  action?: string | undefined;
  /** An id or number among the event's objects. */
  object?: string | undefined;
}

/**
 * The entity's audit trail on a transaction's connection (sql/auditTables.ts for every store): the
 * chain's head, appending under the entity's write lock, and reading in order.
 */
export interface Trail {
  head(): Promise<{ seq: number; hash: string; at: string }>;
  /** Appends events after the head, in order; the caller holds the entity's write lock. */
  append(drafts: EventDraft[]): Promise<AuditEvent[]>;
  /** Numbers and hashes events after the head for the caller to insert in this transaction. */
  seal(drafts: EventDraft[]): Promise<AuditEvent[]>;
  /** Starts the trail of a ledger whose entries predate it, before a write adds entries. */
  start(who: Who): Promise<void>;
  page(filter: AuditFilter, after: number, limit: number): Promise<AuditEvent[]>;
  /** The chain recomputed over this transaction's reading. */
  verified(anchor?: Anchor): Promise<Verified>;
  /** The event that wrote the entry stored at `entrySeq`. */
  writerOf(entrySeq: number): Promise<AuditEvent | null>;
}

/** The event a write is making, as a feature names it (audit/recording.ts Recording). */
export interface EventNamer {
  readonly who: Who;
  /** Names the event; the last name given counts. */
  name(action: string, objects: string[], summary: string): void;
  amended: Record<string, Amended> | undefined;
}
