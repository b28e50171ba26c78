import { bestMatching, type Pair } from '../domain/matching.js';
import { reconcileRefused, type ReconLine } from '../domain/reconcile.js';
import type { ReconAccount } from './reconcileLines.js';
import type { StatementLineRow } from './reconcileStore.js';
import { callOnThread } from './threads.js';

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
 * Lines of one amount on both sides, multiplied, up to which a match is worked out in place: a few
 * milliseconds, less than starting a thread (amounts seldom repeat: a 10,000-line statement is about
 * that many). Past it, on a thread of the pool.
 */
const IN_PLACE = 50_000;

/** How many same-amount pairs the lines hold: what the matching's work grows with. */
function pairsToWeigh(
  open: { amount_atoms: number }[],
  ledger: { amount_atoms: number }[],
): number {
  const count = new Map<number, number>();
  for (const l of open) count.set(l.amount_atoms, (count.get(l.amount_atoms) ?? 0) + 1);
  let pairs = 0;
  for (const l of ledger) pairs += count.get(l.amount_atoms) ?? 0;
  return pairs;
}

/**
 * The best matching of a view's lines: in place when it is small, else on a thread of the pool
 * (ledger/threads.ts), so that a server goes on answering meanwhile.
 */
export async function pairsOnThread({ open, ledger }: MatchView, window: number): Promise<Pair[]> {
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
  if (pairsToWeigh(open, ledger) <= IN_PLACE) return bestMatching(...args);
  const tooMuch = (what: string) => () =>
    reconcileRefused(
      `the automatic match of ${open.length} statement lines with ${ledger.length} ledger lines ` +
        `${what}: import the statement in parts, or give a smaller --window-days`,
      'window_days',
      'match_too_large',
    );
  return callOnThread(MATCHING, 'bestMatching', bestMatching, args, {
    ms: MATCH_TIME_MS,
    tooSlow: tooMuch(`took more than ${MATCH_TIME_MS / 1000} s`),
    tooLarge: tooMuch('took more memory than a match may'),
  });
}

const MATCHING = new URL('../domain/matching.js', import.meta.url);
