import Database from 'better-sqlite3';
import type { Entity } from '../../domain/accounts.js';
import type { GlLineRow } from '../../domain/generalLedger.js';
import { accountCumulatives, partialCuts, type PartialSums } from '../../domain/totals.js';
import type {
  CounterpartySums,
  CounterpartySumsQuery,
  GlLinesQuery,
  SplitTotals,
  Sums,
  SumsRequest,
  SumsSnapshot,
} from '../reports/reports.js';
import { splitConditions } from '../reports/reports.js';
import type { SqliteChart } from './chart.js';
import { publicEntity, type Db } from './db.js';
import { summingExactly, sumOf } from './connection.js';
import { LINE_NET } from '../sql/totals.js';
import { filteredTotals, linesMeet, tagCountsSql, tagValuesSql } from '../sql/tagTotals.js';
import type { TagCondition } from '../../domain/tags.js';
import { FILE } from './tables.js';

/**
 * The sums reports are built from, read from the derived monthly totals: never a scan of every line
 * (the lines of the months a cut falls inside excepted, and the general ledger's own lines).
 */
export class SqliteSums implements Sums {
  constructor(
    private readonly db: Db,
    private readonly chart: SqliteChart,
  ) {}

  async entity(): Promise<Entity> {
    return publicEntity(this.db.entity());
  }

  async secret(name: string): Promise<Buffer> {
    return this.db.kept(`secret ${name}`, () => {
      const value = this.db
        .prep(`SELECT value FROM ledger_secrets WHERE name = ?`)
        .pluck()
        .get(name) as Buffer | undefined;
      if (!value) throw new Error(`the ledger has no secret '${name}'`);
      return value;
    });
  }

  async tagCounts(): Promise<{ key: string; value: string; lines: number }[]> {
    const rows = this.db.prep(tagCountsSql(FILE)).all() as {
      key: string;
      value: string;
      lines: string;
    }[];
    return rows.map((r) => ({ ...r, lines: Number(r.lines) }));
  }

  async snapshot(
    cutsFor: (entity: Entity) => string[],
    request: SumsRequest = {},
  ): Promise<SumsSnapshot> {
    return this.db.read(() => {
      const entity = publicEntity(this.db.entity());
      const cuts = cutsFor(entity);
      const where = request.where ?? [];
      const accounts = this.chart.reportAccounts();
      const main = { entity, accounts, cuts, ...this.cumulative(cuts, where) };
      if (!request.split) return main;
      const values = this.db
        .prep(tagValuesSql(FILE))
        .pluck()
        .all(request.split, cuts[cuts.length - 1]!.slice(0, 7)) as string[];
      const columns = splitConditions(where, request.split, values).map((w) =>
        this.cumulative(cuts, w),
      );
      return { ...main, split: { values, columns } };
    });
  }

  /**
   * Every account's cumulative totals at each cut (sorted), and the adjusting entries' part of them:
   * from the derived per-account, per-month totals, plus the lines of the months a cut ends inside.
   * Call in a read transaction.
   */
  private cumulative(cuts: string[], where: TagCondition[]): SplitTotals {
    const lastMonth = cuts[cuts.length - 1]!.slice(0, 7);
    const source = where.length ? filteredTotals(FILE, where) : 'account_month_totals';
    // One row per account with its months packed as text: building thousands of small row arrays
    // through the driver costs more than splitting one string.
    const packed = summingExactly(
      `SELECT account_key, group_concat(month || ' ' || net_atoms || ' ' || line_count || ' ' || adj_net_atoms
                  || ' ' || adj_line_count, ',')
         FROM (SELECT * FROM ${source} WHERE month <= ? ORDER BY account_key, month)
         GROUP BY account_key`,
      (sql) => this.db.prep(sql).raw().all(lastMonth),
    ) as [number, string][];
    const partials = this.partials(cuts, where);
    return accountCumulatives(
      packed.map(([key, text]) => [
        key,
        text.split(',').map((part) => {
          const [month, net, count, adjNet, adjCount] = part.split(' ') as [
            string,
            string,
            string,
            string,
            string,
          ];
          return {
            month,
            net: BigInt(net),
            count: Number(count),
            adjNet: BigInt(adjNet),
            adjCount: Number(adjCount),
          };
        }),
      ]),
      partials,
      cuts,
    );
  }

