/** The dates a ledger can hold: four-digit years, so every date is one ten-character string. */
export const FIRST_DATE = '0001-01-01';
export const LAST_DATE = '9999-12-31';
/** What date arithmetic yields past LAST_DATE: not a date, but later than every date as text. */
export const AFTER_LAST = '9999-12-32';

/** True when `s` is a real calendar date written YYYY-MM-DD (no 2026-02-30, no 2026-2-3). */
export function isIsoDate(s: unknown): s is string {
  // Read digit by digit: this runs for every entry of an import, and a regular expression's match
  // array and substrings cost more than the check itself.
  if (
    typeof s !== 'string' ||
    s.length !== 10 ||
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45
  ) {
    return false;
  }
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

/** The number written in s[from, to) in ASCII digits, or -1 when a character is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** True when `s` is a month written YYYY-MM. */
export function isIsoMonth(s: unknown): s is string {
  return typeof s === 'string' && /^\d{4}-(0[1-9]|1[0-2])$/.test(s) && s >= '0001-01';
}

/** Number of days in a month of the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Year, month and day of an ISO date that is known to be valid. */
export function parts(date: string): [number, number, number] {
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
}

/**
 * Writes a date as YYYY-MM-DD. Arithmetic may step past the ledger's last date (five years after
 * 9996-01-01): that is AFTER_LAST, so that such dates still compare as text with real ones.
 */
export function isoDate(y: number, m: number, d: number): string {
  if (y > 9999) return AFTER_LAST;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The local calendar date of an instant, as YYYY-MM-DD (a bookkeeper's "today"). */
export function localDate(now: Date): string {
  return isoDate(now.getFullYear(), now.getMonth() + 1, now.getDate());
}

/** Adds whole months to a (year, month) pair. */
export function addMonths(y: number, m: number, n: number): [number, number] {
  const idx = y * 12 + (m - 1) + n;
  return [Math.floor(idx / 12), (idx % 12) + 1];
}

/** The last day of the month of a date. */
export function endOfMonth(y: number, m: number): string {
  return isoDate(y, m, daysInMonth(y, m));
}

/** The day before an ISO date (the ledger's first date has none: it is returned as 0000-12-31). */
export function dayBefore(date: string): string {
  const [y, m, d] = parts(date);
  if (d > 1) return isoDate(y, m, d - 1);
  if (y === 1 && m === 1) return '0000-12-31';
  const [py, pm] = addMonths(y, m, -1);
  return endOfMonth(py, pm);
}

/** The day after an ISO date. */
export function dayAfter(date: string): string {
  const [y, m, d] = parts(date);
  if (d < daysInMonth(y, m)) return isoDate(y, m, d + 1);
  const [ny, nm] = addMonths(y, m, 1);
  return isoDate(ny, nm, 1);
}

/** The first day of the month after a date's. */
export function firstOfNextMonth(date: string): string {
  const [y, m] = parts(date);
  const [ny, nm] = addMonths(y, m, 1);
  return isoDate(ny, nm, 1);
}

/** Days since 1970-01-01 (proleptic Gregorian; negative before), for distances between dates. */
export function dayNumber(date: string): number {
  const [y, m, d] = parts(date);
  // setUTCFullYear, not Date.UTC: that reads years below 100 as 1900 and after.
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return Math.round(t.getTime() / 86_400_000);
}

/** The first and last day numbers a ledger's dates span. */
export const FIRST_DAY = -719_162;
export const LAST_DAY = 2_932_896;

/**
 * The date of a day number (dayNumber's inverse). Past the last date it is AFTER_LAST, before the
 * first '0000-12-31': never a five-digit or negative year, which would sort among real dates.
 */
export function dateOfDay(n: number): string {
  if (n > LAST_DAY) return AFTER_LAST;
  if (n < FIRST_DAY) return '0000-12-31';
  return new Date(n * 86_400_000).toISOString().slice(0, 10);
}

/** The same day n months away; a month's last day stays its month's last day (29 Feb ↔ 28 Feb). */
export function shiftMonths(date: string, months: number): string {
  const [y, m, d] = parts(date);
  const [ty, tm] = addMonths(y, m, months);
  if (d === daysInMonth(y, m)) return endOfMonth(ty, tm);
  return isoDate(ty, tm, Math.min(d, daysInMonth(ty, tm)));
}

/** The orders a file's dates may be written in (`--date-format`). */
export type DateOrder = 'ISO' | 'DMY' | 'MDY' | 'YMD';
export const DATE_ORDERS: readonly DateOrder[] = ['ISO', 'DMY', 'MDY', 'YMD'];
