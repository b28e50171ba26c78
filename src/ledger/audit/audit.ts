import { pagedEvents, type Anchor, type AuditEvent, type Verified } from '../../domain/audit.js';
import { errors } from '../../domain/errors.js';
import type { JournalStore } from '../journal/store.js';
import type { AuditFilter, AuditOps } from './port.js';

/** Events read per transaction while listing: each page is a read of its own, by seq. */
const PAGE = 1000;

/** The audit trail of a store of its own (a file, a database), read in its transactions. */
export class AuditFromStore implements AuditOps {
  constructor(private readonly store: Pick<JournalStore, 'read'>) {}

  list(filter: AuditFilter): AsyncIterable<AuditEvent> {
    return pagedEvents((after) => this.page(filter, after, PAGE), PAGE);
  }

  page(filter: AuditFilter, after: number, limit: number): Promise<AuditEvent[]> {
    return this.store.read((tx) => tx.trail.page(filter, after, limit));
  }

  verify(anchor?: Anchor): Promise<Verified> {
    return this.store.read((tx) => tx.trail.verified(anchor));
  }

  async head(): Promise<{ seq: number; hash: string }> {
    const { seq, hash } = await this.store.read((tx) => tx.trail.head());
    return { seq, hash };
  }

  writerOf(idOrNumber: string): Promise<AuditEvent | null> {
    return this.store.read(async (tx) => {
      const entry = await tx.entry(idOrNumber);
      if (!entry) throw errors.notFound(`no journal entry '${idOrNumber}'`);
      return tx.trail.writerOf(entry.seq);
    });
  }
}
