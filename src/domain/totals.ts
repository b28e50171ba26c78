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

/** The cut dates a report over these columns needs, sorted and distinct. */
export function sortedCuts(dates: Iterable<string>): string[] {
  return [...new Set(dates)].sort();
}
