import { shiftMonths } from './dates.js';
import { splitPeriods, type Period, type PeriodType } from './periods.js';

/** What a statement's columns are compared with (docs/close.md, "Comparisons and budgets"). */
export type CompareKind = 'previous-period' | 'previous-year' | 'budget';
export const COMPARE_KINDS: readonly CompareKind[] = ['previous-period', 'previous-year', 'budget'];

/** A column paired with the one it is compared against, as the report's JSON lists them. */
export interface Comparison {
  period: string;
  against: string;
  kind: CompareKind;
}

/** A column of a compared statement: a period, and whether its cells are the budget's. */
export interface Column extends Period {
  budget: boolean;
}

export const BUDGET_PREFIX = 'budget:';

const MONTHS_OF: Record<PeriodType, number> = { monthly: 1, quarterly: 3, yearly: 12 };

/**
 * The statement's columns with their comparisons: each period, then what it is compared with
 * (previous-period: the period before, of the same span; previous-year: the same days a year
 * earlier; budget: the period's budget, `budget:<id>`). A compared period that is already a column
 * is not repeated; one whose id another column holds with other days gets its dates in its id.
 */
export function comparedColumns(
  periods: Period[],
  compare: readonly CompareKind[],
  type: PeriodType,
  fyStart: number,
): { columns: Column[]; comparisons: Comparison[] } {
  const columns: Column[] = periods.map((p) => ({ ...p, budget: false }));
  const byId = new Map(columns.map((c) => [c.id, c]));
  const comparisons: Comparison[] = [];
  const out: Column[] = [];
  const add = (c: Column): string => {
    const had = byId.get(c.id);
    if (had && had.start_date === c.start_date && had.end_date === c.end_date) return had.id;
    const col = had ? { ...c, id: `${c.id}:${c.start_date}..${c.end_date}` } : c;
    if (!byId.has(col.id)) {
      byId.set(col.id, col);
      out.push(col);
    }
    return col.id;
  };
  for (const p of columns) {
    out.push(p);
    for (const kind of compare) {
      let against: Column;
      if (kind === 'budget') {
        against = { ...p, id: `${BUDGET_PREFIX}${p.id}`, label: `Budget ${p.label}`, budget: true };
      } else {
        const months = kind === 'previous-year' ? 12 : MONTHS_OF[type];
        const start = shiftMonths(p.start_date, -months);
        const end = shiftMonths(p.end_date, -months);
        against = { ...splitPeriods(start, end, type, fyStart)[0]!, budget: false };
      }
      comparisons.push({ period: p.id, against: add(against), kind });
    }
  }
  // Columns compared with themselves (February against January, both shown) stay in period order.
  return { columns: out, comparisons };
}

/**
 * A percentage with one decimal, exactly: 100·part/whole rounded half away from zero; null (blank)
 * where the whole is zero or missing. `relative` divides by the whole's magnitude (% Change, so
 * that a smaller loss is an improvement), otherwise by the whole itself (% of Budget).
 */
export function percent(part: bigint, whole: bigint | null, relative: boolean): string | null {
  if (whole === null || whole === 0n) return null;
  const den = relative && whole < 0n ? -whole : whole;
  const n = part * 1000n;
  const neg = n < 0n !== den < 0n;
  const [a, b] = [n < 0n ? -n : n, den < 0n ? -den : den];
  const tenths = (2n * a + b) / (2n * b);
  const text = `${tenths / 10n}.${tenths % 10n}%`;
  return neg && tenths !== 0n ? `-${text}` : text;
}

/** What a compared pair prints: the difference, and the percentage, by the comparison's kind. */
export function comparedCells(
  actual: bigint | null,
  base: bigint | null,
  kind: CompareKind,
): { change: bigint | null; percent: string | null } {
  if (actual === null && base === null) return { change: null, percent: null };
  const change = (actual ?? 0n) - (base ?? 0n);
  if (kind === 'budget') return { change, percent: percent(actual ?? 0n, base, false) };
  return { change, percent: percent(change, base, true) };
}

/** The headings of a comparison's columns after the compared one. */
export function comparedHeadings(kind: CompareKind): [string, string] {
  return kind === 'budget' ? ['Over Budget', '% of Budget'] : ['Change', '% Change'];
}
