import { chartProblems } from '../../domain/chart.js';
import {
  brokenReversal,
  currencyReadable,
  entityProblems,
  entryProblems,
  type EntryFacts,
  invalidLine,
  totalsDrift,
  unbalancedEntry,
  type TotalsDrift,
} from '../../domain/check.js';
import { DumpReader, type DumpCounts, type DumpRecord } from '../../domain/dump.js';
import { BooksError } from '../../domain/errors.js';
import { numberingProblem } from '../../domain/jeNumber.js';
import { exponentOf, MAX_ATOMS } from '../../domain/money.js';
import type { Problem } from '../../domain/errors.js';
import { rebuildRunning } from '../../domain/rebuild.js';
import type { MaintenanceOps } from '../port.js';
import { localProcesses, thisProcess } from '../processes.js';
import type { PgChart } from './chart.js';
import type { PgDb, Query } from './db.js';
import type { PgEntities } from './entity.js';
import { dumpEntity, restoreEntity } from './transfer.js';
import { pgRecon } from './recon.js';
import { reconProblems } from '../reconcileReports.js';

const LINE_NET = `CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END`;

/** The derived totals as the entity's lines say they are (`books rebuild` writes them, check compares). */
export const MONTH_TOTALS_FROM_LINES = `
  SELECT l.account_key, substr(l.entry_date, 1, 7) AS month, SUM(${LINE_NET}) AS net, COUNT(*) AS n,
         COALESCE(SUM(${LINE_NET}) FILTER (WHERE e.is_adjusting), 0) AS adj_net,
         COUNT(*) FILTER (WHERE e.is_adjusting) AS adj_n
  FROM journal_lines l JOIN journal_entries e ON e.entity_id = l.entity_id AND e.seq = l.entry_seq
  WHERE l.entity_id = $1 GROUP BY 1, 2`;

