import { storableTotal } from './errors.js';
import { endOfMonth, parts } from './dates.js';

/**
 * An account's debits minus credits, and its line count, cumulated up to and including each cut date
 * (index by index with the cuts they were computed for).
 */
export interface Cumulative {
  net: bigint[];
  count: number[];
}

/** One account-month of the derived totals: debits minus credits and the number of lines. */
export interface MonthTotal {
  month: string;
  net: bigint;
  count: number;
}

/**
 * The cut dates that end inside a month (not on its last day) need that month's lines up to the cut;
 * these are they, with the first day of their month. Reports read the lines of only these months.
 */
export function partialCuts(cuts: string[]): { cut: string; from: string }[] {
  return cuts.flatMap((d) => {
    const [y, m] = parts(d);
    return d === endOfMonth(y, m) || d.startsWith('0000')
      ? []
      : [{ cut: d, from: `${d.slice(0, 7)}-01` }];
  });
}

/**
 * Cumulates one account's month totals (sorted by month) to each cut date (sorted). A cut that ends
 * inside a month takes the months before it plus `partial(cut)`, the lines of its month up to it.
 * Exact: sums are bigint.
 */
export function cumulate(
  months: MonthTotal[],
  cuts: string[],
  partial: (cut: string) => { net: bigint; count: number } | undefined,
  isPartial: (cut: string) => boolean,
): Cumulative {
  const net: bigint[] = [];
  const count: number[] = [];
  let k = 0;
  let sum = 0n;
  let n = 0;
  for (const d of cuts) {
    const month = d.slice(0, 7);
    const inside = isPartial(d);
    // Walk the account's months and the sorted cuts together, carrying the running sums.
    while (k < months.length && (inside ? months[k]!.month < month : months[k]!.month <= month)) {
      sum += months[k]!.net;
      n += months[k]!.count;
      k++;
    }
    const extra = inside ? partial(d) : undefined;
    net.push(extra ? sum + extra.net : sum);
    count.push(extra ? n + extra.count : n);
  }
  return { net, count };
}

/** An account-month of the derived totals with the part adjusting entries make. */
export interface AccountMonth extends MonthTotal {
  adjNet: bigint;
  adjCount: number;
}

/** Per account, the lines of a cut's month up to the cut (all, and adjusting). */
export type PartialSums = Map<
  string,
  Map<number, { net: bigint; count: number; adjNet: bigint; adjCount: number }>
>;

/**
 * Every account's cumulative totals at each cut (sorted), and the adjusting entries' part of them,
 * from the account-months (each account's sorted by month) and the partial months of the cuts.
 */
export function accountCumulatives(
  byAccount: Iterable<[number, AccountMonth[]]>,
  partials: PartialSums,
  cuts: string[],
): { totals: Map<number, Cumulative>; adjusting: Map<number, Cumulative> } {
  const isPartial = (cut: string) => partials.has(cut);
  const totals = new Map<number, Cumulative>();
  const adjusting = new Map<number, Cumulative>();
  for (const [key, months] of byAccount) {
    const adj = months
      .filter((m) => m.adjCount !== 0)
      .map((m) => ({ month: m.month, net: m.adjNet, count: m.adjCount }));
    const p = (cut: string) => partials.get(cut)?.get(key);
    totals.set(key, cumulate(months, cuts, p, isPartial));
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

/** The cut dates a report over these columns needs, sorted and distinct. */
export function sortedCuts(dates: Iterable<string>): string[] {
  return [...new Set(dates)].sort();
}

/** A month's sum, kept as a number while exact, as written: refused past what a store keeps. */
const sumOf = (t: { net: number; big: bigint }): bigint =>
  t.big === 0n ? BigInt(t.net) : storableTotal(t.big + BigInt(t.net));

/** Sums of (account, month) net atoms and line counts, added up exactly in memory. */
export class MonthTotals {
  // By account key, then month: numbers as keys, so adding a line builds no key string.
  private readonly map = new Map<
    number,
    Map<string, { net: number; big: bigint; count: number }>
  >();

  add(account: number, month: string, net: number): void {
    let months = this.map.get(account);
    if (!months) this.map.set(account, (months = new Map()));
    const cur = months.get(month);
    if (!cur) months.set(month, { net, big: 0n, count: 1 });
    else {
      cur.count++;
      // A number holds the sum exactly while it stays below 2^53; beyond, it moves to the bigint.
      const sum = cur.net + net;
      if (Number.isSafeInteger(sum)) cur.net = sum;
      else {
        cur.big += BigInt(cur.net) + BigInt(net);
        cur.net = 0;
      }
    }
  }

  *entries(): IterableIterator<[number, string, bigint, number]> {
    for (const [account, months] of this.map)
      for (const [month, t] of months) yield [account, month, sumOf(t), t.count];
  }

  /** One account-month's sum and count, or undefined when nothing was added to it. */
  get(account: number, month: string): [bigint, number] | undefined {
    const t = this.map.get(account)?.get(month);
    return t && [sumOf(t), t.count];
  }

  clear(): void {
    this.map.clear();
  }
}

/**
 * What an entry adds to the derived monthly totals: each line's debit (positive) or credit (negative)
 * to its account's month, and the same again to the adjusting part when the entry is adjusting.
 */
export function addEntryTotals(
  totals: MonthTotals,
  adjusting: MonthTotals,
  entry: {
    entry_date: string;
    is_adjusting: boolean;
    lines: { account: { key: number }; line_type: 'debit' | 'credit'; amount_atoms: number }[];
  },
): void {
  const month = entry.entry_date.slice(0, 7);
  for (const l of entry.lines) {
    const net = l.line_type === 'debit' ? l.amount_atoms : -l.amount_atoms;
    totals.add(l.account.key, month, net);
    if (entry.is_adjusting) adjusting.add(l.account.key, month, net);
  }
}
