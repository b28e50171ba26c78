import { ACCOUNT_TYPES } from './accounts.js';
import type { ChartShape } from './chart.js';

/** A problem of a chart's tree: an account whose parent is missing, in another section, or a cycle. */
export interface TreeProblem {
  external_id: string;
  parent: string;
  reason: 'unknown_parent' | 'section_mismatch' | 'parent_cycle' | 'too_deep';
  message: string;
}

/**
 * Every problem of a chart's tree: a parent that does not exist, a child whose section (assets,
 * liabilities, equity, profit and loss) is not its parent's, and an account that is its own ancestor.
 * A report would hide what such a chart holds, so neither an import nor `books check` lets one pass.
 * Nor a chart nested deeper than MAX_CHART_DEPTH levels: none is, and reports walk the tree.
 */
export function treeProblems(accounts: ChartShape[]): TreeProblem[] {
  const byId = new Map(accounts.map((a) => [a.external_id, a]));
  const out: TreeProblem[] = [];
  out.push(...tooDeep(accounts, byId));
  for (const a of accounts) {
    const parentId = a.parent_external_id;
    if (!parentId) continue;
    const parent = byId.get(parentId);
    const base = { external_id: a.external_id, parent: parentId };
    if (!parent) {
      out.push({
        ...base,
        reason: 'unknown_parent',
        message: `no account '${parentId}' in the file or the ledger`,
      });
      continue;
    }
    if (ACCOUNT_TYPES[parent.account_type].section !== ACCOUNT_TYPES[a.account_type].section) {
      const message =
        `${a.account_type} account '${a.external_id}' cannot sit under ` +
        `${parent.account_type} account '${parentId}'`;
      out.push({ ...base, reason: 'section_mismatch', message });
    }
    // Only the accounts on a cycle report it; one that merely hangs below a cycle stops at it.
    const seen = new Set<string>();
    for (
      let p: string | null = parentId;
      p && !seen.has(p);
      p = byId.get(p)?.parent_external_id ?? null
    ) {
      if (p === a.external_id) {
        out.push({
          ...base,
          reason: 'parent_cycle',
          message: `'${a.external_id}' is its own ancestor through '${parentId}'`,
        });
        break;
      }
      seen.add(p);
    }
  }
  return out;
}

/** How deep a chart may nest: a parent's child is level 2, its child 3, and so on. */
export const MAX_CHART_DEPTH = 50;

/** The accounts deeper than MAX_CHART_DEPTH (each level counted once, cycles left to their rule). */
function tooDeep(accounts: ChartShape[], byId: Map<string, ChartShape>): TreeProblem[] {
  const depth = new Map<string, number>();
  const levelOf = (a: ChartShape): number => {
    const chain: ChartShape[] = [];
    const seen = new Set<string>();
    let at: ChartShape | undefined = a;
    // Up to an account whose level is known, or the root; a cycle stops the walk.
    while (at && !depth.has(at.external_id) && !seen.has(at.external_id)) {
      seen.add(at.external_id);
      chain.push(at);
      at = at.parent_external_id ? byId.get(at.parent_external_id) : undefined;
    }
    // On a cycle the depth has no meaning: the cycle is refused by its own rule.
    const cyclic = at !== undefined && seen.has(at.external_id);
    let level = at && depth.has(at.external_id) ? depth.get(at.external_id)! : 0;
    for (const c of chain.reverse()) depth.set(c.external_id, cyclic ? 0 : ++level);
    return depth.get(a.external_id)!;
  };
  return accounts
    .filter((a) => levelOf(a) > MAX_CHART_DEPTH)
    .map((a) => ({
      external_id: a.external_id,
      parent: a.parent_external_id ?? '',
      reason: 'too_deep' as const,
      message:
        `'${a.external_id}' sits ${depth.get(a.external_id)} levels deep; ` +
        `a chart nests at most ${MAX_CHART_DEPTH}`,
    }));
}
