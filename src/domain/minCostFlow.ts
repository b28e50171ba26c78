/** A capacity no path exhausts: edges between groups of lines. */
export const UNBOUNDED = 2 ** 30;

/**
 * A network for a minimum-cost maximum flow, with non-negative costs. Edges come in pairs: an edge
 * `e` and its residual twin `e ^ 1`. Costs and distances are integers below 2^53 (the caller keeps
 * them so), hence exact as numbers.
 */
export class FlowNetwork {
  private readonly head: number[] = [];
  private readonly next: number[] = [];
  private readonly to: number[] = [];
  private readonly cap: number[] = [];
  private readonly cost: number[] = [];

  get nodes(): number {
    return this.head.length;
  }

  addNode(): number {
    this.head.push(-1);
    return this.head.length - 1;
  }

  /** An edge from u to v; its index, whose flow `flowOf` reads after a run. */
  addEdge(u: number, v: number, capacity: number, cost: number): number {
    const e = this.to.length;
    this.link(u, v, capacity, cost);
    this.link(v, u, 0, -cost);
    return e;
  }

  flowOf(e: number): number {
    return this.cap[e ^ 1]!;
  }

  private link(u: number, v: number, capacity: number, cost: number): void {
    this.to.push(v);
    this.cap.push(capacity);
    this.cost.push(cost);
    this.next.push(this.head[u]!);
    this.head[u] = this.to.length - 1;
  }

  /**
   * The most flow from s to t, at the least cost among flows that large: the primal-dual method.
   * Dijkstra over reduced costs gives every node its distance (Johnson's potentials keep reduced
   * costs non-negative); then flow is pushed along every path of zero reduced cost at once (Dinic's
   * blocking flows), so a phase serves all the paths of one length, not one path. A node that
   * Dijkstra cannot reach never becomes reachable (new residual edges join reached nodes), so its
   * potential is never read again.
   */
  minCostMaxFlow(s: number, t: number): number {
    const n = this.nodes;
    const h = new Float64Array(n);
    const dist = new Float64Array(n);
    let flow = 0;
    for (;;) {
      this.dijkstra(s, h, dist);
      if (dist[t] === Infinity) return flow;
      for (let v = 0; v < n; v++) if (dist[v] !== Infinity) h[v] = h[v]! + dist[v]!;
      for (;;) {
        const level = this.levels(s, h, dist);
        if (level[t] === -1) break;
        const it = this.head.slice();
        for (let f = this.augment(s, t, h, dist, level, it); f > 0;) {
          flow += f;
          f = this.augment(s, t, h, dist, level, it);
        }
      }
    }
  }

  /** Reduced cost zero, residual capacity, both ends reached in this phase. */
  private admissible(e: number, u: number, h: Float64Array, dist: Float64Array): boolean {
    const v = this.to[e]!;
    return this.cap[e]! > 0 && dist[v] !== Infinity && this.cost[e]! + h[u]! - h[v]! === 0;
  }

  private dijkstra(s: number, h: Float64Array, dist: Float64Array): void {
    dist.fill(Infinity);
    dist[s] = 0;
    const heap = new Heap();
    heap.push(0, s);
    while (heap.size) {
      const [d, u] = heap.pop();
      if (d > dist[u]!) continue;
      for (let e = this.head[u]!; e !== -1; e = this.next[e]!) {
        if (this.cap[e]! <= 0) continue;
        const v = this.to[e]!;
        const nd = d + this.cost[e]! + h[u]! - h[v]!;
        if (nd < dist[v]!) {
          dist[v] = nd;
          heap.push(nd, v);
        }
      }
    }
  }

  /** Breadth-first levels over admissible edges (-1: not reached), for blocking flows. */
  private levels(s: number, h: Float64Array, dist: Float64Array): Int32Array {
    const level = new Int32Array(this.nodes).fill(-1);
    level[s] = 0;
    const queue = [s];
    for (let q = 0; q < queue.length; q++) {
      const u = queue[q]!;
      for (let e = this.head[u]!; e !== -1; e = this.next[e]!) {
        const v = this.to[e]!;
        if (level[v] !== -1 || !this.admissible(e, u, h, dist)) continue;
        level[v] = level[u]! + 1;
        queue.push(v);
      }
    }
    return level;
  }

  /** One path of the level graph from s to t, its bottleneck pushed; 0 when there is none. */
  private augment(
    s: number,
    t: number,
    h: Float64Array,
    dist: Float64Array,
    level: Int32Array,
    it: number[],
  ): number {
    const path: number[] = [];
    let u = s;
    for (;;) {
      if (u === t) {
        let f = Infinity;
        for (const e of path) f = Math.min(f, this.cap[e]!);
        for (const e of path) {
          this.cap[e] = this.cap[e]! - f;
          this.cap[e ^ 1] = this.cap[e ^ 1]! + f;
        }
        return f;
      }
      let e = it[u]!;
      while (e !== -1) {
        const v = this.to[e]!;
        if (level[v] === level[u]! + 1 && this.admissible(e, u, h, dist)) break;
        e = it[u] = this.next[e]!;
      }
      if (e !== -1) {
        path.push(e);
        u = this.to[e]!;
        continue;
      }
      // A dead end: no path through u in this level graph.
      if (u === s) return 0;
      level[u] = -1;
      const back = path.pop()!;
      u = this.to[back ^ 1]!;
      it[u] = this.next[it[u]!]!;
    }
  }
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
