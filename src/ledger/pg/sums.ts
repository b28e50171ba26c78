import { randomBytes } from 'node:crypto';
import type { Entity } from '../../domain/accounts.js';
import type { GlLineRow } from '../../domain/generalLedger.js';
import {
  accountCumulatives,
  partialCuts,
  type AccountMonth,
  type PartialSums,
} from '../../domain/totals.js';
import type {
  CounterpartySumsQuery,
  GlLinesQuery,
  SplitTotals,
  Sums,
  SumsRequest,
  SumsSnapshot,
} from '../reports/reports.js';
import { splitConditions } from '../reports/reports.js';
import type { PgChart } from './chart.js';
import { LINE_NET } from '../sql/totals.js';
import { filteredTotals, linesMeet, tagCountsSql, tagValuesSql } from '../sql/tagTotals.js';
import { numbered } from './tables.js';
import { Scope } from '../sql/dialect.js';
import type { TagCondition } from '../../domain/tags.js';
import type { PgDb, Query } from './db.js';
import { publicOf, type PgEntities } from './entity.js';

/** Lines read per page of one account: keyset pages over the account's index range. */
const GL_PAGE = 2000;

/**
 * The sums reports are built from, read from the derived monthly totals of one entity (the lines of
 * the months a cut falls inside excepted, and the general ledger's own lines), each reading in one
 * repeatable-read transaction.
 */
