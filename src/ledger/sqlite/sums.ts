import Database from 'better-sqlite3';
import type { Entity } from '../../domain/accounts.js';
import type { GlLineRow } from '../../domain/generalLedger.js';
import { cumulate, partialCuts, type Cumulative, type MonthTotal } from '../../domain/totals.js';
import type { GlLinesQuery, Sums, SumsSnapshot } from '../reports.js';
import type { SqliteChart } from './chart.js';
import { publicEntity, type Db } from './db.js';
import { LINE_NET } from './sql.js';

type Partial = { net: bigint; count: number; adjNet: bigint; adjCount: number };

/**
 * The sums reports are built from, read from the derived monthly totals: never a scan of every line
 * (the lines of the months a cut falls inside excepted, and the general ledger's own lines).
 */
export class SqliteSums implements Sums {
  constructor(
    private readonly db: Db,
    private readonly chart: SqliteChart,
  ) {}

  async snapshot(cutsFor: (entity: Entity) => string[]): Promise<SumsSnapshot> {
    return this.db.read(() => {
      const entity = publicEntity(this.db.entity());
      const cuts = cutsFor(entity);
      return { entity, accounts: this.chart.reportAccounts(), cuts, ...this.cumulative(cuts) };
    });
  }

  /**
   * Every account's cumulative totals at each cut (sorted), and the adjusting entries' part of them:
   * from the derived per-account, per-month totals, plus the lines of the months a cut ends inside.
   * Call in a read transaction.
   */
  private cumulative(cuts: string[]): {
    totals: Map<number, Cumulative>;
    adjusting: Map<number, Cumulative>;
  } {
    const lastMonth = cuts[cuts.length - 1]!.slice(0, 7);
    // One row per account with its months packed as text: building thousands of small row arrays
    // through the driver costs more than splitting one string.
    const packed = this.db
      .prep(
        `SELECT account_key, group_concat(month || ' ' || net_atoms || ' ' || line_count || ' ' || adj_net_atoms
                  || ' ' || adj_line_count, ',')
         FROM (SELECT * FROM account_month_totals WHERE month <= ? ORDER BY account_key, month)
         GROUP BY account_key`,
      )
      .raw()
      .all(lastMonth) as [number, string][];
    const partials = this.partials(cuts);
    const isPartial = (cut: string) => partials.has(cut);
    const totals = new Map<number, Cumulative>();
    const adjusting = new Map<number, Cumulative>();
    for (const [key, text] of packed) {
      const all: MonthTotal[] = [];
      const adj: MonthTotal[] = [];
      for (const part of text.split(',')) {
        const [month, net, count, adjNet, adjCount] = part.split(' ') as [
          string,
          string,
          string,
          string,
          string,
        ];
        all.push({ month, net: BigInt(net), count: Number(count) });
        if (adjCount !== '0') adj.push({ month, net: BigInt(adjNet), count: Number(adjCount) });
      }
      const p = (cut: string) => partials.get(cut)?.get(key);
      totals.set(key, cumulate(all, cuts, p, isPartial));
      const pa = (cut: string) => {
        const x = p(cut);
        return x && { net: x.adjNet, count: x.adjCount };
      };
      if (adj.length || [...partials.values()].some((m) => m.get(key)?.adjCount)) {
        adjusting.set(key, cumulate(adj, cuts, pa, isPartial));
      }
    }
    return { totals, adjusting };
  }

  /** For each cut inside a month: per account, the lines of that month up to the cut. */
  private partials(cuts: string[]): Map<string, Map<number, Partial>> {
    const stmt = this.db
      .prep(
        `SELECT l.account_key, SUM(${LINE_NET}), COUNT(*),
                SUM(CASE WHEN e.is_adjusting = 1 THEN ${LINE_NET} ELSE 0 END), SUM(e.is_adjusting)
         FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq
         WHERE e.entry_date >= ? AND e.entry_date <= ? GROUP BY l.account_key`,
      )
      .safeIntegers(true)
      .raw();
    const out = new Map<string, Map<number, Partial>>();
    for (const { cut, from } of partialCuts(cuts)) {
      const map = new Map<number, Partial>();
      for (const [k, net, n, adjNet, adjN] of stmt.all(from, cut) as bigint[][]) {
        map.set(Number(k), {
          net: net!,
          count: Number(n),
          adjNet: adjNet!,
          adjCount: Number(adjN),
        });
      }
      out.set(cut, map);
    }
    return out;
  }

