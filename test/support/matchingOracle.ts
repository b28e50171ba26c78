import { dayNumber } from '../../src/domain/dates.js';
import type { LedgerSide, StatementSide } from '../../src/domain/matching.js';

/**
 * The test's own best matching, written apart from the ledger's: the Hungarian method over the
 * dense matrix of every statement line against every ledger line (O(n³): tens of lines, not
 * thousands). A pair costs days·M + (no reference)·(n+1) + (no name); a line left unpaired costs
 * more than any whole matching, so the most pairs come first, then the fewest days, then the ties.
 * Returns the pairs as [statement, ledger] indexes.
 */
export function hungarianMatching(
  s: readonly StatementSide[],
  l: readonly LedgerSide[],
  window: number,
): [number, number][] {
  const n = s.length;
  const size = n + l.length;
  const m = (n + 1) * (n + 1);
  const unpaired = 400 * m * (size + 1);
  // Rows: the statement lines, then one dummy per ledger line; columns: the ledger lines, then one
  // dummy per statement line. A dummy pairs with anything at the cost of a line left unpaired.
  const cost = (i: number, j: number): number => {
    if (i >= n || j >= l.length) return i >= n && j >= l.length ? 0 : unpaired;
    const a = s[i]!;
    const b = l[j]!;
    const days = Math.abs(dayNumber(a.date) - dayNumber(b.date));
    if (a.amount !== b.amount || days > window) return 3 * unpaired;
    const ref = a.reference?.toLowerCase();
    const hasRef = !!ref && b.texts.some((t) => t?.toLowerCase().includes(ref));
    const name = b.counterparty_name?.toLowerCase();
    const hasName = !!name && !!a.description?.toLowerCase().includes(name);
    return days * m + (hasRef ? 0 : n + 1) + (hasName ? 0 : 1);
  };
  // The classic shortest-augmenting-path form (potentials u, v; p[j] the row matched to column j).
  const u = new Array<number>(size + 1).fill(0);
  const v = new Array<number>(size + 1).fill(0);
  const p = new Array<number>(size + 1).fill(0);
  const way = new Array<number>(size + 1).fill(0);
  for (let i = 1; i <= size; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Array<number>(size + 1).fill(Infinity);
    const used = new Array<boolean>(size + 1).fill(false);
    do {
      used[j0] = true;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= size; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= size; j++) {
        if (used[j]) {
          u[p[j]!] = u[p[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else minv[j] = minv[j]! - delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const pairs: [number, number][] = [];
  for (let j = 1; j <= l.length; j++) {
    const i = p[j]! - 1;
    if (i >= 0 && i < n && cost(i, j - 1) < unpaired) pairs.push([i, j - 1]);
  }
  return pairs;
}