export class PgSums implements Sums {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    private readonly entities: PgEntities,
    private readonly chart: PgChart,
  ) {
    this.scope = new Scope(entityId);
  }

  private readonly scope: Scope;

  async entity(): Promise<Entity> {
    return this.entities.get();
  }

  /** Secrets never change once made: a process keeps what it read (every server reads the same). */
  private readonly secrets = new Map<string, Buffer>();

  async secret(name: string): Promise<Buffer> {
    const known = this.secrets.get(name);
    if (known) return known;
    // Made once per entity: the first to ask stores it, any later one reads the stored value.
    const rows = await this.db.query<{ value: Buffer }>(
      `WITH made AS (INSERT INTO ledger_secrets (entity_id, name, value) VALUES ($1, $2, $3)
                     ON CONFLICT DO NOTHING RETURNING value)
       SELECT value FROM made UNION ALL
       SELECT value FROM ledger_secrets WHERE entity_id = $1 AND name = $2`,
      [this.entityId, name, randomBytes(32)],
    );
    this.secrets.set(name, rows[0]!.value);
    return rows[0]!.value;
  }

  async tagCounts(): Promise<{ key: string; value: string; lines: number }[]> {
    const rows = await this.db.query<{ key: string; value: string; lines: string }>(
      tagCountsSql(this.scope),
    );
    return rows.map((r) => ({ ...r, lines: Number(r.lines) }));
  }

  snapshot(
    cutsFor: (entity: Entity) => string[],
    request: SumsRequest = {},
  ): Promise<SumsSnapshot> {
    return this.db.tx(async (q) => {
      const entity = publicOf(await this.entities.state(q));
      const cuts = cutsFor(entity);
      const where = request.where ?? [];
      const [accounts, totals] = await Promise.all([
        this.chart.reportAccounts(q),
        this.cumulative(q, cuts, where),
      ]);
      const main = { entity, accounts, cuts, ...totals };
      if (!request.split) return main;
      const values = (
        await q<{ value: string }>(numbered(tagValuesSql(this.scope)), [
          request.split,
          cuts[cuts.length - 1]!.slice(0, 7),
        ])
      ).map((r) => r.value);
      const columns: SplitTotals[] = [];
      // One after another: a transaction's statements run one at a time on its connection anyway.
      for (const w of splitConditions(where, request.split, values))
        columns.push(await this.cumulative(q, cuts, w));
      return { ...main, split: { values, columns } };
    }, true);
  }

  private async cumulative(q: Query, cuts: string[], where: TagCondition[]) {
    const lastMonth = cuts[cuts.length - 1]!.slice(0, 7);
    // Filtered totals are scoped to the entity within; the plain table by its entity_id.
    const [source, params] = where.length
      ? [`${filteredTotals(this.scope, where)} t WHERE month <= $1`, [lastMonth]]
      : [`account_month_totals WHERE entity_id = $1 AND month <= $2`, [this.entityId, lastMonth]];
    const rows = await q<{
      account_key: number;
      month: string;
      net: string;
      count: number;
      adj_net: string;
      adj_count: number;
    }>(
      `SELECT account_key, month, net_atoms::text AS net, line_count AS count,
              adj_net_atoms::text AS adj_net, adj_line_count AS adj_count
       FROM ${source} ORDER BY account_key, month`,
      params,
    );
    const byAccount = new Map<number, AccountMonth[]>();
    for (const r of rows) {
      let list = byAccount.get(r.account_key);
      if (!list) byAccount.set(r.account_key, (list = []));
      list.push({
        month: r.month,
        net: BigInt(r.net),
        count: Number(r.count),
        adjNet: BigInt(r.adj_net),
        adjCount: Number(r.adj_count),
      });
    }
    return accountCumulatives(byAccount, await this.partials(q, cuts, where), cuts);
  }

  /** For each cut inside a month: per account, the lines of that month up to the cut. */
  private async partials(q: Query, cuts: string[], where: TagCondition[]): Promise<PartialSums> {
    const out: PartialSums = new Map();
    for (const { cut, from } of partialCuts(cuts)) {
      const rows = await q<{ k: number; net: bigint; n: number; adj_net: bigint; adj_n: number }>(
        `SELECT l.account_key AS k, SUM(${LINE_NET}) AS net, COUNT(*) AS n,
                SUM(CASE WHEN e.is_adjusting THEN ${LINE_NET} ELSE 0 END) AS adj_net,
                COUNT(*) FILTER (WHERE e.is_adjusting) AS adj_n
         FROM journal_lines l JOIN journal_entries e ON e.entity_id = l.entity_id AND e.seq = l.entry_seq
         WHERE l.entity_id = $1 AND l.entry_date >= $2 AND l.entry_date <= $3
           AND ${linesMeet(this.scope, where)} GROUP BY l.account_key`,
        [this.entityId, from, cut],
      );
      out.set(
        cut,
        new Map(
          rows.map((r) => [
            r.k,
            { net: r.net, count: Number(r.n), adjNet: r.adj_net, adjCount: Number(r.adj_n) },
          ]),
        ),
      );
    }
    return out;
  }

  async counterpartySums(q: CounterpartySumsQuery) {
    const rows = await this.db.query<{
      k: number;
      all: bigint;
      n: number;
      recent: bigint;
      m: number;
    }>(
      `SELECT l.account_key AS k, SUM(${LINE_NET}) AS all, COUNT(*) AS n,
              SUM(CASE WHEN l.entry_date >= $2 THEN ${LINE_NET} ELSE 0 END) AS recent,
              COUNT(*) FILTER (WHERE l.entry_date >= $2) AS m
       FROM journal_lines l JOIN counterparties c ON c.entity_id = l.entity_id AND c.id = l.counterparty_id
       WHERE l.entity_id = $1 AND l.entry_date < $3 AND c.counterparty_type = $4 AND c.external_id = $5
         AND l.account_key = ANY($6) AND ${linesMeet(this.scope, q.where ?? [])}
       GROUP BY l.account_key`,
      [this.entityId, q.since, q.before, q.counterparty.type, q.counterparty.external_id, q.keys],
    );
    return new Map(
      rows.map((r) => [
        r.k,
        { all: r.all, allCount: Number(r.n), recent: r.recent, recentCount: Number(r.m) },
      ]),
    );
  }

  /**
   * The lines account by account (in the order given), each by date, entry and line: keyset pages
   * over the account's index range, all from one snapshot.
   */
  glLines(g: GlLinesQuery): AsyncGenerator<GlLineRow[]> {
    return this.db.snapshot((q) => this.lines(q, g));
  }

  private async *lines(q: Query, g: GlLinesQuery): AsyncGenerator<GlLineRow[]> {
    let party: string | null = null;
    if (g.counterparty) {
      const found = await q<{ id: string }>(
        `SELECT id FROM counterparties WHERE entity_id = $1 AND counterparty_type = $2 AND external_id = $3`,
        [this.entityId, g.counterparty.type, g.counterparty.external_id],
      );
      if (!found[0]) return;
      party = found[0].id;
    }
    // A page of 2,000 lines took 18 ms with parallel workers and 10 ms without: starting them costs
    // more than they save on a range of one account's index.
    await q('SET LOCAL max_parallel_workers_per_gather = 0');
    const page = (key: number, bound: [string, number, number]) => {
      const rows = q<GlLineRow>(
        `SELECT l.account_key AS key, e.id AS entry_id, e.je_number, l.entry_date, e.memo,
                l.memo AS line_memo, c.counterparty_type, c.external_id AS counterparty_external_id,
                c.name AS counterparty_name, l.line_type, l.amount_atoms, l.entry_seq AS seq, l.line_no,
                l.fx_amount_atoms, l.fx_rate
         FROM journal_lines l
         JOIN journal_entries e ON e.entity_id = l.entity_id AND e.seq = l.entry_seq
         LEFT JOIN counterparties c ON c.entity_id = l.entity_id AND c.id = l.counterparty_id
         WHERE l.entity_id = $1 AND l.account_key = $2
           AND (l.entry_date, l.entry_seq, l.line_no) > ($3, $4, $5) AND l.entry_date <= $6
           AND ($7::text IS NULL OR l.counterparty_id = $7) AND ${linesMeet(this.scope, g.where ?? [])}
         ORDER BY l.entry_date, l.entry_seq, l.line_no LIMIT ${GL_PAGE}`,
        [this.entityId, key, ...bound, g.end_date, party],
      );
      // A page asked for ahead and never read (the caller stopped) fails no one.
      rows.catch(() => {});
      return rows;
    };
    // Once the caller has come back for more than a page, the next page is asked for before this
    // one is handed on: the database reads it while the caller writes this one out. (A caller that
    // wants one page, an API page of fewer lines, reads no page it does not use.)
    let ahead = false;
    for (const key of g.keys) {
      const a = g.after?.key === key && g.after.date >= g.start_date ? g.after : null;
      // Entries and lines count from 1: (start, 0, 0) is just before the window's first line.
      let next = page(key, a ? [a.date, a.seq, a.line_no] : [g.start_date, 0, 0]);
      for (;;) {
        const rows = await next;
        const last = rows[rows.length - 1];
        const after = (): [string, number, number] => [last!.entry_date, last!.seq, last!.line_no];
        const full = rows.length === GL_PAGE;
        if (full && ahead) next = page(key, after());
        if (rows.length) yield rows;
        if (!full) break;
        if (!ahead) [next, ahead] = [page(key, after()), true];
      }
    }
  }
}
