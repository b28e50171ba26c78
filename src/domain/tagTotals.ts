import { parts } from './dates.js';
import { tagsText, type Tags } from './tags.js';

/** One pair's totals in one account-month: sums as numbers while safe, then as bigints. */
interface PairSum {
  net: number;
  big: bigint;
  count: number;
  adjNet: number;
  adjBig: bigint;
  adjCount: number;
}

/** A number holds a sum exactly below 2^53; beyond, it moves to the bigint. */
function bump(s: PairSum, net: number, adjusting: boolean): void {
  s.count++;
  const sum = s.net + net;
  if (Number.isSafeInteger(sum)) s.net = sum;
  else [s.big, s.net] = [s.big + BigInt(s.net) + BigInt(net), 0];
  if (!adjusting) return;
  s.adjCount++;
  const adj = s.adjNet + net;
  if (Number.isSafeInteger(adj)) s.adjNet = adj;
  else [s.adjBig, s.adjNet] = [s.adjBig + BigInt(s.adjNet) + BigInt(net), 0];
}

const cmpPair = (a: [string, string], b: [string, string]): number =>
  a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;

/** Pairs a TagTotals keeps numbered between writes. */
const MAX_PAIRS = 10_000;

/** Months in an account-month's number: account keys stay exact below 2^36. */
const MONTHS = 131_072;

/**
 * The derived totals by tag an entry adds: per account, month, key and value, debits minus credits
 * and lines (and the adjusting part), written in the posting transaction as the month totals are.
 * A report by one condition reads them instead of the journal. A line finds its account-month once
 * and adds to each of its pairs there, by number: no key text is made per line.
 */
export class TagTotals {
  /** Each key and value met, numbered; a tag set's numbers by its text (lines share few sets). */
  private readonly pairs: [string, string][] = [];
  private readonly pairIds = new Map<string, number>();
  private readonly setIds = new Map<string, number[]>();
  /** By account-month (account key × MONTHS + month number): its pairs' sums by pair number. */
  private readonly cells = new Map<
    number,
    { account: number; month: string; sums: Map<number, PairSum> }
  >();

  add(entry: {
    entry_date: string;
    is_adjusting: boolean;
    lines: {
      account: { key: number };
      line_type: 'debit' | 'credit';
      amount_atoms: number;
      tags?: Tags;
    }[];
  }): void {
    const month = entry.entry_date.slice(0, 7);
    const [y, m] = parts(entry.entry_date);
    const monthNo = y * 12 + m;
    for (const l of entry.lines) {
      const text = tagsText(l.tags);
      if (text === null) continue;
      const net = l.line_type === 'debit' ? l.amount_atoms : -l.amount_atoms;
      const at = l.account.key * MONTHS + monthNo;
      let cell = this.cells.get(at);
      if (!cell) this.cells.set(at, (cell = { account: l.account.key, month, sums: new Map() }));
      for (const id of this.idsOf(text, l.tags!)) {
        let s = cell.sums.get(id);
        if (!s)
          cell.sums.set(
            id,
            (s = { net: 0, big: 0n, count: 0, adjNet: 0, adjBig: 0n, adjCount: 0 }),
          );
        bump(s, net, entry.is_adjusting);
      }
    }
  }

  private idsOf(text: string, tags: Tags): number[] {
    let ids = this.setIds.get(text);
    if (ids) return ids;
    ids = [];
    for (const k in tags) {
      const pair = `${k}\u0000${tags[k]}`;
      let id = this.pairIds.get(pair);
      if (id === undefined) {
        this.pairIds.set(pair, (id = this.pairs.length));
        this.pairs.push([k, tags[k]!]);
      }
      ids.push(id);
    }
    // Bounded: a file of ever new tag sets keeps only the latest.
    if (this.setIds.size > 100_000) this.setIds.clear();
    this.setIds.set(text, ids);
    return ids;
  }

  /**
   * Rows of (account, month, key, value, net, lines, adjusting net, adjusting lines), in the order of
   * the table's key (key, value, account, month): an upsert then walks its index pages in order.
   */
  rows(): [number, string, string, string, bigint, number, bigint, number][] {
    const byPair = new Map<
      number,
      [number, string, string, string, bigint, number, bigint, number][]
    >();
    const cells = [...this.cells].sort((a, b) => a[0] - b[0]);
    for (const [, { account, month, sums }] of cells)
      for (const [id, s] of sums) {
        const [key, value] = this.pairs[id]!;
        const net = s.big + BigInt(s.net);
        let rows = byPair.get(id);
        if (!rows) byPair.set(id, (rows = []));
        rows.push([
          account,
          month,
          key,
          value,
          net,
          s.count,
          s.adjBig + BigInt(s.adjNet),
          s.adjCount,
        ]);
      }
    const order = [...byPair.keys()].sort((a, b) => cmpPair(this.pairs[a]!, this.pairs[b]!));
    return order.flatMap((id) => byPair.get(id)!);
  }

  /** How many key-value pairs it keeps numbered (bounded between writes: MAX_PAIRS). */
  get numbered(): number {
    return this.pairs.length;
  }

  clear(): void {
    this.cells.clear();
    // A writer kept open (a server's) forgets the pairs it numbered once they grow many: numbers
    // are only needed while cells hold them, and every cell is written by now.
    if (this.pairs.length > MAX_PAIRS) {
      this.pairs.length = 0;
      this.pairIds.clear();
      this.setIds.clear();
    }
  }
}
