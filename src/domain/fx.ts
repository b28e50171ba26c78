import { exponentOf, storedAtoms } from './money.js';

/**
 * Foreign currencies (docs/currency.md): a line on an account denominated in another currency keeps
 * its amount in that currency and the rate beside its functional amount. Every conversion here is
 * integer arithmetic on bigint, rounded half to even, so that every store and every platform gives
 * the same atoms for the same inputs.
 */

/** The foreign-currency snapshot of a line, as JSON carries it. */
export interface FxSnapshot {
  currency: string;
  amount_atoms: number;
  /** Functional units per one foreign unit, as a decimal string. */
  rate: string;
}

/** Significant digits a rate may have. */
export const RATE_DIGITS = 12;
/** Significant digits an implied rate (functional amount over foreign amount) is kept to. */
export const IMPLIED_RATE_DIGITS = 10;

/** A rate as an exact fraction: `digits / 10^scale`. */
export interface Rate {
  text: string;
  digits: bigint;
  scale: number;
}

const RATE = /^(\d+)(?:\.(\d+))?$/;

/**
 * A rate written as a plain positive decimal (`1.105`, `0.0091`, `150`): at most 12 significant
 * digits, no sign, no exponent, no grouping. The text is kept as written; null with the reason when
 * it is not such a rate.
 */
export function parseRate(
  text: unknown,
): { ok: true; rate: Rate } | { ok: false; message: string } {
  if (typeof text !== 'string')
    return {
      ok: false,
      message: `a rate is a decimal string such as "1.105", not ${shownValue(text)}`,
    };
  // Long enough for 12 digits and their zeros; a longer text is not shown back whole.
  const shown = text.length > 40 ? `'${text.slice(0, 40)}…'` : `'${text}'`;
  const m = text.length > 40 ? null : RATE.exec(text);
  if (!m)
    return { ok: false, message: `${shown} is not a rate: write a positive decimal such as 1.105` };
  const frac = m[2] ?? '';
  // Significant digits: from the first that is not 0; a whole number's trailing zeros only place
  // it (a fraction's count: they say the precision written).
  const all = (m[1]! + frac).replace(/^0+/, '');
  if (all === '' || /^0*$/.test(all))
    return { ok: false, message: `the rate ${shown} is not above 0` };
  if ((frac ? all : all.replace(/0+$/, '')).length > RATE_DIGITS)
    return {
      ok: false,
      message: `the rate ${shown} has more than ${RATE_DIGITS} significant digits`,
    };
  return { ok: true, rate: { text, digits: BigInt(m[1]! + frac), scale: frac.length } };
}

/** A JSON value as a message shows it: exact digits for a large integer or a written fraction. */
export function shownValue(v: unknown): string {
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'object' && v !== null && 'text' in v && typeof v.text === 'string')
    return v.text;
  return JSON.stringify(v) ?? String(v);
}

/** The rate a valid text names (throws on one parseRate refuses: callers checked it). */
export function rateOf(text: string): Rate {
  const r = parseRate(text);
  if (!r.ok) throw new Error(r.message);
  return r.rate;
}

const TEN = 10n;
const pow10 = (n: number) => TEN ** BigInt(n);

