import { isIsoDate } from '../domain/dates.js';
import { parseDecimal } from '../domain/money.js';
import type { DateOrder } from './presets.js';

/**
 * Dates and amounts of a bank file as banks write them: a file's dates in one order, found from the
 * dates themselves when not given (`05.12.25`, `3/18/2016`, `20200213`), two-digit years within 80
 * years back and 20 ahead; amounts with a decimal point or comma (found from the amounts when not
 * given), thousands separators, currency symbols, digits past the currency's decimals when zeros.
 */

const ORDERS: readonly Exclude<DateOrder, 'ISO'>[] = ['YMD', 'DMY', 'MDY'];

/** A date written in an order, as YYYY-MM-DD, or null; `year` resolves a two-digit year. */
export function bankDate(
  text: string,
  order: DateOrder,
  year: (yy: number) => number,
): string | null {
  const t = text.trim();
  const iso = (y: number, m: string, d: string) => {
    const s = `${String(y).padStart(4, '0')}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
    return isIsoDate(s) ? s : null;
  };
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(t);
  if (compact)
    return order === 'YMD' || order === 'ISO' ? iso(+compact[1]!, compact[2]!, compact[3]!) : null;
  const ymd = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T].*)?$/.exec(t);
  if (ymd) return order === 'YMD' || order === 'ISO' ? iso(+ymd[1]!, ymd[2]!, ymd[3]!) : null;
  const other = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{2}|\d{4})(?:[ T].*)?$/.exec(t);
  if (!other) return null;
  const y = other[3]!.length === 2 ? year(Number(other[3])) : Number(other[3]);
  if (order === 'DMY') return iso(y, other[2]!, other[1]!);
  if (order === 'MDY') return iso(y, other[1]!, other[2]!);
  return null;
}

/** A two-digit year's century: the year within 80 years before `now` and 20 after. */
export function centuryOf(now: number): (yy: number) => number {
  return (yy) => {
    const y = Math.floor(now / 100) * 100 + yy;
    return y > now + 20 ? y - 100 : y < now - 80 ? y + 100 : y;
  };
}

/**
 * The order a file's dates are in: the given one, else the one in which every date reads. When
 * several do (every day is 12 or less), a point says day first (`05.12.25`); otherwise there is no
 * telling, and the caller asks for `--date-format`.
 */
export function dateOrderOf(
  cells: string[],
  given: DateOrder | null,
  year: (yy: number) => number,
): DateOrder | { ambiguous: string } | { none: string } {
  if (given) return given;
  const fit = ORDERS.filter((o) => cells.every((c) => bankDate(c, o, year) !== null));
  if (fit.length === 1) return fit[0]!;
  if (fit.length === 0) {
    const bad = cells.find((c) => ORDERS.every((o) => bankDate(c, o, year) === null));
    return { none: bad ?? cells[0] ?? '' };
  }
  if (fit.includes('DMY') && cells.some((c) => /^\d{1,2}\.\d{1,2}\./.test(c.trim()))) return 'DMY';
  return { ambiguous: cells.find((c) => /^\d{1,2}[-/.]\d{1,2}[-/.]/.test(c.trim())) ?? cells[0]! };
}

/** An amount as most banks write it: digits, a point, a minus sign before. */
const PLAIN = /^-?\d+(?:\.\d+)?$/;

/** An amount's text without its currency (a symbol or an ISO code) and spaces. */
function bare(text: string): string {
  return text
    .replace(/\u2212/g, '-')
    .replace(/[\s\u00a0\u202f']/g, '')
    .replace(/^([+-]?)(?:[$€£¥]|[A-Z]{3}(?=[\d(+-]))/, '$1')
    .replace(/(?:[$€£¥]|(?<=\d)[A-Z]{3})$/, '')
    .replace(/^([+-]?)[$€£¥]/, '$1');
}

/**
 * Whether a file's amounts are written with a decimal comma: as given, else from the amounts, when
 * one of them can only be read so (`12,50`, `1.234,56`, `-10,7`); null when they say both.
 */
export function decimalCommaOf(cells: string[], given: boolean | null): boolean | null {
  if (given !== null) return given;
  let comma = false;
  let point = false;
  for (const c of cells) {
    const t = PLAIN.test(c) ? c : bare(c).replace(/^[(+-]+|[)-]+$/g, '');
    if (/,\d{1,2}$|,\d{4,}$|\.\d{3},/.test(t)) comma = true;
    if (/\.\d{1,2}$|\.\d{4,}$|,\d{3}\./.test(t)) point = true;
  }
  if (comma && point) return null;
  return comma;
}

const MAX_ATOMS = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An amount as exact atoms a number can hold (a ledger keeps no more), or why it is none: past
 * 2^53 - 1 atoms it is refused as too large, never rounded.
 */
export function bankAtoms(
  text: string,
  comma: boolean,
  exponent: number,
): { atoms: number } | { message: string } {
  const a = bankAmount(text, comma, exponent);
  if ('message' in a) return a;
  if (a.atoms > MAX_ATOMS || a.atoms < -MAX_ATOMS) return { message: `'${text}' is too large` };
  return { atoms: Number(a.atoms) };
}

/** An amount in atoms (negative for money out as written), or why it is none. */
export function bankAmount(
  text: string,
  comma: boolean,
  exponent: number,
): { atoms: bigint } | { message: string } {
  // Most banks write `-123.45`: read at once (a statement has thousands of lines).
  if (!comma && PLAIN.test(text)) {
    const p = parseDecimal(text, exponent);
    if (p.ok) return { atoms: p.atoms };
  }
  const t = bare(text);
  const m = /^([(+-]?)(.*?)([)-]?)$/.exec(t)!;
  const [open, body, close] = [m[1]!, m[2]!, m[3]!];
  const negative = open === '-' || open === '(' || close === '-';
  if ((open === '(') !== (close === ')') || /^[-+(]|[-+)]$/.test(body) || body === '')
    return { message: `'${text.trim()}' is not an amount` };
  const [groupMark, decimalMark] = comma ? ['.', ','] : [',', '.'];
  const parts = body.split(decimalMark);
  if (parts.length > 2) return { message: `'${text.trim()}' is not an amount` };
  const whole = parts[0]!;
  if (!/^\d{1,3}(?:[.,]\d{3})*$|^\d+$/.test(whole))
    return { message: `'${text.trim()}' is not an amount` };
  // Digits past the currency's decimals are read when they are zeros (`30.000`, `3.77000`).
  let frac = parts[1] ?? '';
  if (frac.length > exponent && /^0*$/.test(frac.slice(exponent))) frac = frac.slice(0, exponent);
  const plain = `${whole.split(groupMark).join('')}${frac ? `.${frac}` : ''}`;
  const parsed = parseDecimal(plain, exponent);
  if (!parsed.ok)
    return {
      message:
        parsed.reason === 'too_many_decimals'
          ? `'${text.trim()}' has ${frac.length} decimals; the currency has ${exponent}`
          : `'${text.trim()}' is not an amount`,
    };
  return { atoms: negative ? -parsed.atoms : parsed.atoms };
}

/** Currency symbols that name one currency only. */
const SYMBOLS: Record<string, string> = { '€': 'EUR', '£': 'GBP' };

/**
 * A currency column's one currency (an ISO code, or a symbol of one currency), or null when it
 * names none; a row naming another is a problem (a statement has one currency).
 */
export function currencyOf(
  cells: { row: number; text: string }[],
  problem: (row: number, message: string) => void,
): string | null {
  let first: { code: string; row: number } | null = null;
  for (const c of cells) {
    const text = c.text.trim().toUpperCase();
    const code = SYMBOLS[text] ?? text;
    if (!/^[A-Z]{3}$/.test(code)) continue;
    if (!first) first = { code, row: c.row };
    else if (code !== first.code)
      problem(
        c.row,
        `currency ${code} differs from ${first.code} on row ${first.row}; a statement has one currency`,
      );
  }
  return first?.code ?? null;
}
