import { dayNumber } from './dates.js';
import { TieNetwork, type Kind } from './matchingNetwork.js';

/** A statement line as matching reads it. */
export interface MatchSide {
  date: string;
  amount: number;
}

export interface StatementSide extends MatchSide {
  reference: string | null;
  description: string | null;
}

export interface LedgerSide extends MatchSide {
  /** JE number, memo and line memo: where a statement's reference may appear. */
  texts: (string | null)[];
  counterparty_name: string | null;
}

/** One pair of the matching: indexes into the two lists, and the days between their dates. */
export interface Pair {
  statement: number;
  ledger: number;
  days: number;
}

/**
 * Past this many statement lines in one group, the ties (references, names) are not weighed: the
 * costs that rank them would pass 2^53. The most pairs and the least days are still exact.
 */
const MAX_WEIGHED = 20_000;

/**
 * The best matching of statement lines with ledger lines of the same amount, dated at most `window`
 * days apart: the most pairs, then the least total of days, then the most references found, then the
 * most counterparty names found. A minimum-cost maximum flow per group of lines that could pair
 * (same amount, linked by dates), where a pair costs days·M + (no reference)·(n+1) + (no name) and M
 * outweighs every sum of the two ties: so the order of the criteria is exact.
 *
 * The flow does not run over every pair, which is n² edges for n lines of one amount in one week
 * (a card's coffees, a subscription's payments): lines are joined through hubs, one per day and per
 * kind of tie (a reference, a name, both, or neither), so that lines alike (same day, same ties)
 * become one node with a capacity and the network grows with the days and the ties, not with the
 * pairs. A pair that has a reference or a name in common is reached through that tie's hubs at its
 * lower cost, and every pair through the hubs of no tie at the full cost: the cheapest flow is the
 * cheapest matching.
 */
export function bestMatching(
  statement: readonly StatementSide[],
  ledger: readonly LedgerSide[],
  window: number,
): Pair[] {
  const sDays = statement.map((s) => dayNumber(s.date));
  const lDays = ledger.map((l) => dayNumber(l.date));
  const byAmount = new Map<number, { s: number[]; l: number[] }>();
  statement.forEach((s, i) => group(byAmount, s.amount).s.push(i));
  ledger.forEach((l, j) => group(byAmount, l.amount).l.push(j));
  const pairs: Pair[] = [];
  for (const g of byAmount.values()) {
    if (g.s.length === 0 || g.l.length === 0) continue;
    for (const c of components(g, sDays, lDays, window)) {
      const solved =
        c.s.length === 1 || c.l.length === 1
          ? onePair(c, statement, ledger, sDays, lDays, window)
          : new Component(c, statement, ledger, sDays, lDays, window).solve();
      for (const [a, b] of solved)
        pairs.push({
          statement: c.s[a]!,
          ledger: c.l[b]!,
          days: Math.abs(sDays[c.s[a]!]! - lDays[c.l[b]!]!),
        });
    }
  }
  return pairs.sort((x, y) => x.statement - y.statement);
}

/**
 * A group with one line on a side (most are: amounts seldom repeat within a week) pairs it with the
 * best line of the other side, if one is within the window: no network needed.
 */
function onePair(
  c: { s: number[]; l: number[] },
  statement: readonly StatementSide[],
  ledger: readonly LedgerSide[],
  sDays: number[],
  lDays: number[],
  window: number,
): [number, number][] {
  let best: [number, number] | null = null;
  let bestCost: [number, number, number] = [Infinity, 0, 0];
  c.s.forEach((si, a) =>
    c.l.forEach((lj, b) => {
      const days = Math.abs(sDays[si]! - lDays[lj]!);
      if (days > window || days > bestCost[0]) return;
      const s = statement[si]!;
      const l = ledger[lj]!;
      const ref = s.reference?.toLowerCase();
      const noRef = ref && l.texts.some((t) => t?.toLowerCase().includes(ref)) ? 0 : 1;
      const name = l.counterparty_name?.toLowerCase();
      const noName = name && s.description?.toLowerCase().includes(name) ? 0 : 1;
      const cost: [number, number, number] = [days, noRef, noName];
      if (!best || compare(cost, bestCost) < 0) {
        best = [a, b];
        bestCost = cost;
      }
    }),
  );
  return best ? [best] : [];
}

const compare = (x: number[], y: number[]) => x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;

function group(m: Map<number, { s: number[]; l: number[] }>, amount: number) {
  let g = m.get(amount);
  if (!g) m.set(amount, (g = { s: [], l: [] }));
  return g;
}

/**
 * Splits a group of one amount into the parts that cannot share a pair: sorted by date, a part ends
 * where the next line is more than `window` days after every line of it.
 */