/** n / d rounded half to even (d > 0). */
export function divHalfEven(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const a = neg ? -n : n;
  let q = a / d;
  const r2 = (a % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  return neg ? -q : q;
}

/**
 * The functional atoms of `foreignAtoms` of `foreign` at `rate`: foreign × rate × 10^(functional
 * exponent − foreign exponent), rounded half to even.
 */
export function convert(
  foreignAtoms: bigint | number,
  rate: Rate,
  foreign: string,
  functional: string,
): bigint {
  const shift = exponentOf(functional) - exponentOf(foreign);
  const n = BigInt(foreignAtoms) * rate.digits * (shift > 0 ? pow10(shift) : 1n);
  const d = pow10(rate.scale) * (shift < 0 ? pow10(-shift) : 1n);
  return divHalfEven(n, d);
}

/**
 * The rate `functionalAtoms / foreignAtoms` means, in functional units per foreign unit, rounded half
 * to even to 10 significant digits and written without trailing zeros (what the bank converted).
 */
export function impliedRate(
  foreignAtoms: number,
  functionalAtoms: number,
  foreign: string,
  functional: string,
): string {
  // functional / 10^fe ÷ (foreign / 10^xe)
  const n = BigInt(functionalAtoms) * pow10(exponentOf(foreign));
  const d = BigInt(foreignAtoms) * pow10(exponentOf(functional));
  return ratioText(n, d, IMPLIED_RATE_DIGITS);
}

/** `q / 10^s` as a plain decimal without trailing zeros. */
function decimalText(q: bigint, s: number): string {
  if (s <= 0) return (q * pow10(-s)).toString();
  const digits = q.toString().padStart(s + 1, '0');
  const whole = digits.slice(0, digits.length - s);
  const frac = digits.slice(digits.length - s).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

/** The rate that quotes `quoted` units per one unit of the base, inverted: base units per quoted unit. */
export function invertRate(rate: Rate): string {
  // 1 / (digits / 10^scale) = 10^scale / digits, to RATE_DIGITS significant digits.
  return ratioText(pow10(rate.scale), rate.digits, RATE_DIGITS);
}

/** a / b (two rates) to RATE_DIGITS significant digits: a cross rate through a third currency. */
export function crossRate(a: Rate, b: Rate): string {
  // (a.digits / 10^a.scale) / (b.digits / 10^b.scale)
  return ratioText(a.digits * pow10(b.scale), b.digits * pow10(a.scale), RATE_DIGITS);
}

/** n / d (both > 0) rounded half to even to `digits` significant digits, as plain decimal text. */
export function ratioText(n: bigint, d: bigint, digits: number): string {
  const low = pow10(digits - 1);
  let s = 0;
  while (n * pow10(Math.max(s, 0)) < low * d * pow10(Math.max(-s, 0))) s++;
  while (n * pow10(Math.max(s, 0)) >= low * TEN * d * pow10(Math.max(-s, 0))) s--;
  const [nn, dd] = s >= 0 ? [n * pow10(s), d] : [n, d * pow10(-s)];
  let q = divHalfEven(nn, dd);
  if (q >= low * TEN) {
    q = divHalfEven(q, TEN);
    s--;
  }
  return decimalText(q, s);
}

/** A line's snapshot as a store keeps it in three columns (all null on a functional line). */
export function fxOfRow(
  currency: string | null,
  amount: unknown,
  rate: string | null,
): FxSnapshot | null {
  if (currency === null) return null;
  return { currency, amount_atoms: storedAtoms(amount), rate: rate ?? '0' };
}

/** Whether a value is a snapshot as a dump or an answer carries one. */
export function isFxSnapshot(v: unknown): v is FxSnapshot {
  const fx = v as FxSnapshot | null;
  return (
    typeof fx === 'object' &&
    fx !== null &&
    typeof fx.currency === 'string' &&
    /^[A-Z]{3}$/.test(fx.currency) &&
    Number.isSafeInteger(fx.amount_atoms) &&
    fx.amount_atoms >= 0 &&
    (fx.rate === '0' || parseRate(fx.rate).ok)
  );
}

/** The three snapshot columns of a row a store read. */
export interface FxColumns {
  fx_currency: string | null;
  fx_amount_atoms: unknown;
  fx_rate: string | null;
  system: string | null;
}

/** A row a store read with its snapshot columns made one `fx` (left out on a functional line). */
export function withFx<T extends FxColumns>(
  row: T,
): Omit<T, keyof FxColumns> & { fx?: FxSnapshot; system?: 'fx_realized' } {
  const { fx_currency, fx_amount_atoms, fx_rate, system, ...rest } = row;
  const fx = fxOfRow(fx_currency, fx_amount_atoms, fx_rate);
  return {
    ...rest,
    ...(fx ? { fx } : {}),
    ...(system === 'fx_realized' ? { system } : {}),
  };
}

/** The snapshot columns (and the system mark) as a query reads them from the lines aliased `l`. */
export const FX_COLUMNS = 'l.fx_currency, l.fx_amount_atoms, l.fx_rate, l.system';

/** A stored amount as a safe integer, exactly; null for one that is not (damage). */
function exactAtoms(v: unknown): number | null {
  try {
    return storedAtoms(v);
  } catch {
    return null;
  }
}

/** A stored line as check reads it: its account's currency and its snapshot. */
export interface StoredFxLine {
  je_number: string;
  line_no: number;
  external_id: string;
  account_currency: string | null;
  fx_currency: string | null;
  fx_amount_atoms: unknown;
  fx_rate: string | null;
  amount_atoms: unknown;
}

/**
 * What is wrong with a stored line's snapshot (docs/currency.md, "Checks"), or null: a line on a
 * foreign account has one in the account's currency, a functional line none, and the functional
 * amount is the snapshot's conversion at its rate (or the rate is what the two amounts imply).
 */
export function fxLineProblem(l: StoredFxLine, functional: string): string | null {
  const at = `${l.je_number} line ${l.line_no} (${l.external_id})`;
  const foreign =
    l.account_currency !== null && l.account_currency !== functional ? l.account_currency : null;
  if (l.fx_currency === null)
    return foreign ? `${at} is on an account kept in ${foreign} but has no fx snapshot` : null;
  if (!foreign) return `${at} is on an account kept in ${functional} but has an fx snapshot`;
  if (l.fx_currency !== foreign)
    return `${at} has a snapshot in ${l.fx_currency}, not its account's ${foreign}`;
  // Read exactly (a store may give a bigint or a numeric string): never rounded through a float.
  const amount = exactAtoms(l.fx_amount_atoms);
  const functionalAtoms = exactAtoms(l.amount_atoms);
  if (amount === null || amount < 0) return `${at} has a foreign amount that is not whole atoms`;
  // A functional amount that is not whole atoms is the balance check's to name.
  if (functionalAtoms === null) return null;
  if (amount === 0)
    return l.fx_rate === '0' ? null : `${at} has no foreign amount but a rate of ${l.fx_rate}`;
  const rate = parseRate(l.fx_rate);
  if (!rate.ok) return `${at} has a damaged rate (${String(l.fx_rate)})`;
  if (convert(amount, rate.rate, foreign, functional) === BigInt(functionalAtoms)) return null;
  if (impliedRate(amount, functionalAtoms, foreign, functional) === l.fx_rate) return null;
  return `${at}: ${amount} atoms of ${foreign} at ${l.fx_rate} are not its ${functionalAtoms} atoms of ${functional}`;
}
