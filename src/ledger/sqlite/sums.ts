import type { Entity } from '../../domain/accounts.js';
import { cumulate, partialCuts, type Cumulative, type MonthTotal } from '../../domain/totals.js';
import type { Sums, SumsSnapshot } from '../reports.js';
import type { SqliteChart } from './chart.js';
import { publicEntity, type Db } from './db.js';

/** The sums reports are built from, read from the derived monthly totals: never a scan of every line. */
export class SqliteSums implements Sums {
  constructor(
    private readonly db: Db,
    private readonly chart: SqliteChart,
  ) {}

  async snapshot(cutsFor: (entity: Entity) => string[]): Promise<SumsSnapshot> {
    return this.db.read(() => {
      const entity = publicEntity(this.db.entity());
      const cuts = cutsFor(entity);
      return { entity, accounts: this.chart.reportAccounts(), cuts, totals: this.cumulative(cuts) };
    });
  }

  /**
   * Every account's cumulative totals at each cut (sorted): from the derived per-account, per-month
   * totals, plus the lines of the months a cut ends inside, read by date. Call in a read transaction.
   */
  private cumulative(cuts: string[]): Map<number, Cumulative> {
    const lastMonth = cuts[cuts.length - 1]!.slice(0, 7);
    // One row per account with its months packed as text: building thousands of small row arrays
    // through the driver costs more than splitting one string.
    const packed = this.db
      .prep(
        `SELECT account_key, group_concat(month || ' ' || net_atoms || ' ' || line_count, ',')
         FROM (SELECT account_key, month, net_atoms, line_count FROM account_month_totals
               WHERE month <= ? ORDER BY account_key, month)
         GROUP BY account_key`,
      )
      .raw()
      .all(lastMonth) as [number, string][];
    const partials = this.partials(cuts);
    const totals = new Map<number, Cumulative>();
    for (const [key, text] of packed) {
      const months: MonthTotal[] = text.split(',').map((part) => {
        const [month, net, count] = part.split(' ') as [string, string, string];
        return { month, net: BigInt(net), count: Number(count) };
      });
      const partial = (cut: string) => partials.get(cut)?.get(key);
      totals.set(
        key,
        cumulate(months, cuts, partial, (cut) => partials.has(cut)),
      );
    }
    return totals;
  }

  /** For each cut inside a month: per account, the lines of that month up to the cut. */
  private partials(cuts: string[]): Map<string, Map<number, { net: bigint; count: number }>> {
    const stmt = this.db
      .prep(
        `SELECT l.account_key,
                SUM(CASE WHEN l.line_type = 'debit' THEN l.amount_atoms ELSE -l.amount_atoms END), COUNT(*)
         FROM journal_entries e JOIN journal_lines l ON l.entry_seq = e.seq
         WHERE e.entry_date >= ? AND e.entry_date <= ? GROUP BY l.account_key`,
      )
      .safeIntegers(true)
      .raw();
    const out = new Map<string, Map<number, { net: bigint; count: number }>>();
    for (const { cut, from } of partialCuts(cuts)) {
      const map = new Map<number, { net: bigint; count: number }>();
      for (const [k, net, n] of stmt.all(from, cut) as [bigint, bigint, bigint][]) {
        map.set(Number(k), { net, count: Number(n) });
      }
      out.set(cut, map);
    }
    return out;
  }
}
