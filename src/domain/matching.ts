import { dayNumber } from './dates.js';
import { FlowNetwork, UNBOUNDED } from './minCostFlow.js';

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
      const parts = new Component(c, statement, ledger, sDays, lDays, window);
      for (const [a, b] of parts.solve())
        pairs.push({
          statement: c.s[a]!,
          ledger: c.l[b]!,
          days: Math.abs(sDays[c.s[a]!]! - lDays[c.l[b]!]!),
        });
    }
  }
  return pairs.sort((x, y) => x.statement - y.statement);
}

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

/**
 * A kind of tie and the lines that have it: every pair of its statement and ledger lines has the
 * tie (a reference found, a name found, both) or, for the kind of no tie, every pair at all.
 */
interface Kind {
  /** What a pair through this kind's hubs costs besides its days. */
  tie: number;
  s: number[];
  l: number[];
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

/**
 * The network: source → a node per set of alike statement lines (same day, same kinds) → that day's
 * hub of each of their kinds → the ledger side's hubs of the same kind within the window (at days·w
 * + the kind's tie) → a node per set of alike ledger lines → sink.
 */
class TieNetwork {
  private readonly g = new FlowNetwork();
  private readonly source = this.g.addNode();
  private readonly sink = this.g.addNode();

  constructor(
    private readonly sDay: number[],
    private readonly lDay: number[],
    private readonly window: number,
    private readonly w: number,
    private readonly kinds: Kind[],
  ) {}

  solve(): [number, number][] {
    const sSets = alike(this.sDay, this.kinds, 's');
    const lSets = alike(this.lDay, this.kinds, 'l');
    const sNode = sSets.map(() => this.g.addNode());
    const lNode = lSets.map(() => this.g.addNode());
    sSets.forEach((set, k) => this.g.addEdge(this.source, sNode[k]!, set.lines.length, 0));
    const sOfKind = setsOfKind(sSets);
    const lOfKind = setsOfKind(lSets);
    lSets.forEach((set, k) => this.g.addEdge(lNode[k]!, this.sink, set.lines.length, 0));
    this.kinds.forEach((kind, kn) => {
      const sHubs = new Map<number, number>();
      const lHubs = new Map<number, number>();
      // Edges from statement sets into this kind's day hubs, and from its hubs out to ledger sets.
      const inEdges: Route[] = [];
      const outEdges: Route[] = [];
      for (const k of sOfKind[kn] ?? []) {
        const day = sSets[k]!.day;
        const hub = getOrAdd(sHubs, day, () => this.g.addNode());
        inEdges.push({ e: this.g.addEdge(sNode[k]!, hub, UNBOUNDED, 0), from: k, to: day });
      }
      for (const k of lOfKind[kn] ?? []) {
        const day = lSets[k]!.day;
        const hub = getOrAdd(lHubs, day, () => this.g.addNode());
        outEdges.push({ e: this.g.addEdge(hub, lNode[k]!, UNBOUNDED, 0), from: day, to: k });
      }
      const lDays = [...lHubs.keys()].sort((x, y) => x - y);
      const hubEdges: Route[] = [];
      for (const [d, hub] of sHubs) {
        for (const d2 of within(lDays, d - this.window, d + this.window)) {
          const cost = Math.abs(d - d2) * this.w + kind.tie;
          hubEdges.push({
            e: this.g.addEdge(hub, lHubs.get(d2)!, UNBOUNDED, cost),
            from: d,
            to: d2,
          });
        }
      }
      this.routes.push({ inEdges, hubEdges, outEdges });
    });
    this.g.minCostMaxFlow(this.source, this.sink);
    return this.pairs(sSets, lSets);
  }

  private readonly routes: { inEdges: Route[]; hubEdges: Route[]; outEdges: Route[] }[] = [];

  /**
   * The flow as pairs of lines: per kind, each hub-to-hub edge's units join statement lines that
   * entered that day's hub with ledger lines that leave the other's (alike lines are taken in order).
   */
  private pairs(sSets: AlikeSet[], lSets: AlikeSet[]): [number, number][] {
    const sNext = sSets.map(() => 0);
    const lNext = lSets.map(() => 0);
    const out: [number, number][] = [];
    for (const r of this.routes) {
      const entering = new Map<number, number[]>();
      for (const e of r.inEdges)
        for (let f = this.g.flowOf(e.e); f > 0; f--)
          getOrAdd(entering, e.to, () => []).push(sSets[e.from]!.lines[sNext[e.from]!++]!);
      const leaving = new Map<number, number[]>();
      for (const e of r.outEdges)
        for (let f = this.g.flowOf(e.e); f > 0; f--)
          getOrAdd(leaving, e.from, () => []).push(lSets[e.to]!.lines[lNext[e.to]!++]!);
      for (const e of r.hubEdges)
        for (let f = this.g.flowOf(e.e); f > 0; f--)
          out.push([entering.get(e.from)!.shift()!, leaving.get(e.to)!.shift()!]);
    }
    return out;
  }
}

interface Route {
  e: number;
  from: number;
  to: number;
}

/** Lines of one side alike for the flow: the same day and the same kinds of tie. */
interface AlikeSet {
  day: number;
  kinds: number[];
  lines: number[];
}

function alike(days: number[], kinds: Kind[], side: 's' | 'l'): AlikeSet[] {
  const kindsOf: number[][] = days.map(() => []);
  kinds.forEach((k, kn) => {
    for (const i of k[side]) kindsOf[i]!.push(kn);
  });
  const sets = new Map<string, AlikeSet>();
  days.forEach((day, i) => {
    const key = `${day}:${kindsOf[i]!.join(',')}`;
    getOrAdd(sets, key, () => ({ day, kinds: kindsOf[i]!, lines: [] })).lines.push(i);
  });
  return [...sets.values()];
}

/** The sets that have each kind, by kind. */
function setsOfKind(sets: AlikeSet[]): number[][] {
  const out: number[][] = [];
  sets.forEach((set, k) => {
    for (const kn of set.kinds) (out[kn] ??= []).push(k);
  });
  return out;
}

/** The values of a sorted list from lo to hi. */
function within(sorted: number[], lo: number, hi: number): number[] {
  let a = 0;
  let b = sorted.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (sorted[mid]! < lo) a = mid + 1;
    else b = mid;
  }
  const out: number[] = [];
  for (let i = a; i < sorted.length && sorted[i]! <= hi; i++) out.push(sorted[i]!);
  return out;
}

function getOrAdd<K, V>(m: Map<K, V>, key: K, make: () => V): V {
  let v = m.get(key);
  if (v === undefined) m.set(key, (v = make()));
  return v;
}
