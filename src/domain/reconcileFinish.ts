import { BooksError } from './errors.js';
import { formatAmount, toJsonInteger } from './money.js';
import { reconcileRefused } from './reconcile.js';

/** What a finish is decided on, read in its write transaction. */
export interface FinishFacts {
  /** The statement's date and balance: as given, else as the last OFX statement's closing says. */
  date: string | undefined;
  balance: number | undefined;
  /** Whether the date was given (a retry of a finish names it; a finish by the closing does not). */
  dateGiven: boolean;
  /** The account's latest finished reconciliation. */
  last: { statement_date: string; statement_balance_atoms: number } | undefined;
  /** The statement lines through the date still unmatched. */
  open: { id: string }[];
  /** The sum of the lines cleared through the date. */
  cleared: bigint;
  exponent: number;
}

/**
 * Whether a reconciliation may finish: null when it may; 'again' when it is the finish asked again
 * (a retry whose answer was lost: done already); else the refusal, not thrown. A finish needs a date
 * and a balance, a date later than the last reconciliation's, no unmatched statement line through
 * it, and a cleared balance equal to the statement's (the refusal's details carry the difference).
 */
export function finishRefusal(f: FinishFacts): BooksError | 'again' | null {
  const { date, balance, last } = f;
  if (date === undefined || balance === undefined) {
    const message =
      'give the statement date and balance (--statement-date, --statement-balance): ' +
      'no imported OFX statement gave a closing balance for that date';
    const path = date === undefined ? 'statement_date' : 'statement_balance';
    return new BooksError('invalid_parameters', message, [
      { path, reason: 'invalid_parameter', message },
    ]);
  }
  const same = last?.statement_date === date && last.statement_balance_atoms === balance;
  if (same && f.dateGiven) return 'again';
  if (same)
    return reconcileRefused(
      `the last statement imported (through ${date}) is reconciled already; import the next ` +
        'one, or give --statement-date and --statement-balance',
      'statement_date',
      'reconciled_already',
    );
  if (last && date <= last.statement_date)
    return reconcileRefused(
      `the statement date ${date} must be later than the last reconciliation's (${last.statement_date})`,
      'statement_date',
      'not_later',
    );
  const difference = BigInt(balance) - f.cleared;
  if (!f.open.length && difference === 0n) return null;
  const m = (a: bigint | number) => formatAmount(a, f.exponent);
  const ids = f.open.slice(0, 5).map((l) => l.id);
  const parts = [
    difference !== 0n
      ? `the statement balance ${m(balance)} differs from the cleared balance ` +
        `${m(f.cleared)} by ${m(difference)}`
      : '',
    f.open.length
      ? `${f.open.length} statement line(s) through ${date} are unmatched ` +
        `(${ids.join(', ')}${f.open.length > 5 ? ', …' : ''})`
      : '',
  ].filter(Boolean);
  return reconcileRefused(
    `cannot finish: ${parts.join('; ')}`,
    difference !== 0n ? 'statement_balance' : 'statement_line_id',
    difference !== 0n ? 'difference' : 'unmatched_lines',
    { difference: toJsonInteger(difference), unmatched: f.open.map((l) => l.id) },
  );
}

/**
 * Whether the latest reconciliation may be undone: null when it may, else the refusal, not thrown.
 * Only the latest is undone, and when an id is given it must be that one (two bookkeepers undoing
 * at once undo one reconciliation each, never the next by mistake).
 */
export function undoRefusal(
  last: { id: string } | undefined,
  id: string | undefined,
  account: string,
): BooksError | null {
  if (last && (id === undefined || last.id === id)) return null;
  return reconcileRefused(
    last
      ? `reconciliation ${id} is not the account's latest (${last.id} is): undone meanwhile? ` +
          'nothing was undone; run books reconcile list, and undo again to reopen the next'
      : id !== undefined
        ? `reconciliation ${id} was undone meanwhile: account '${account}' has no ` +
          'finished reconciliation left; nothing was undone'
        : `account '${account}' has no finished reconciliation`,
    'account',
    'nothing_to_undo',
  );
}
