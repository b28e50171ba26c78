import { bestMatching, type Pair } from '../../domain/matching.js';
import { reconcileRefused, type ReconLine } from '../../domain/reconcile.js';
import type { ReconAccount } from './lines.js';
import type { StatementLineRow } from './store.js';
import { callOnThread } from '../runtime/threads.js';

/** What an automatic match reads: the account, its unmatched statement lines, its candidates. */
export interface MatchView {
  acct: ReconAccount;
  open: StatementLineRow[];
  ledger: ReconLine[];
}

/** The same lines on both sides, in the same order: a matching worked out on one fits the other. */
export function sameView(a: MatchView, b: MatchView): boolean {
  const ids = (v: MatchView) => [
    ...v.open.map((l) => `${l.id}:${l.line_date}:${l.amount_atoms}`),
    '|',
    ...v.ledger.map((l) => l.line_id),
  ];
  const x = ids(a);
  const y = ids(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** The most an automatic match may take: past it the statement is too large to match at once. */
const MATCH_TIME_MS = 30_000;

/**
 * Up to how many same-amount pairs a match is worked out in place: a few milliseconds, less than
 * starting a thread. Pairs in groups of one amount with two lines or more on both sides go through
 * a network, whose ties (references, names) may cost each a search: those count far less.
 */
const IN_PLACE = { pairs: 20_000, networked: 2_000 };

/** The same-amount pairs of the lines, and those in groups a network solves: what the work grows with. */
function pairsToWeigh(
  open: { amount_atoms: number }[],
  ledger: { amount_atoms: number }[],
): { pairs: number; networked: number } {
  const count = (lines: { amount_atoms: number }[]) => {
    const m = new Map<number, number>();
    for (const l of lines) m.set(l.amount_atoms, (m.get(l.amount_atoms) ?? 0) + 1);
    return m;
  };
  const [s, l] = [count(open), count(ledger)];
  let pairs = 0;
  let networked = 0;
  for (const [amount, n] of s) {
    const k = l.get(amount) ?? 0;
    pairs += n * k;
    if (n > 1 && k > 1) networked += n * k;
  }
  return { pairs, networked };
}

/**
 * The best matching of a view's lines: in place when it is small, else on a thread of the pool
 * (ledger/runtime/threads.ts), so that a server goes on answering meanwhile.
 */
export async function pairsOnThread(
  owner: object,
  { open, ledger }: MatchView,
  window: number,
): Promise<Pair[]> {
  const args: Parameters<typeof bestMatching> = [
    open.map((l) => ({
      date: l.line_date,
      amount: l.amount_atoms,
      reference: l.reference,
      description: l.description,
    })),
    ledger.map((l) => ({
      date: l.entry_date,
      amount: l.amount_atoms,
      texts: [l.je_number, l.memo, l.line_memo],
      counterparty_name: l.counterparty_name,
    })),
    window,
  ];
  const weight = pairsToWeigh(open, ledger);
  if (weight.pairs <= IN_PLACE.pairs && weight.networked <= IN_PLACE.networked)
    return bestMatching(...args);
  const tooMuch = (what: string) => () =>
    reconcileRefused(
      `the automatic match of ${open.length} statement lines with ${ledger.length} ledger lines ` +
        `${what}: import the statement in parts, or give a smaller --window-days`,
      'window_days',
      'match_too_large',
    );
  return callOnThread(owner, MATCHING, 'bestMatching', bestMatching, args, {
    ms: MATCH_TIME_MS,
    tooSlow: tooMuch(`took more than ${MATCH_TIME_MS / 1000} s`),
    tooLarge: tooMuch('took more memory than a match may'),
  });
}

const MATCHING = new URL('../../domain/matching.js', import.meta.url);
