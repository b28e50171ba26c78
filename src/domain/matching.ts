import { dayNumber } from './dates.js';

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

/** How well a pair fits beyond its dates: 0 best, with the reference weighed above the name. */
function tieCosts(s: StatementSide, l: LedgerSide): { ref: number; name: number } {
  const ref = s.reference?.toLowerCase();
  const hasRef = ref ? l.texts.some((t) => t?.toLowerCase().includes(ref)) : false;
  const desc = s.description?.toLowerCase();
  const name = l.counterparty_name?.toLowerCase();
  const hasName = desc && name ? desc.includes(name) : false;
  return { ref: hasRef ? 0 : 1, name: hasName ? 0 : 1 };
}

/**
 * The best matching of statement lines with ledger lines of the same amount, dated at most `window`
 * days apart: the most pairs, then the least total of days, then the most references found, then the
 * most counterparty names found. A minimum-cost maximum flow per group of lines that could pair
 * (same amount, linked by dates), with each pair's cost days·M + (no reference)·(n+1) + (no name),
 * where M outweighs every sum of the two ties: so the order of the criteria is exact.
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
      const edges: Edge[] = [];
      const n = c.s.length;
      const m = (n + 1) * (n + 1);
      c.s.forEach((si, a) =>
        c.l.forEach((lj, b) => {
          const days = Math.abs(sDays[si]! - lDays[lj]!);
          if (days > window) return;
          const t = tieCosts(statement[si]!, ledger[lj]!);
          edges.push({ a, b, days, cost: days * m + t.ref * (n + 1) + t.name });
        }),
      );
      for (const e of minCostMatching(n, c.l.length, edges))
        pairs.push({ statement: c.s[e.a]!, ledger: c.l[e.b]!, days: e.days });
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

interface Edge {
  a: number;
  b: number;
  days: number;
  cost: number;
}

/**
 * A maximum matching of least cost in a bipartite graph (n left, k right nodes): successive shortest
 * augmenting paths with Dijkstra over reduced costs (Johnson's potentials), which is exact for
 * non-negative costs and yields the cheapest matching of each size in turn.
 */
export function minCostMatching(n: number, k: number, edges: Edge[]): Edge[] {
  const adj: number[][] = Array.from({ length: n }, () => []);
  edges.forEach((e, i) => adj[e.a]!.push(i));
  const matchL = new Array<number>(n).fill(-1);
  const matchR = new Array<number>(k).fill(-1);
  const potL = new Array<number>(n).fill(0);
  const potR = new Array<number>(k).fill(0);
  for (;;) {
    const path = shortestPath(n, k, edges, adj, matchL, matchR, potL, potR);
    if (!path) break;
    const { distR, prevEdge, target, distL } = path;
    // Potentials keep reduced costs non-negative for the next round.
    for (let a = 0; a < n; a++) potL[a] = potL[a]! + distL[a]!;
    for (let b = 0; b < k; b++) potR[b] = potR[b]! + distR[b]!;
    let b = target;
    for (;;) {
      const e = edges[prevEdge[b]!]!;
      const before = matchL[e.a]!;
      matchL[e.a] = prevEdge[b]!;
      matchR[b] = prevEdge[b]!;
      if (before === -1) break;
      b = edges[before]!.b;
    }
  }
  return matchL.filter((i) => i !== -1).map((i) => edges[i]!);
}

/** The cheapest path (in reduced costs) from any free left node to a free right node, or null. */
function shortestPath(
  n: number,
  k: number,
  edges: Edge[],
  adj: number[][],
  matchL: number[],
  matchR: number[],
  potL: number[],
  potR: number[],
) {
  const distL = new Array<number>(n).fill(Infinity);
  const distR = new Array<number>(k).fill(Infinity);
  const prevEdge = new Array<number>(k).fill(-1);
  const heap = new Heap();
  for (let a = 0; a < n; a++)
    if (matchL[a] === -1) {
      distL[a] = 0;
      heap.push(0, a);
    }
  let best = -1;
  while (heap.size) {
    const [d, a] = heap.pop();
    if (d > distL[a]!) continue;
    for (const ei of adj[a]!) {
      if (matchL[a] === ei) continue;
      const e = edges[ei]!;
      const nd = d + e.cost + potL[a]! - potR[e.b]!;
      if (nd >= distR[e.b]!) continue;
      distR[e.b] = nd;
      prevEdge[e.b] = ei;
      const back = matchR[e.b]!;
      if (back === -1) {
        if (best === -1 || nd < distR[best]!) best = e.b;
        continue;
      }
      // Through the matched edge back to its left node: reduced cost zero on a tight edge.
      const la = edges[back]!.a;
      const ld = nd - edges[back]!.cost + potR[e.b]! - potL[la]!;
      if (ld < distL[la]!) {
        distL[la] = ld;
        heap.push(ld, la);
      }
    }
  }
  if (best === -1) return null;
  // Nodes beyond the path's length keep their potential differences valid when capped at it.
  const cap = distR[best]!;
  for (let a = 0; a < n; a++) distL[a] = Math.min(distL[a]!, cap);
  for (let b = 0; b < k; b++) distR[b] = Math.min(distR[b]!, cap);
  return { distL, distR, prevEdge, target: best };
}

/** A binary heap of (distance, node), smallest distance first. */
class Heap {
  private readonly d: number[] = [];
  private readonly v: number[] = [];
  get size(): number {
    return this.d.length;
  }
  push(d: number, v: number): void {
    let i = this.d.length;
    this.d.push(d);
    this.v.push(v);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.d[p]! <= d) break;
      this.d[i] = this.d[p]!;
      this.v[i] = this.v[p]!;
      i = p;
    }
    this.d[i] = d;
    this.v[i] = v;
  }
  pop(): [number, number] {
    const top: [number, number] = [this.d[0]!, this.v[0]!];
    const d = this.d.pop()!;
    const v = this.v.pop()!;
    const n = this.d.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.d[c + 1]! < this.d[c]!) c++;
      if (this.d[c]! >= d) break;
      this.d[i] = this.d[c]!;
      this.v[i] = this.v[c]!;
      i = c;
    }
    this.d[i] = d;
    this.v[i] = v;
    return top;
  }
}
