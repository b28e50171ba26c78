import { FlowNetwork, UNBOUNDED } from './minCostFlow.js';

/**
 * A kind of tie and the lines that have it: every pair of its statement and ledger lines has the
 * tie (a reference found, a name found, both) or, for the kind of no tie, every pair at all.
 */
export interface Kind {
  /** What a pair through this kind's hubs costs besides its days. */
  tie: number;
  s: number[];
  l: number[];
}

/**
 * The network: source → a node per set of alike statement lines (same day, same kinds) → that day's
 * hub of each of their kinds → the ledger side's hubs of the same kind within the window (at days·w
 * + the kind's tie) → a node per set of alike ledger lines → sink.
 */
export class TieNetwork {
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
