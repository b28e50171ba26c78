import type { Problem } from './errors.js';
import { isIsoDate } from './dates.js';
import { currencyExponent } from './money.js';

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

/** The entity row's settings as check reads them. */
export interface EntitySettings {
  name: unknown;
  currency: unknown;
  books_start: unknown;
  fiscal_year_start_month: unknown;
  lock_date: unknown;
}

/**
 * The entity's own row: every setting one that books init, books close and the First Month of
 * Books could have written (a lock date of `garbage` closes every date, a fiscal year from month 13
 * has no quarters), and no entry dated before the books start (`first`: the earliest entry, when
 * the store read it).
 */
export function entityProblems(
  e: EntitySettings,
  first?: { je_number: string; entry_date: string },
): Problem[] {
  const out: Problem[] = [];
  const bad = (column: string, value: unknown, what: string) =>
    out.push({
      path: `entity.${column}`,
      reason: 'invalid_entity',
      message: `the entity's ${column} is ${JSON.stringify(value)}: ${what}`,
    });
  if (typeof e.name !== 'string' || e.name.trim() === '') bad('name', e.name, 'not a name');
  const c = e.currency;
  if (typeof c !== 'string' || !/^[A-Z]{3}$/.test(c) || currencyExponent(c) === null)
    bad('currency', c, 'not an ISO 4217 currency code (upper case)');
  const b = e.books_start;
  const start = b === null || (isIsoDate(b) && b.endsWith('-01'));
  if (!start) bad('books_start', b, 'not the first day of a month (YYYY-MM-01)');
  const m = e.fiscal_year_start_month;
  if (!(typeof m === 'number' && Number.isInteger(m) && m >= 1 && m <= 12))
    bad('fiscal_year_start_month', m, 'not a month (1 to 12)');
  if (e.lock_date !== null && !isIsoDate(e.lock_date))
    bad('lock_date', e.lock_date, 'not a date (YYYY-MM-DD)');
  if (start && typeof b === 'string' && first && first.entry_date < b)
    out.push({
      path: first.je_number,
      reason: 'before_books_start',
      message: `${first.je_number} is dated ${first.entry_date}, before the books start (${b})`,
    });
  return out;
}

/** Whether check's problems leave the entity's currency readable (the chart's checks need it). */
export const currencyReadable = (problems: Problem[]) =>
  !problems.some((p) => p.path === 'entity.currency');

/** An entry's date or currency as check reads them: each distinct value, an entry that has it. */
export interface EntryFacts {
  /** Each distinct date, and one entry dated so. */
  dates: { entry_date: string; je_number: string; n: number }[];
  /** Each currency, how many entries are in it, and one of them. */
  currencies: { currency: string; je_number: string; n: number }[];
}

/**
 * Entries as no post writes them: dated a day that is none (`2025-13-01`, which every report's
 * window leaves out), or in a currency other than the entity's (every report would add them in).
 */
export function entryProblems(facts: EntryFacts, currency: string): Problem[] {
  const out: Problem[] = [];
  const more = (n: number) => (n > 1 ? ` (and ${n - 1} more)` : '');
  for (const d of facts.dates)
    if (!isIsoDate(d.entry_date))
      out.push({
        path: d.je_number,
        reason: 'invalid_date',
        message: `${d.je_number}${more(d.n)} is dated '${d.entry_date}', which is no date`,
      });
  for (const c of facts.currencies)
    if (c.currency !== currency)
      out.push({
        path: c.je_number,
        reason: 'currency_conflict',
        message: `${c.je_number}${more(c.n)} is in ${c.currency}, not the entity's ${currency}`,
      });
  return out;
}
