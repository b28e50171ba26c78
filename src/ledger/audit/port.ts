import type { Anchor, AuditEvent, Verified } from '../../domain/audit.js';
import type { AuditFilter } from './trail.js';

export type { AuditFilter };

/** The audit trail (docs/reliability.md, "The audit trail"): read, never written through the port. */
export interface AuditOps {
  /** Events in seq order (oldest first) that the filter keeps, streamed. */
  list(filter: AuditFilter): AsyncIterable<AuditEvent>;
  /** At most `limit` events after seq `after`, as a page of the API. */
  page(filter: AuditFilter, after: number, limit: number): Promise<AuditEvent[]>;
  /** The chain recomputed from the entries and events as stored, through an anchor if given. */
  verify(anchor?: Anchor): Promise<Verified>;
  /** The last event's seq and hash (0 and the genesis hash before any). */
  head(): Promise<{ seq: number; hash: string }>;
  /** The event that wrote an entry (by id or JE number): who posted it, when and how. */
  writerOf(idOrNumber: string): Promise<AuditEvent | null>;
}
