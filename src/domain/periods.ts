import { COMPARE_KINDS, type CompareKind } from './compare.js';
import { columnsByOf, whereOf, type TagCondition } from './tags.js';
import { addMonths, endOfMonth, isIsoDate as isIsoDateLike, isoDate, parts } from './dates.js';

export type PeriodType = 'monthly' | 'quarterly' | 'yearly';
export const PERIOD_TYPES: readonly PeriodType[] = ['monthly', 'quarterly', 'yearly'];

/** One column of a report. */
export interface Period {
  id: string;
  label: string;
  start_date: string;
  end_date: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The same day five years later; 29 February becomes 28 February. */
export function fiveYearsAfter(date: string): string {
  const [y, m, d] = parts(date);
  return isoDate(y + 5, m, m === 2 && d === 29 ? 28 : d);
}

/** True when the window is longer than the API allows: end_date ≥ start_date + 5 years (CAPI69). */
export function windowTooLong(start: string, end: string): boolean {
  return end >= fiveYearsAfter(start);
}

/** First day of the fiscal year that contains a date, for a fiscal year starting in month `fyStart`. */
export function fiscalYearStart(date: string, fyStart: number): string {
  const [y, m] = parts(date);
  return isoDate(m >= fyStart ? y : y - 1, fyStart, 1);
}

/** First month (year, month) of the period of a given type that contains (y, m). */
function bucketStart(y: number, m: number, type: PeriodType, fyStart: number): [number, number] {
  if (type === 'monthly') return [y, m];
  const sinceFy = (m - fyStart + 12) % 12;
  const back = type === 'quarterly' ? sinceFy % 3 : sinceFy;
  return addMonths(y, m, -back);
}

function describe(
  y: number,
  m: number,
  type: PeriodType,
  fyStart: number,
): { id: string; label: string } {
  if (type === 'monthly')
    return { id: `${y}-${String(m).padStart(2, '0')}`, label: `${MONTHS[m - 1]} ${y}` };
  // A fiscal year is named by the calendar year it ends in (FY Apr 2025 - Mar 2026 is 2026).
  const [fyFirstY] = bucketStart(y, m, 'yearly', fyStart);
  const fy = fyStart === 1 ? fyFirstY : fyFirstY + 1;
  const prefix = fyStart === 1 ? '' : 'FY';
  if (type === 'yearly') return { id: String(fy), label: `${prefix}${fy}` };
  const q = Math.floor(((m - fyStart + 12) % 12) / 3) + 1;
  return { id: `${fy}-Q${q}`, label: `Q${q} ${prefix}${fy}` };
}

/** The whole period of a type that contains a date, as a window would have it unclipped. */
export function periodBounds(
  date: string,
  type: PeriodType,
  fyStart = 1,
): { start: string; end: string } {
  const [y, m] = parts(date);
  const [by, bm] = bucketStart(y, m, type, fyStart);
  const [ly, lm] = addMonths(by, bm, (type === 'monthly' ? 1 : type === 'quarterly' ? 3 : 12) - 1);
  return { start: isoDate(by, bm, 1), end: endOfMonth(ly, lm) };
}

/**
 * Splits the window [start, end] into monthly, quarterly or yearly columns (fiscal when the fiscal
 * year starts in another month than January), the first and last clipped to the window. The columns
 * cover every day of the window exactly once, in order.
 */
export function splitPeriods(start: string, end: string, type: PeriodType, fyStart = 1): Period[] {
  const out: Period[] = [];
  const [sy, sm] = parts(start);
  let [y, m] = bucketStart(sy, sm, type, fyStart);
  const step = type === 'monthly' ? 1 : type === 'quarterly' ? 3 : 12;
  for (;;) {
    const first = isoDate(y, m, 1);
    if (first > end) break;
    const [ly, lm] = addMonths(y, m, step - 1);
    const last = endOfMonth(ly, lm);
    out.push({
      ...describe(y, m, type, fyStart),
      start_date: first < start ? start : first,
      end_date: last > end ? end : last,
    });
    [y, m] = addMonths(y, m, step);
  }
  return out;
}

export interface ReportQuery {
  start_date: string;
  end_date: string;
  period_type: PeriodType;
  /** Columns to compare each period with (docs/close.md): none when absent. */
  compare?: CompareKind[];
  /** Only lines whose effective tags meet every condition (docs/close.md, "Tags"). */
  where?: TagCondition[];
  /** One column per value of this tag key over the window, `(none)` and Total (income statement). */
  columns_by?: string;
}

/**
 * Checks balance-sheet parameters as the API receives them: both dates required and real, end not
 * before start, a known period type (default monthly); returns problems (invalid_parameters) or the
 * query. The 5-year rule (CAPI69) is checked separately, after these.
 */
export function checkReportQuery(raw: {
  start_date?: unknown;
  end_date?: unknown;
  period_type?: unknown;
  compare?: unknown;
  where?: unknown;
  columns_by?: unknown;
}): { query: ReportQuery } | { problems: { path: string; reason: string; message: string }[] } {
  const problems: { path: string; reason: string; message: string }[] = [];
  const where = whereOf(raw.where, problems);
  const columnsBy = columnsByOf(raw.columns_by, problems);
  for (const k of ['start_date', 'end_date'] as const) {
    const v = raw[k];
    if (v === undefined || v === '')
      problems.push({
        path: k,
        reason: 'missing_parameter',
        message: `${k} is required (YYYY-MM-DD)`,
      });
    else if (!isIsoDateLike(v))
      problems.push({
        path: k,
        reason: 'invalid_date',
        message: `${k} '${String(v)}' is not a date (YYYY-MM-DD)`,
      });
  }
  const type = raw.period_type ?? 'monthly';
  if (!PERIOD_TYPES.includes(type as PeriodType))
    problems.push({
      path: 'period_type',
      reason: 'invalid_period_type',
      message: `period_type '${String(type)}' is not one of ${PERIOD_TYPES.join(', ')}`,
    });
  const compare = compareOf(raw.compare, problems);
  if (!problems.length && (raw.end_date as string) < (raw.start_date as string)) {
    problems.push({
      path: 'end_date',
      reason: 'end_before_start',
      message: `end_date ${String(raw.end_date)} is before start_date ${String(raw.start_date)}`,
    });
  }
  if (problems.length) return { problems };
  return {
    query: {
      start_date: raw.start_date as string,
      end_date: raw.end_date as string,
      period_type: type as PeriodType,
      ...(compare.length ? { compare } : {}),
      ...(where.length ? { where } : {}),
      ...(columnsBy ? { columns_by: columnsBy } : {}),
    },
  };
}

/** The comparisons asked for: a list, or one comma-separated text (the API's query); each once. */
function compareOf(
  raw: unknown,
  problems: { path: string; reason: string; message: string }[],
): CompareKind[] {
  if (raw === undefined || raw === '') return [];
  const given = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
  const out: CompareKind[] = [];
  for (const g of given) {
    const k = typeof g === 'string' ? g.trim() : g;
    if (!COMPARE_KINDS.includes(k as CompareKind))
      problems.push({
        path: 'compare',
        reason: 'invalid_compare',
        message: `compare '${String(k)}' is not one of ${COMPARE_KINDS.join(', ')}`,
      });
    else if (!out.includes(k as CompareKind)) out.push(k as CompareKind);
  }
  return out;
}
