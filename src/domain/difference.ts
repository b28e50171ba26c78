/**
 * What may explain a reconciliation's difference (statement balance − cleared balance): a ledger
 * line not yet ticked, or a bank-only statement line not yet entered, whose amount (in the account's
 * sign) is the difference, or two of them whose amounts add up to it. Each found once, the nearest
 * to the statement date first, at most `max` of each kind.
 */
export interface Candidate {
  /** `JE-12:2` for a ledger line, the statement line's id for a statement line. */
  name: string;
  kind: 'ledger' | 'statement';
  date: string;
  amount_atoms: number;
  description: string | null;
}

export function explainDifference(
  difference: bigint,
  items: Candidate[],
  max = 5,
): { singles: Candidate[]; pairs: [Candidate, Candidate][] } {
  const nearest = [...items].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  const singles = nearest.filter((c) => BigInt(c.amount_atoms) === difference).slice(0, max);
  const pairs: [Candidate, Candidate][] = [];
  // One pass with the amounts seen so far: pairs in time linear in the lines.
  const seen = new Map<bigint, Candidate>();
  for (const c of nearest) {
    if (pairs.length >= max) break;
    const other = seen.get(difference - BigInt(c.amount_atoms));
    if (other) pairs.push([other, c]);
    if (!seen.has(BigInt(c.amount_atoms))) seen.set(BigInt(c.amount_atoms), c);
  }
  return { singles, pairs };
}

/** The candidates, said in a sentence for the refusal's message (empty when there are none). */
export function candidatesSaid(
  found: { singles: Candidate[]; pairs: [Candidate, Candidate][] },
  money: (atoms: number) => string,
): string {
  const one = (c: Candidate) =>
    `${c.name} (${c.date}, ${money(c.amount_atoms)}${c.description ? `, ${c.description}` : ''})`;
  const said = [
    ...found.singles.map(one),
    ...found.pairs.map(([a, b]) => `${one(a)} and ${one(b)}`),
  ];
  return said.length ? `; what would make the difference: ${said.join('; or ')}` : '';
}
