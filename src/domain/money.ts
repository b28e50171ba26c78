/** Largest amount in atoms that a line, an entry total or a JSON number can carry exactly. */
export const MAX_ATOMS = Number.MAX_SAFE_INTEGER;

const exponentCache = new Map<string, number | null>();
let known: Set<string> | null = null;

/** ISO 4217 minor-unit exponent of a currency code (USD 2, JPY 0, BHD 3), or null for an unknown code. */
export function currencyExponent(code: string): number | null {
  const cached = exponentCache.get(code);
  if (cached !== undefined) return cached;
  // The list of codes costs ~10 ms to build, so it is built once and only when a code is new.
  known ??= new Set(Intl.supportedValuesOf('currency'));
  const result = /^[A-Z]{3}$/.test(code) && known.has(code) ? exponentOf(code) : null;
  exponentCache.set(code, result);
  return result;
}

/** The exponent of a code already known to be valid (an entity's own currency). */
export function exponentOf(code: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits ?? 2
  );
}

export type ParsedAmount =
  | { ok: true; atoms: bigint }
  | { ok: false; reason: 'invalid_amount' | 'too_many_decimals'; message: string };

const DECIMAL = /^(-)?(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d*))?$/;

/**
 * Parses a decimal amount as people type it (`1250`, `1250.00`, `1,250.00`, `-3.5`) into exact integer
 * atoms of a currency with the given exponent. Never goes through floating point; refuses more
 * decimals than the currency has.
 */
export function parseDecimal(text: string, exponent: number): ParsedAmount {
  const t = text.trim();
  const m = DECIMAL.exec(t);
  if (!t || !m || (m[2] === undefined && !m[3])) {
    return { ok: false, reason: 'invalid_amount', message: `'${text}' is not a decimal amount` };
  }
  const whole = (m[2] ?? '0').replace(/,/g, '');
  const frac = m[3] ?? '';
  if (frac.length > exponent) {
    return {
      ok: false,
      reason: 'too_many_decimals',
      message: `'${text}' has ${frac.length} decimals; the currency has ${exponent}`,
    };
  }
  const atoms = BigInt(whole + frac.padEnd(exponent, '0'));
  return { ok: true, atoms: m[1] ? -atoms : atoms };
}

/** Formats atoms as a plain decimal (`-1250.00`), the form for CSV cells and machine text. */
export function atomsToDecimal(atoms: bigint | number, exponent: number): string {
  const a = BigInt(atoms);
  const neg = a < 0n;
  const digits = (neg ? -a : a).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const frac = exponent > 0 ? '.' + digits.slice(digits.length - exponent) : '';
  return (neg ? '-' : '') + whole + frac;
}

/**
 * Formats atoms for people: thousands separators, the currency's decimals, negatives in parentheses
 * (`(1,250.00)`), as accountants print them.
 */
export function formatAmount(atoms: bigint | number, exponent: number): string {
  if (typeof atoms === 'number' && exponent === 2 && Math.abs(atoms) < 1e15)
    return formatCents(atoms);
  const plain = atomsToDecimal(atoms, exponent);
  const neg = plain.startsWith('-');
  const body = neg ? plain.slice(1) : plain;
  const dot = body.indexOf('.');
  const whole = dot === -1 ? body : body.slice(0, dot);
  const frac = dot === -1 ? '' : body.slice(dot);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return neg ? `(${grouped}${frac})` : grouped + frac;
}

/** Converts an exact bigint to a number when it fits, for JSON; larger values stay bigint. */
export function toJsonInteger(v: bigint): number | bigint {
  return v <= BigInt(MAX_ATOMS) && v >= -BigInt(MAX_ATOMS) ? Number(v) : v;
}

/** The common case of formatAmount (exponent 2, a safe number) without bigint arithmetic. */
function formatCents(atoms: number): string {
  const a = Math.abs(atoms);
  const cents = a % 100;
  const whole = String((a - cents) / 100).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const text = `${whole}.${cents < 10 ? '0' : ''}${cents}`;
  return atoms < 0 ? `(${text})` : text;
}

/**
 * The common case of parseDecimal, without regular expressions or bigint: plain digits with an
 * optional point (`1250`, `1250.5`, `.75`) and at most the currency's decimals, 15 digits in all, as
 * exact atoms (every step is an integer below 2^53). Null for anything else, which parseDecimal
 * then judges.
 */
export function plainDecimalAtoms(text: string, exponent: number): number | null {
  const len = text.length;
  let atoms = 0;
  let digits = 0;
  let decimals = -1;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (decimals !== -1) return null;
      decimals = 0;
      continue;
    }
    if (c < 48 || c > 57) return null;
    if (decimals !== -1 && ++decimals > exponent) return null;
    atoms = atoms * 10 + (c - 48);
    digits++;
  }
  if (digits === 0) return null;
  if (decimals === -1) decimals = 0;
  if (digits + exponent - decimals > 15) return null;
  for (; decimals < exponent; decimals++) atoms *= 10;
  return atoms;
}
