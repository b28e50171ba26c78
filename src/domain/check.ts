import type { Problem } from './errors.js';

/**
 * `books check`'s reasons, whatever store found them: each invariant a ledger relies on, and the
 * problem that names what breaks it. The store reads the facts (entries whose sums disagree, totals
 * that drift from the lines); the words and reasons are these, the same on every store.
 */

/** An entry whose lines do not balance, or disagree with its recorded total or line count. */
export function unbalancedEntry(u: {
  je_number: string;
  d: number | bigint;
  c: number | bigint;
  total_atoms: number | bigint;
  n: number;
  line_count: number;
}): Problem {
  const message =
    `${u.je_number}: debits ${u.d}, credits ${u.c}, recorded total ${u.total_atoms}, ` +
    `${u.n} lines (recorded ${u.line_count})`;
  return { path: u.je_number, reason: 'unbalanced', message };
}

/** A line with a side or amount no entry may have, or a date other than its entry's. */
export function invalidLine(jeNumber: string, lineNo: number): Problem {
  return {
    path: `${jeNumber}.lines[${lineNo - 1}]`,
    reason: 'invalid_line',
    message: `${jeNumber} line ${lineNo} has an invalid side or amount, or another date than its entry`,
  };
}

/** One account-month whose derived totals are not what its lines add up to (null: absent). */
export interface TotalsDrift {
  external_id: string;
  month: string;
  /** From the lines: net, count, and the adjusting part's net and count. */
  net: number | bigint | null;
  n: number | null;
  adj_net: number | bigint | null;
  adj_n: number | null;
  /** As the derived totals hold them. */
  tnet: number | bigint | null;
  tn: number | null;
  tadj_net: number | bigint | null;
  tadj_n: number | null;
}

export function totalsDrift(d: TotalsDrift): Problem {
  const message =
    `derived total for account '${d.external_id}' in ${d.month} is ${d.tnet ?? 'missing'} atoms over ` +
    `${d.tn ?? 0} lines (adjusting ${d.tadj_net ?? 0} over ${d.tadj_n ?? 0}); the lines say ${d.net ?? 0} ` +
    `over ${d.n ?? 0} (adjusting ${d.adj_net ?? 0} over ${d.adj_n ?? 0})`;
  return {
    path: `account_month_totals[${d.external_id}, ${d.month}]`,
    reason: 'derived_mismatch',
    message,
  };
}

/** A derived structure (an index of lines) that does not hold what the lines say; rebuild mends it. */
export function derivedStructure(path: string, what: string): Problem {
  return { path, reason: 'derived_mismatch', message: `${what}; books rebuild rebuilds it` };
}

/** An entry marked reversed that no entry reverses. */
export function brokenReversal(jeNumber: string): Problem {
  return {
    path: jeNumber,
    reason: 'reversal_link',
    message: `${jeNumber} is marked reversed but no entry reverses it`,
  };
}
