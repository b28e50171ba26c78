import { isIsoDate } from './dates.js';
import type { Problem } from './errors.js';
import { crossRate, invertRate, parseRate, rateOf } from './fx.js';
import { currencyExponent } from './money.js';

/** A rate of the ledger's table: functional units per one unit of `currency`, from `date` on. */
export interface ExchangeRate {
  date: string;
  currency: string;
  rate: string;
}

/** A row of a rates import as given (a file's row number, for messages). */
export interface RateRow {
  row?: number;
  date: unknown;
  currency: unknown;
  rate: unknown;
}

/** What an import of rates did: rows new, replaced (with --replace), and the same as kept. */
export interface RatesImported {
  created: number;
  updated: number;
  unchanged: number;
  /** Each row that replaced a different rate: what it was and is now. */
  replaced: { row: number; date: string; currency: string; was: string; rate: string }[];
}

/**
 * The rows of an import, each checked (a date, a currency other than the functional one, a rate);
 * every problem names its row. Two rows for one date and currency must agree.
 */
export function checkRateRows(
  rows: RateRow[],
  functional: string,
): { rates: (ExchangeRate & { row: number; index: number })[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const rates: (ExchangeRate & { row: number; index: number })[] = [];
  const seen = new Map<string, { row: number; rate: string }>();
  rows.forEach((r, i) => {
    const row = r.row ?? i + 1;
    const path = (f: string) => `rows[${i}].${f}`;
    const bad = (f: string, reason: string, message: string) =>
      problems.push({ path: path(f), reason, message: `row ${row}: ${message}` });
    const before = problems.length;
    if (!isIsoDate(r.date))
      bad('date', 'invalid_date', `'${String(r.date)}' is not a date: write YYYY-MM-DD`);
    if (typeof r.currency !== 'string' || currencyExponent(r.currency) === null)
      bad(
        'currency',
        'invalid_currency',
        `'${String(r.currency)}' is not an ISO 4217 currency code`,
      );
    else if (r.currency === functional)
      bad(
        'currency',
        'invalid_currency',
        `${functional} is the functional currency: its rate is 1`,
      );
    const rate = parseRate(r.rate);
    if (!rate.ok) bad('rate', 'invalid_rate', rate.message);
    if (problems.length > before) return;
    const [date, currency, text] = [r.date as string, r.currency as string, r.rate as string];
    const key = `${currency} ${date}`;
    const earlier = seen.get(key);
    if (earlier && !sameRate(earlier.rate, text))
      return bad(
        'rate',
        'rate_conflict',
        `${currency} on ${date} is ${text} here and ${earlier.rate} on row ${earlier.row}`,
      );
    if (earlier) return;
    seen.set(key, { row, rate: text });
    rates.push({ row, index: i, date, currency, rate: text });
  });
  return { rates: problems.length ? [] : rates, problems };
}

/** Two rate texts of the same value (`1.10` and `1.1`). */
export function sameRate(a: string, b: string): boolean {
  const [x, y] = [rateOf(a), rateOf(b)];
  const scale = Math.max(x.scale, y.scale);
  return x.digits * 10n ** BigInt(scale - x.scale) === y.digits * 10n ** BigInt(scale - y.scale);
}

/**
 * The rows of the European Central Bank's published history (`eurofxref-hist.csv`: a Date column,
 * then one column per currency quoting units per euro, `N/A` where none) as rates of the functional
 * currency: inverted when it is the euro, crossed through the euro otherwise. Only the currencies
 * asked for (all but the functional one when none are).
 */
export function ecbRates(
  rows: string[][],
  functional: string,
  wanted: Set<string> | null,
): { rates: RateRow[]; problems: Problem[] } {
  const header = (rows[0] ?? []).map((h) => h.trim());
  const problems: Problem[] = [];
  if (header[0]?.toLowerCase() !== 'date')
    return {
      rates: [],
      problems: [
        {
          path: 'row 1',
          reason: 'invalid_layout',
          message:
            "row 1: the ECB's layout starts with a Date column, then one column per currency",
        },
      ],
    };
  const columns = new Map<string, number>();
  header.forEach((h, i) => i > 0 && /^[A-Z]{3}$/.test(h) && columns.set(h, i));
  if (functional !== 'EUR' && !columns.has(functional))
    problems.push({
      path: 'row 1',
      reason: 'invalid_layout',
      message: `row 1: the file quotes no ${functional}, the functional currency, against the euro`,
    });
  const currencies = [...(wanted ?? new Set([...columns.keys(), 'EUR']))].filter(
    (c) => c !== functional,
  );
  for (const c of currencies)
    if (c !== 'EUR' && !columns.has(c))
      problems.push({
        path: 'row 1',
        reason: 'invalid_currency',
        message: `row 1: the file has no ${c} column`,
      });
  if (problems.length) return { rates: [], problems };
  const rates: RateRow[] = [];
  rows.slice(1).forEach((cells, i) => {
    const row = i + 2;
    const date = cells[0]?.trim() ?? '';
    if (date === '') return;
    const quote = (c: string) => {
      if (c === 'EUR') return '1';
      const v = cells[columns.get(c)!]?.trim() ?? '';
      return v === '' || v === 'N/A' ? null : v;
    };
    const base = quote(functional);
    const bad = (column: string, message: string) =>
      problems.push({
        row,
        path: column,
        reason: 'invalid_rate',
        message: `${column}: ${message}`,
      });
    const rb = base === null ? null : parseRate(base);
    if (rb && !rb.ok) return bad(functional, rb.message);
    for (const c of currencies) {
      const q = quote(c);
      if (q === null || rb === null) continue;
      const rq = parseRate(q);
      if (!rq.ok || !rb.ok) {
        if (!rq.ok) bad(c, rq.message);
        continue;
      }
      // Functional per foreign: (functional per euro) / (foreign per euro).
      const rate =
        functional === 'EUR'
          ? invertRate(rq.rate)
          : c === 'EUR'
            ? base
            : crossRate(rb.rate, rq.rate);
      rates.push({ row, date, currency: c, rate });
    }
  });
  return { rates, problems };
}