  /** Per account, the lines with one counterparty before a date: all of them, and those since a date. */
  async counterpartySums(q: {
    keys: number[];
    before: string;
    since: string;
    counterparty: { type: string; external_id: string };
  }): Promise<CounterpartySums> {
    const rows = this.db
      .prep(
        `SELECT l.account_key, SUM(${LINE_NET}), COUNT(*),
                SUM(CASE WHEN e.entry_date >= ? THEN ${LINE_NET} ELSE 0 END),
                SUM(CASE WHEN e.entry_date >= ? THEN 1 ELSE 0 END)
         FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq
         JOIN counterparties c ON c.id = l.counterparty_id
         WHERE e.entry_date < ? AND c.counterparty_type = ? AND c.external_id = ?
           AND l.account_key IN (SELECT value FROM json_each(?))
         GROUP BY l.account_key`,
      )
      .safeIntegers(true)
      .raw()
      .all(
        q.since,
        q.since,
        q.before,
        q.counterparty.type,
        q.counterparty.external_id,
        JSON.stringify(q.keys),
      ) as bigint[][];
    const out: CounterpartySums = new Map();
    for (const [k, all, n, recent, m] of rows) {
      out.set(Number(k), {
        all: all!,
        allCount: Number(n),
        recent: recent!,
        recentCount: Number(m),
      });
    }
    return out;
  }

  /**
   * The lines of the general ledger's accounts in the window, in the accounts' order (`keys`), then by
   * date and entry, on a read-only connection of their own: one scan of the window's entries by date
   * (an index by account would cost every import more than it saves here), streamed row by row.
   */
  async *glLines(q: GlLinesQuery): AsyncGenerator<GlLineRow> {
    const db = new Database(this.db.location, { readonly: true, fileMustExist: true });
    db.pragma('cache_size = -65536');
    try {
      const ranks = JSON.stringify(q.keys.map((k: number, i: number) => [k, i]));
      const where = ['e.entry_date >= ?', 'e.entry_date <= ?'];
      const params: unknown[] = [ranks, q.start_date, q.end_date];
      if (q.counterparty) {
        where.push('c.counterparty_type = ? AND c.external_id = ?');
        params.push(q.counterparty.type, q.counterparty.external_id);
      }
      if (q.after) {
        where.push('(r.rank, e.entry_date, e.seq, l.line_no) > (?, ?, ?, ?)');
        params.push(q.keys.indexOf(q.after.key), q.after.date, q.after.seq, q.after.line_no);
      }
      const rows = db
        .prepare(
          `WITH r(key, rank) AS (SELECT value ->> 0, value ->> 1 FROM json_each(?))
           SELECT l.account_key, e.id, e.je_number, e.entry_date, e.memo, l.memo, c.counterparty_type,
                  c.external_id, c.name, l.line_type, l.amount_atoms, e.seq, l.line_no
           FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq JOIN r ON r.key = l.account_key
           LEFT JOIN counterparties c ON c.id = l.counterparty_id
           WHERE ${where.join(' AND ')} ORDER BY r.rank, e.entry_date, e.seq, l.line_no`,
        )
        .raw()
        .iterate(...params) as IterableIterator<unknown[]>;
      for (const r of rows) yield glRow(r);
    } finally {
      db.close();
    }
  }
}

export type CounterpartySums = Map<
  number,
  { all: bigint; allCount: number; recent: bigint; recentCount: number }
>;

function glRow(r: unknown[]): GlLineRow {
  const [
    key,
    entry_id,
    je_number,
    entry_date,
    memo,
    line_memo,
    cpType,
    cpId,
    cpName,
    side,
    amount,
    seq,
    line_no,
  ] = r as [
    number,
    string,
    string,
    string,
    string | null,
    string | null,
    string | null,
    string | null,
    string | null,
    'debit' | 'credit',
    number,
    number,
    number,
  ];
  return {
    key,
    entry_id,
    je_number,
    entry_date,
    memo,
    line_memo,
    counterparty_type: cpType,
    counterparty_external_id: cpId,
    counterparty_name: cpName,
    line_type: side,
    amount_atoms: amount,
    seq,
    line_no,
  };
}
