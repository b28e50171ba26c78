import type { DumpCounts, DumpRecord } from '../../domain/dump.js';
import { BooksError, type Problem } from '../../domain/errors.js';
import { checkedCounts, journalProblems, type OwnChecks } from '../sql/check.js';
import { rebuildMarked } from '../sql/rebuild.js';
import { dumpRecords } from '../sql/dump.js';
import { restoreInto, rewriteTotals } from '../sql/restore.js';
import type { MaintenanceOps } from '../port.js';
import { reconProblems } from '../reconcile/reports.js';
import type { Session, Tables } from '../sql/dialect.js';
import type { PgDb, Query } from './db.js';
import type { PgEntities } from './entity.js';
import { entityRows } from './entryRows.js';
import { pgRecon } from './recon.js';

/** `books check`, `books rebuild`, dump and restore of one entity in a database. */
export class PgMaintenance implements MaintenanceOps {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    private readonly entities: PgEntities,
    private readonly tables: Tables & { on(q: Query): Session },
  ) {}

  /** The database checks its own pages; there is no file of books' own to verify. */
  async verifyFile(): Promise<Problem[]> {
    return [];
  }

  async check(): Promise<{ problems: Problem[]; checked: Record<string, number> }> {
    return this.db.tx(async (q) => {
      const s = this.tables.on(q);
      const problems = await this.problems(q);
      return { problems, checked: await checkedCounts(s) };
    }, true);
  }

  /** Every problem check finds in the entity's rows, read through q (check's or a restore's transaction). */
  private async problems(q: Query): Promise<Problem[]> {
    // journalProblems says it reads every row (Sql.wholeReads): the reference check below too.
    return journalProblems(this.tables.on(q), this.own(q));
  }

  /** What the database does not prove itself: the journal's references (it has no foreign keys). */
  private own(q: Query): OwnChecks {
    return {
      storage: async (add) => {
        for (const d of await q<{ table: string; row: string; parent: string }>(DANGLING, [
          this.entityId,
        ]))
          add({
            path: d.table,
            reason: 'foreign_key',
            message: `${d.table} row ${d.row} points at a missing ${d.parent} row`,
          });
        return true;
      },
      derived: async () => {},
    };
  }

  /** Recomputes the derived monthly totals from the lines, in one transaction under the mark. */
  rebuild(): Promise<{ totals: number; lines: number }> {
    return rebuildMarked(this.tables, (done) =>
      this.tables.write(async (s) => {
        const result = await this.rewrite(s);
        await done(s);
        return result;
      }),
    );
  }

  /** The entity's derived totals from its lines, in the session's transaction. */
  private async rewrite(s: Session): Promise<{ totals: number; lines: number }> {
    // The lines may have just come in (a restore, in this transaction): without statistics that count
    // them, the planner takes the entity for a handful of rows and joins its lines to its entries in a
    // nested loop over all of them (minutes at 1M lines). ANALYZE samples this transaction's rows too.
    await s.sql.run('ANALYZE journal_entries, journal_lines', []);
    return rewriteTotals(s);
  }

  dump(): AsyncIterable<DumpRecord> {
    return this.tables.snapshot(dumpRecords);
  }

  /** Restores and checks the copy in one transaction: a copy that fails check is rolled back. */
  restore(records: AsyncIterable<unknown>): Promise<DumpCounts> {
    return this.entities.write((q) => this.restoreIn(q, records));
  }

  /**
   * Restores a dump into the entity through q, then runs check on the copy in the same transaction:
   * a copy that fails it throws check_failed, and the caller's transaction rolls back.
   */
  async restoreIn(q: Query, records: AsyncIterable<unknown>): Promise<DumpCounts> {
    const counts = await restoreInto(
      this.tables.on(q),
      {
        rows: entityRows(q, this.entityId),
        name: 'the entity',
        kind: 'entity',
        keyHolder: async (id) => {
          const [holder] = await q<{ slug: string }>(
            `SELECT e.slug FROM api_keys k JOIN entities e ON e.entity_id = k.entity_id WHERE k.id = $1`,
            [id],
          );
          return holder?.slug ?? null;
        },
        derive: async (s) => void (await this.rewrite(s)),
      },
      records,
    );
    const problems = await this.problems(q);
    problems.push(...(await reconProblems(pgRecon(q, this.entityId))).problems);
    if (problems.length) {
      const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
      throw new BooksError(
        'check_failed',
        `the copy fails books check: ${problems[0]!.message}${more}; nothing was copied`,
        problems,
      );
    }
    return counts;
  }
}

/** Every reference of the journal names a row of the entity. */
const DANGLING = `
  SELECT 'journal_lines' AS table, l.entry_seq || '.' || l.line_no AS row, 'journal_entries' AS parent
    FROM journal_lines l WHERE l.entity_id = $1 AND NOT EXISTS
      (SELECT 1 FROM journal_entries e WHERE e.entity_id = $1 AND e.seq = l.entry_seq)
  UNION ALL
  SELECT 'journal_lines', l.entry_seq || '.' || l.line_no, 'accounts'
    FROM journal_lines l WHERE l.entity_id = $1 AND NOT EXISTS
      (SELECT 1 FROM accounts a WHERE a.entity_id = $1 AND a.key = l.account_key)
  UNION ALL
  SELECT 'journal_lines', l.entry_seq || '.' || l.line_no, 'counterparties'
    FROM journal_lines l WHERE l.entity_id = $1 AND l.counterparty_id IS NOT NULL AND NOT EXISTS
      (SELECT 1 FROM counterparties c WHERE c.entity_id = $1 AND c.id = l.counterparty_id)
  UNION ALL
  SELECT 'journal_entries', e.je_number, 'journal_entries'
    FROM journal_entries e WHERE e.entity_id = $1 AND e.original_seq IS NOT NULL AND NOT EXISTS
      (SELECT 1 FROM journal_entries o WHERE o.entity_id = $1 AND o.seq = e.original_seq)`;