  /** For each cut inside a month: per account, the lines of that month up to the cut. */
  private partials(cuts: string[], where: TagCondition[]): PartialSums {
    const sql = `SELECT l.account_key, SUM(${LINE_NET}), COUNT(*),
                SUM(CASE WHEN e.is_adjusting = 1 THEN ${LINE_NET} ELSE 0 END), SUM(e.is_adjusting)
         FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq
         WHERE e.entry_date >= ? AND e.entry_date <= ? AND ${linesMeet(FILE, where)}
         GROUP BY l.account_key`;
    const rowsOf = (from: string, cut: string) =>
      summingExactly(sql, (t) => this.db.prep(t).safeIntegers(true).raw().all(from, cut));
    const out: PartialSums = new Map();
    for (const { cut, from } of partialCuts(cuts)) {
      const map = new Map<
        number,
        { net: bigint; count: number; adjNet: bigint; adjCount: number }
      >();
      for (const [k, net, n, adjNet, adjN] of rowsOf(from, cut) as unknown[][]) {
        map.set(Number(k), {
          net: sumOf(net),
          count: Number(n),
          adjNet: sumOf(adjNet),
          adjCount: Number(adjN),
        });
      }
      out.set(cut, map);
    }
    return out;
  }

  /** Per account, the lines with one counterparty before a date: all of them, and those since a date. */
  async counterpartySums(q: CounterpartySumsQuery): Promise<CounterpartySums> {
    const rows = summingExactly(
      `SELECT l.account_key, SUM(${LINE_NET}), COUNT(*),
                SUM(CASE WHEN e.entry_date >= ? THEN ${LINE_NET} ELSE 0 END),
                SUM(CASE WHEN e.entry_date >= ? THEN 1 ELSE 0 END)
         FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq
         JOIN counterparties c ON c.id = l.counterparty_id
         WHERE e.entry_date < ? AND c.counterparty_type = ? AND c.external_id = ?
           AND l.account_key IN (SELECT value FROM json_each(?)) AND ${linesMeet(FILE, q.where ?? [])}
         GROUP BY l.account_key`,
      (sql) =>
        this.db
          .prep(sql)
          .safeIntegers(true)
          .raw()
          .all(
            q.since,
            q.since,
            q.before,
            q.counterparty.type,
            q.counterparty.external_id,
            JSON.stringify(q.keys),
          ),
    ) as unknown[][];
    const out: CounterpartySums = new Map();
    for (const [k, all, n, recent, m] of rows) {
      out.set(Number(k), {
        all: sumOf(all),
        allCount: Number(n),
        recent: sumOf(recent),
        recentCount: Number(m),
      });
    }
    return out;
  }

  /**
   * The lines account by account (in the order given), each by date, entry and line, on a read-only
   * connection of its own: one range of the index by account and date per account, merged with the
   * lines not yet indexed (see glIndex.ts), so a busy account or a long history costs only the lines
   * in the window. Counterparties are looked up once each.
   */
  async *glLines(q: GlLinesQuery): AsyncGenerator<GlLineRow[]> {
    const db = new Database(this.db.location, { readonly: true, fileMustExist: true });
    db.pragma('cache_size = -16384');
    try {
      // One read transaction: every account's lines, and the index's extent, from the same moment.
      db.prepare('BEGIN').run();
      let counterparty: unknown = null;
      if (q.counterparty) {
        counterparty = db
          .prepare('SELECT id FROM counterparties WHERE counterparty_type = ? AND external_id = ?')
          .pluck()
          .get(q.counterparty.type, q.counterparty.external_id);
        if (counterparty === undefined) return;
      }
      const ofParty =
        (counterparty === null ? '' : 'AND l.counterparty_id = ? ') +
        (q.where?.length ? `AND ${linesMeet(FILE, q.where)}` : '');
      const partyParam = counterparty === null ? [] : [counterparty];
      const through = db.prepare('SELECT through_seq FROM gl_index_state').pluck().get() as number;
      const tail = tailByAccount(
        db
          .prepare(
            `SELECT ${GL_COLUMNS}, l.account_key FROM journal_lines l JOIN journal_entries e ON e.seq = l.entry_seq
             WHERE l.entry_seq > ? AND l.entry_date >= ? AND l.entry_date <= ? ${ofParty}`,
          )
          .raw()
          .all(through, q.start_date, q.end_date, ...partyParam) as unknown[][],
      );
      // The window's start and a cursor are one bound on (date, entry, line), so that SQLite seeks to
      // it: with a separate bound on the date it scanned the account from the window's start.
      const indexed = db
        .prepare(
          `SELECT ${GL_COLUMNS} FROM gl_index g
           JOIN journal_lines l ON l.entry_seq = g.entry_seq AND l.line_no = g.line_no
           JOIN journal_entries e ON e.seq = g.entry_seq
           WHERE g.account_key = ? AND (g.entry_date, g.entry_seq, g.line_no) > (?, ?, ?)
             AND g.entry_date <= ? ${ofParty}
           ORDER BY g.entry_date, g.entry_seq, g.line_no`,
        )
        .raw();
      const party = counterpartyLookup(db);
      for (const key of q.keys) {
        const a = q.after?.key === key && q.after.date >= q.start_date ? q.after : null;
        // Entries and lines count from 1: (start, 0, 0) is just before the window's first line.
        const bound = a ? ([a.date, a.seq, a.line_no] as const) : ([q.start_date, 0, 0] as const);
        const from = indexed.iterate(key, ...bound, q.end_date, ...partyParam) as IterableIterator<
          unknown[]
        >;
        const recent = (tail.get(key) ?? []).filter((r) => linesOrder(r, ...bound) > 0);
        let batch: GlLineRow[] = [];
        for (const r of recent.length ? mergeLines(from, recent) : from) {
          batch.push(glRow(key, r, party));
          if (batch.length === GL_BATCH) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length) yield batch;
      }
    } finally {
      db.close();
    }
  }
}