function components(
  g: { s: number[]; l: number[] },
  sDays: number[],
  lDays: number[],
  window: number,
): { s: number[]; l: number[] }[] {
  const all = [
    ...g.s.map((i) => ({ side: 's' as const, i, day: sDays[i]! })),
    ...g.l.map((i) => ({ side: 'l' as const, i, day: lDays[i]! })),
  ].sort((x, y) => x.day - y.day);
  const out: { s: number[]; l: number[] }[] = [];
  let cur = { s: [] as number[], l: [] as number[] };
  let reach = -Infinity;
  for (const x of all) {
    if (x.day > reach && (cur.s.length || cur.l.length)) {
      if (cur.s.length && cur.l.length) out.push(cur);
      cur = { s: [], l: [] };
    }
    cur[x.side].push(x.i);
    reach = Math.max(reach, x.day + window);
  }
  if (cur.s.length && cur.l.length) out.push(cur);
  return out;
}

/** One group of lines that can pair with each other, as a flow network. */
class Component {
  private readonly n: number;
  private readonly m: number;
  private readonly sDay: number[];
  private readonly lDay: number[];

  constructor(
    c: { s: number[]; l: number[] },
    private readonly statement: readonly StatementSide[],
    private readonly ledger: readonly LedgerSide[],
    sDays: number[],
    lDays: number[],
    private readonly window: number,
  ) {
    this.n = c.s.length;
    this.m = c.l.length;
    this.sDay = c.s.map((i) => sDays[i]!);
    this.lDay = c.l.map((j) => lDays[j]!);
    this.sIdx = c.s;
    this.lIdx = c.l;
  }

  private readonly sIdx: number[];
  private readonly lIdx: number[];

  /** The pairs of the best matching, as indexes into the component's two lists. */
  solve(): [number, number][] {
    const weighed = this.n <= MAX_WEIGHED;
    const w = weighed ? (this.n + 1) * (this.n + 1) : 1;
    const kinds = weighed ? this.kinds() : [];
    kinds.unshift({
      tie: weighed ? this.n + 2 : 0,
      s: [...Array(this.n).keys()],
      l: [...Array(this.m).keys()],
    });
    return new TieNetwork(this.sDay, this.lDay, this.window, w, kinds).solve();
  }

  /** The kinds of tie these lines have: by reference, by name, and by both. */
  private kinds(): Kind[] {
    const refOf = this.sIdx.map((i) => this.statement[i]!.reference?.toLowerCase() || null);
    const descs = this.sIdx.map((i) => this.statement[i]!.description?.toLowerCase() ?? '');
    const names = this.lIdx.map((j) => this.ledger[j]!.counterparty_name?.toLowerCase() || null);
    const texts = new Haystack(
      this.lIdx.map((j) => this.ledger[j]!.texts.map((t) => t?.toLowerCase() ?? '')),
    );
    const described = new Haystack(descs.map((d) => [d]));
    // Which ledger lines hold each reference, and which statement lines name each name.
    const byRef = new Map<string, number[]>();
    for (const r of new Set(refOf)) if (r) byRef.set(r, texts.holding(r));
    const byName = new Map<string, number[]>();
    for (const name of new Set(names)) if (name) byName.set(name, described.holding(name));
    const kinds: Kind[] = [];
    const add = (tie: number, s: number[], l: number[]) => {
      if (s.length && l.length) kinds.push({ tie, s, l });
    };
    const linesNamed = groupBy(names);
    const refLines = groupBy(refOf);
    for (const [r, ls] of byRef) add(1, refLines.get(r)!, ls);
    for (const [name, ss] of byName) add(this.n + 1, ss, linesNamed.get(name)!);
    // Both: a reference's lines of one name, with the statement lines of that reference naming it.
    for (const [r, ls] of byRef) {
      const ss = new Set(refLines.get(r)!);
      for (const [name, named] of groupBy(ls.map((b) => names[b]!)).entries()) {
        if (!name) continue;
        add(
          0,
          byName.get(name)!.filter((a) => ss.has(a)),
          named.map((k) => ls[k]!),
        );
      }
    }
    return kinds;
  }
}

/**
 * Texts searched joined (one scan per needle, not one per text): which of them contain a needle.
 * A needle with the joining characters in it is looked for text by text.
 */
class Haystack {
  private readonly starts: number[] = [];
  private readonly hay: string;

  constructor(private readonly texts: string[][]) {
    let hay = '';
    for (const t of texts) {
      this.starts.push(hay.length);
      hay += t.join('\u0001') + '\u0000';
    }
    this.hay = hay;
  }

  holding(needle: string): number[] {
    if (needle.includes('\u0000') || needle.includes('\u0001'))
      return this.texts.flatMap((t, i) => (t.some((x) => x.includes(needle)) ? [i] : []));
    const out: number[] = [];
    let k = 0;
    for (let at = this.hay.indexOf(needle); at !== -1;) {
      while (k + 1 < this.starts.length && this.starts[k + 1]! <= at) k++;
      out.push(k);
      if (k + 1 >= this.starts.length) break;
      at = this.hay.indexOf(needle, this.starts[k + 1]!);
    }
    return out;
  }
}

/** Indexes by value (null values left out). */
function groupBy(values: (string | null)[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  values.forEach((v, i) => {
    if (v === null) return;
    let list = m.get(v);
    if (!list) m.set(v, (list = []));
    list.push(i);
  });
  return m;
}
