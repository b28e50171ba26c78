import { BooksError, errors } from './errors.js';

/**
 * The First Month of Books may be applied only when no entry is dated before its first day: the
 * earliest such entry is named in the refusal (CAPI33 entries_before_start).
 */
export function booksStartRule(
  month: string,
  earliestBefore: { je_number: string; entry_date: string } | undefined,
): string {
  const start = `${month}-01`;
  if (earliestBefore) {
    const { je_number: n, entry_date: d } = earliestBefore;
    throw new BooksError(
      'CAPI33',
      `${n} is dated ${d}, before ${start}; the books cannot start after posted entries`,
      [{ path: 'first_month', reason: 'entries_before_start', message: `${n} is dated ${d}` }],
    );
  }
  return start;
}

/**
 * Moving the lock date earlier reopens a closed period: refused unless asked for (`--reopen`). A
 * lock at or after the present one closes more, and needs nothing.
 */
export function lockRule(previous: string | null, date: string, reopen: boolean): void {
  if (previous && date < previous && !reopen) {
    throw errors.usage(
      `the books are closed through ${previous}; moving the lock back to ${date} reopens a closed period: ` +
        'add --reopen to do so',
    );
  }
}

/** Why nothing may be posted on a date: before the First Month of Books, or in a closed period. */
export type DateBar =
  | { reason: 'before_books_start'; books_start: string }
  | { reason: 'period_closed'; lock_date: string };

/** What bars posting on a date (the First Month of Books first), or null when nothing does. */
export function dateBar(
  entity: { books_start: string | null; lock_date: string | null },
  date: string,
): DateBar | null {
  const { books_start: start, lock_date: lock } = entity;
  if (start && date < start) return { reason: 'before_books_start', books_start: start };
  if (lock && date <= lock) return { reason: 'period_closed', lock_date: lock };
  return null;
}
