import { parts } from './dates.js';
import { storableTotal } from './errors.js';
import { tagsOf, tagsText, type Tags } from './tags.js';

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

/** A sum as a number while it is one (no bigint made for each row), else as a bigint. */
const exact = (big: bigint, n: number): number | bigint =>
  big === 0n ? n : storableTotal(big + BigInt(n), "an account's total by tag for a month");

/** (account, month, key, value, net, lines, adjusting net, adjusting lines) */
type TagTotalRow = [
  number,
  string,
  string,
  string,
  number | bigint,
  number,
  number | bigint,
  number,
];

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
  /** The last line's date and its month's number: lines come in runs of one date. */
  private date = '';
  private monthNo = 0;

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
    for (const l of entry.lines) {
      const text = tagsText(l.tags);
      if (text === null) continue;
      const net = l.line_type === 'debit' ? l.amount_atoms : -l.amount_atoms;
      this.line(l.account.key, entry.entry_date, net, entry.is_adjusting, text, l.tags!);
    }
  }

  /** A stored line's share, from its tags' stored text (read once per set). */
  addStored(account: number, date: string, net: number, adjusting: boolean, text: string): void {
    this.line(account, date, net, adjusting, text, null);
  }

  private line(
    account: number,
    date: string,
    net: number,
    adjusting: boolean,
    text: string,
    tags: Tags | null,
  ): void {
    if (date !== this.date) {
      const [y, m] = parts(date);
      [this.date, this.monthNo] = [date, y * 12 + m];
    }
    const at = account * MONTHS + this.monthNo;
    let cell = this.cells.get(at);
    if (!cell) this.cells.set(at, (cell = { account, month: date.slice(0, 7), sums: new Map() }));
    for (const id of this.idsOf(text, tags)) {
      let s = cell.sums.get(id);
      if (!s)
        cell.sums.set(id, (s = { net: 0, big: 0n, count: 0, adjNet: 0, adjBig: 0n, adjCount: 0 }));
      bump(s, net, adjusting);
    }
  }

  private idsOf(text: string, given: Tags | null): number[] {
    let ids = this.setIds.get(text);
    if (ids) return ids;
    ids = [];
    const tags = given ?? tagsOf(text);
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
  rows(): TagTotalRow[] {
    const byPair = new Map<number, TagTotalRow[]>();
    const cells = [...this.cells].sort((a, b) => a[0] - b[0]);
    for (const [, { account, month, sums }] of cells)
      for (const [id, s] of sums) {
        const [key, value] = this.pairs[id]!;
        const net = exact(s.big, s.net);
        let rows = byPair.get(id);
        if (!rows) byPair.set(id, (rows = []));
        rows.push([
          account,
          month,
          key,
          value,
          net,
          s.count,
          exact(s.adjBig, s.adjNet),
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