/** `books check`, `books rebuild`, dump and restore of one entity in a database. */
export class PgMaintenance implements MaintenanceOps {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    private readonly entities: PgEntities,
    private readonly chart: PgChart,
  ) {}

  /** The database checks its own pages; there is no file of books' own to verify. */
  async verifyFile(): Promise<Problem[]> {
    return [];
  }

  async check(): Promise<{ problems: Problem[]; checked: Record<string, number> }> {
    return this.db.tx(async (q) => {
      // Right after a large import the planner's statistics are the journal's before it (autovacuum
      // comes later): a nested loop planned for a few rows ran check's joins for over ten minutes.
      // Check reads every row anyway, so hash and merge joins are always right for it.
      await q('SET LOCAL enable_nestloop = off');
      const problems = await this.problems(q);
      const e = [this.entityId];
      const [counts] = await q<Record<string, number>>(
        `SELECT (SELECT COUNT(*) FROM journal_entries WHERE entity_id = $1)::int AS entries,
                (SELECT COUNT(*) FROM journal_lines WHERE entity_id = $1)::int AS lines,
                (SELECT COUNT(*) FROM accounts WHERE entity_id = $1)::int AS accounts,
                (SELECT COUNT(*) FROM counterparties WHERE entity_id = $1)::int AS counterparties,
                (SELECT COUNT(*) FROM account_month_totals WHERE entity_id = $1)::int AS totals`,
        e,
      );
      return { problems, checked: counts! };
    }, true);
  }

  /** Every problem check finds in the entity's rows, read through q (check's or a restore's transaction). */
  async problems(q: Query): Promise<Problem[]> {
    const problems: Problem[] = [];
    const e = [this.entityId];
    for (const part of CHECKS) problems.push(...(await part(q, e)));
    const entity = await this.entities.state(q);
    const [first] = await q<{ je_number: string; entry_date: string }>(
      `SELECT je_number, entry_date FROM journal_entries WHERE entity_id = $1
       ORDER BY entry_date, seq LIMIT 1`,
      e,
    );
    const settings = entityProblems(entity, first);
    problems.push(...settings);
    if (currencyReadable(settings)) {
      const facts: EntryFacts = {
        dates: await q(
          `SELECT entry_date, MIN(je_number) AS je_number, COUNT(*)::int AS n FROM journal_entries
           WHERE entity_id = $1 GROUP BY entry_date`,
          e,
        ),
        currencies: await q(
          `SELECT currency, MIN(je_number) AS je_number, COUNT(*)::int AS n FROM journal_entries
           WHERE entity_id = $1 GROUP BY currency`,
          e,
        ),
      };
      problems.push(...entryProblems(facts, entity.currency));
      problems.push(...chartProblems(await this.chart.shapes(q), exponentOf(entity.currency)));
    }
    return problems;
  }

  /**
   * Recomputes the derived monthly totals from the lines. Posts are refused with CAPI73 meanwhile:
   * the mark is committed first; the totals are rewritten and the mark cleared in one transaction.
   */
  async rebuild(): Promise<{ totals: number; lines: number }> {
    await this.entities.write(async (q, entity) => {
      if (rebuildRunning(entity, Date.now(), localProcesses))
        throw new BooksError(
          'CAPI73',
          'a rebuild is already running; try again when it finishes',
          [],
          {
            retryable: true,
            retry_after: 1,
          },
        );
      await q(
        `UPDATE entities SET rebuild_started_at = $2, rebuild_owner = $3 WHERE entity_id = $1`,
        [this.entityId, this.db.stamp(), thisProcess()],
      );
    });
    const clear = (q: Query) =>
      q(
        `UPDATE entities SET rebuild_started_at = NULL, rebuild_owner = NULL WHERE entity_id = $1`,
        [this.entityId],
      );
    try {
      return await this.entities.write(async (q) => {
        const result = await rewriteTotals(q, this.entityId);
        await clear(q);
        return result;
      });
    } catch (e) {
      await this.entities.write(clear);
      throw e;
    }
  }

  dump(): AsyncIterable<DumpRecord> {
    return dumpEntity(this.db, this.entityId);
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
    const counts = await restoreEntity(q, this.entityId, records, new DumpReader());
    await q('SET LOCAL enable_nestloop = off');
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

/** Every entry balanced, with its lines counted and its total right; every line sound. */
async function balances(q: Query, e: string[]): Promise<Problem[]> {
  const out: Problem[] = [];
  const unbalanced = await q<Parameters<typeof unbalancedEntry>[0]>(
    `SELECT e.je_number, e.total_atoms, e.line_count,
              COALESCE(SUM(l.amount_atoms) FILTER (WHERE l.line_type = 'debit'), 0)::bigint AS d,
              COALESCE(SUM(l.amount_atoms) FILTER (WHERE l.line_type = 'credit'), 0)::bigint AS c,
              COUNT(l.line_no)::int AS n
       FROM journal_entries e LEFT JOIN journal_lines l ON l.entity_id = e.entity_id AND l.entry_seq = e.seq
       WHERE e.entity_id = $1 GROUP BY e.entity_id, e.seq
       HAVING COALESCE(SUM(l.amount_atoms) FILTER (WHERE l.line_type = 'debit'), 0)
                != COALESCE(SUM(l.amount_atoms) FILTER (WHERE l.line_type = 'credit'), 0)
           OR COALESCE(SUM(l.amount_atoms) FILTER (WHERE l.line_type = 'debit'), 0) != e.total_atoms
           OR COUNT(l.line_no) != e.line_count OR COUNT(l.line_no) < 2 OR e.total_atoms > ${MAX_ATOMS}`,
    e,
  );
  for (const u of unbalanced) out.push(unbalancedEntry(u));
  const badLines = await q<{ je_number: string; line_no: number }>(
    `SELECT e.je_number, l.line_no FROM journal_lines l
       JOIN journal_entries e ON e.entity_id = l.entity_id AND e.seq = l.entry_seq
       WHERE l.entity_id = $1 AND (l.amount_atoms < 1 OR l.amount_atoms > ${MAX_ATOMS}
         OR l.line_type NOT IN ('debit', 'credit')
         OR l.entry_date != e.entry_date)`,
    e,
  );
  for (const b of badLines) out.push(invalidLine(b.je_number, b.line_no));
  return out;
}

/** Every reference of the journal names a row of the entity (the schema has no foreign keys for them). */
async function references(q: Query, e: string[]): Promise<Problem[]> {
  const out: Problem[] = [];
  const dangling = await q<{ table: string; row: string; parent: string }>(
    `SELECT 'journal_lines' AS table, l.entry_seq || '.' || l.line_no AS row, 'journal_entries' AS parent
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
           (SELECT 1 FROM journal_entries o WHERE o.entity_id = $1 AND o.seq = e.original_seq)`,
    e,
  );
  for (const d of dangling)
    out.push({
      path: d.table,
      reason: 'foreign_key',
      message: `${d.table} row ${d.row} points at a missing ${d.parent} row`,
    });
  return out;
}

/** The derived totals equal what the lines say. */
async function derivedTotals(q: Query, e: string[]): Promise<Problem[]> {
  const out: Problem[] = [];
  const drift = await q<TotalsDrift>(
    `WITH actual AS (${MONTH_TOTALS_FROM_LINES}),
       t AS (SELECT * FROM account_month_totals WHERE entity_id = $1)
       SELECT a.external_id, x.* FROM (
         SELECT COALESCE(actual.account_key, t.account_key) AS account_key,
                COALESCE(actual.month, t.month) AS month, actual.net, actual.n, actual.adj_net, actual.adj_n,
                t.net_atoms AS tnet, t.line_count AS tn, t.adj_net_atoms AS tadj_net, t.adj_line_count AS tadj_n
         FROM actual FULL JOIN t ON t.account_key = actual.account_key AND t.month = actual.month) x
       LEFT JOIN accounts a ON a.entity_id = $1 AND a.key = x.account_key
       WHERE x.net IS DISTINCT FROM x.tnet OR x.n IS DISTINCT FROM x.tn
          OR x.adj_net IS DISTINCT FROM x.tadj_net OR x.adj_n IS DISTINCT FROM x.tadj_n`,
    e,
  );
  for (const d of drift) out.push(totalsDrift(d));
  return out;
}

/** Every reversed entry has its reversal. */
async function links(q: Query, e: string[]): Promise<Problem[]> {
  const out: Problem[] = [];
  const reversals = await q<{ je_number: string }>(
    `SELECT o.je_number FROM journal_entries o WHERE o.entity_id = $1 AND o.status = 'reversed'
       AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.entity_id = $1 AND r.original_seq = o.seq)`,
    e,
  );
  for (const r of reversals) out.push(brokenReversal(r.je_number));
  return out;
}

/** Every JE-n kept where automatic numbering looks for it (see numberingProblem). */
async function numbering(q: Query, e: string[]): Promise<Problem[]> {
  const out: Problem[] = [];
  const numbers = await q<{
    je_number: string;
    counted: string | null;
    uncounted: string | null;
  }>(
    `SELECT je_number, je_seq::text AS counted, je_seq_uncounted::text AS uncounted FROM journal_entries
       WHERE entity_id = $1 AND (je_seq IS NOT NULL OR je_seq_uncounted IS NOT NULL OR je_number ~ '^JE-[1-9]')`,
    e,
  );
  let found = 0;
  for (const r of numbers) {
    const big = (v: string | null) => (v === null ? null : BigInt(v));
    const problem = numberingProblem(r.je_number, big(r.counted), big(r.uncounted));
    if (problem && found++ < 10)
      out.push({
        path: `journal_entries[${r.je_number}]`,
        reason: 'je_numbering',
        message: problem,
      });
  }
  if (found > 10)
    out.push({
      path: 'journal_entries',
      reason: 'je_numbering',
      message: `… ${found - 10} more`,
    });
  return out;
}

/** `books check`'s parts, each over the entity's rows in one read transaction. */
const CHECKS = [balances, references, derivedTotals, links, numbering];

/** The entity's derived totals, computed again from its lines. */
export async function rewriteTotals(
  q: Query,
  entityId: string,
): Promise<{ totals: number; lines: number }> {
  await q(`DELETE FROM account_month_totals WHERE entity_id = $1`, [entityId]);
  // The lines may have just come in (a restore, in this transaction): without statistics that count
  // them, the planner takes the entity for a handful of rows and joins its lines to its entries in a
  // nested loop over all of them (minutes at 1M lines). ANALYZE samples this transaction's rows too.
  await q(`ANALYZE journal_entries, journal_lines`, []);
  const rows = await q<{ lines: number; totals: number }>(
    `WITH ins AS (
       INSERT INTO account_month_totals (entity_id, account_key, month, net_atoms, line_count, adj_net_atoms,
                                         adj_line_count)
       SELECT $1, account_key, month, net, n, adj_net, adj_n FROM (${MONTH_TOTALS_FROM_LINES}) x
       RETURNING line_count)
     SELECT COALESCE(SUM(line_count), 0)::bigint AS lines, COUNT(*)::int AS totals FROM ins`,
    [entityId],
  );
  return { totals: rows[0]!.totals, lines: Number(rows[0]!.lines) };
}
