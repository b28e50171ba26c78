import { recordBooksStart, recordLockDate } from '../sql/auditTables.js';
import { whoNow } from '../runtime/actor.js';
import { fileTables } from './tables.js';
import type { Entity, EntityRecord } from '../../domain/accounts.js';
import { booksStartRule, lockRule } from '../../domain/entityRules.js';
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
    const who = whoNow();
    return fileTables(this.db).write(async (s, entity) => {
      const earlier = this.db
        .prep(
          `SELECT je_number, entry_date FROM journal_entries WHERE entry_date < ? ORDER BY entry_date LIMIT 1`,
        )
        .get(`${month}-01`) as { je_number: string; entry_date: string } | undefined;
      const start = booksStartRule(month, earlier);
      this.db.prep(`UPDATE entity SET books_start = ?, updated_at = ?`).run(start, this.db.stamp());
      await recordBooksStart(s, who, entity.books_start, start);
      return publicEntity(this.db.entity());
    });
  }

  async closeThrough(
    date: string,
    reopen: boolean,
  ): Promise<{ previous: string | null; entity: Entity }> {
    const who = whoNow();
    return fileTables(this.db).write(async (s) => {
      const previous = this.db.entity().lock_date;
      lockRule(previous, date, reopen);
      this.db.prep(`UPDATE entity SET lock_date = ?, updated_at = ?`).run(date, this.db.stamp());
      await recordLockDate(s, who, previous, date);
      return { previous, entity: publicEntity(this.db.entity()) };
    });
  }
}