/** The columns of a general-ledger line as glRow reads them; its date, entry and line are 2, 8 and 9. */
const GL_COLUMNS = `e.id, e.je_number, l.entry_date, e.memo, l.memo, l.counterparty_id, l.line_type,
  l.amount_atoms, l.entry_seq, l.line_no, l.fx_amount_atoms, l.fx_rate`;

/** The order of the general ledger within an account (date, entry, line): a row against a place. */
function linesOrder(r: unknown[], date: string, seq: number, line: number): number {
  const d = r[2] as string;
  if (d !== date) return d < date ? -1 : 1;
  return (r[8] as number) - seq || (r[9] as number) - line;
}

const rowsOrder = (x: unknown[], y: unknown[]) =>
  linesOrder(x, y[2] as string, y[8] as number, y[9] as number);

/** The tail's lines by account (its last column), each account's in the general ledger's order. */
function tailByAccount(rows: unknown[][]): Map<number, unknown[][]> {
  const out = new Map<number, unknown[][]>();
  for (const r of rows) {
    const key = r.pop() as number;
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push(r);
  }
  for (const list of out.values()) list.sort(rowsOrder);
  return out;
}

/** Two runs of lines in the general ledger's order, as one. */
function* mergeLines(indexed: Iterable<unknown[]>, recent: unknown[][]): Generator<unknown[]> {
  let i = 0;
  for (const r of indexed) {
    while (i < recent.length && rowsOrder(recent[i]!, r) < 0) yield recent[i++]!;
    yield r;
  }
  while (i < recent.length) yield recent[i++]!;
}

type Party = { type: string; external_id: string; name: string } | null;

/** Counterparties by id, each read once: a ledger's lines name few of them many times. */
function counterpartyLookup(db: Database.Database): (id: string | null) => Party {
  const read = db.prepare(
    'SELECT counterparty_type AS type, external_id, name FROM counterparties WHERE id = ?',
  );
  const known = new Map<string, Party>();
  return (id) => {
    if (id === null) return null;
    let p = known.get(id);
    if (p === undefined) known.set(id, (p = (read.get(id) as Party | undefined) ?? null));
    return p;
  };
}

/** Lines handed on at a time: one await per batch, not per line. */
const GL_BATCH = 1024;

function glRow(key: number, r: unknown[], party: (id: string | null) => Party): GlLineRow {
  const [
    entry_id,
    je_number,
    entry_date,
    memo,
    line_memo,
    cpId,
    side,
    amount,
    seq,
    line_no,
    fx,
    rate,
  ] = r as [
    string,
    string,
    string,
    string | null,
    string | null,
    string | null,
    'debit' | 'credit',
    number,
    number,
    number,
    number | null,
    string | null,
  ];
  const p = party(cpId);
  return {
    key,
    entry_id,
    je_number,
    entry_date,
    memo,
    line_memo,
    counterparty_type: p?.type ?? null,
    counterparty_external_id: p?.external_id ?? null,
    counterparty_name: p?.name ?? null,
    line_type: side,
    amount_atoms: amount,
    seq,
    line_no,
    fx_amount_atoms: fx,
    fx_rate: rate,
  };
}
