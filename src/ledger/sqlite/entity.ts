import type { Entity, EntityRecord } from '../../domain/accounts.js';
import { BooksError, errors } from '../../domain/errors.js';
import type { EntityOps } from '../port.js';
import { publicEntity, type Db } from './db.js';

export interface EntityInit {
  name: string;
  currency: string;
  books_start: string | null;
  fiscal_year_start_month: number;
}

/** The entity a ledger file belongs to: its currency, fiscal year, First Month of Books, lock date. */
export class SqliteEntity implements EntityOps {
  constructor(private readonly db: Db) {}

  async get(): Promise<Entity> {
    return publicEntity(this.db.entity());
  }

  async record(): Promise<EntityRecord> {
    return this.db.read(() => {
      const count = (table: string) =>
        this.db.prep(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
      return {
        object: 'entity',
        ...publicEntity(this.db.entity()),
        account_count: count('accounts'),
        entry_count: count('journal_entries'),
      };
    });
  }

  async setBooksStart(month: string): Promise<Entity> {
    const start = `${month}-01`;
    return this.db.write(() => {
      const earlier = this.db
        .prep(
          `SELECT je_number, entry_date FROM journal_entries WHERE entry_date < ? ORDER BY entry_date LIMIT 1`,
        )
        .get(start) as { je_number: string; entry_date: string } | undefined;
      if (earlier) {
        const { je_number: n, entry_date: d } = earlier;
        throw new BooksError(
          'CAPI33',
          `${n} is dated ${d}, before ${start}; the books cannot start after posted entries`,
          [{ path: 'first_month', reason: 'entries_before_start', message: `${n} is dated ${d}` }],
        );
      }
      this.db.prep(`UPDATE entity SET books_start = ?, updated_at = ?`).run(start, this.db.stamp());
      return publicEntity(this.db.entity());
    });
  }

  async closeThrough(
    date: string,
    reopen: boolean,
  ): Promise<{ previous: string | null; entity: Entity }> {
    return this.db.write(() => {
      const previous = this.db.entity().lock_date;
      if (previous && date < previous && !reopen) {
        throw errors.usage(
          `the books are closed through ${previous}; moving the lock back to ${date} reopens a closed period: ` +
            'add --reopen to do so',
        );
      }
      this.db.prep(`UPDATE entity SET lock_date = ?, updated_at = ?`).run(date, this.db.stamp());
      return { previous, entity: publicEntity(this.db.entity()) };
    });
  }
}
