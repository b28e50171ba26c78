import { BooksError } from './errors.js';
/** Largest amount in atoms that a line, an entry total or a JSON number can carry exactly. */
export const MAX_ATOMS = Number.MAX_SAFE_INTEGER;

/**
 * The currency codes Node's ICU knows (ISO 4217, current and withdrawn, as CLDR lists them: the funds
 * codes such as CLF and UYW included) and the exponents that are not 2, as Intl.NumberFormat gives
 * them: one maintained source, the runtime's. Kept here rather than asked of Intl: building ICU's
 * currency data costs about 15 ms of every command's start. A unit test holds the table to Intl,
 * code by code, so that it follows Node's data.
 */
const CODES = new Set(
  (
    'ADP AED AFA AFN ALK ALL AMD ANG AOA AOK AON AOR ARA ARL ARM ARP ARS ATS AUD AWG AZM AZN BAD ' +
    'BAM BAN BBD BDT BEC BEF BEL BGL BGM BGN BGO BHD BIF BMD BND BOB BOL BOP BOV BRB BRC BRE BRL ' +
    'BRN BRR BRZ BSD BTN BUK BWP BYB BYN BYR BZD CAD CDF CHE CHF CHW CLE CLF CLP CNH CNX CNY COP ' +
    'COU CRC CSD CSK CUC CUP CVE CYP CZK DDM DEM DJF DKK DOP DZD ECS ECV EEK EGP ERN ESA ESB ESP ' +
    'ETB EUR FIM FJD FKP FRF GBP GEK GEL GHC GHS GIP GMD GNF GNS GQE GRD GTQ GWE GWP GYD HKD HNL ' +
    'HRD HRK HTG HUF IDR IEP ILP ILR ILS INR IQD IRR ISJ ISK ITL JMD JOD JPY KES KGS KHR KMF KPW ' +
    'KRH KRO KRW KWD KYD KZT LAK LBP LKR LRD LSL LTL LTT LUC LUF LUL LVL LVR LYD MAD MAF MCF MDC ' +
    'MDL MGA MGF MKD MKN MLF MMK MNT MOP MRO MRU MTL MTP MUR MVP MVR MWK MXN MXP MXV MYR MZE MZM ' +
    'MZN NAD NGN NIC NIO NLG NOK NPR NZD OMR PAB PEI PEN PES PGK PHP PKR PLN PLZ PTE PYG QAR RHD ' +
    'ROL RON RSD RUB RUR RWF SAR SBD SCR SDD SDG SDP SEK SGD SHP SIT SKK SLE SLL SOS SRD SRG SSP ' +
    'STD STN SUR SVC SYP SZL THB TJR TJS TMM TMT TND TOP TPE TRL TRY TTD TWD TZS UAH UAK UGS UGX ' +
    'USD USN USS UYI UYP UYU UYW UZS VEB VED VEF VES VND VNN VUV WST XAF XAG XAU XBA XBB XBC XBD ' +
    'XCD XCG XDR XEU XFO XFU XOF XPD XPF XPT XRE XSU XTS XUA XXX YDD YER YUD YUM YUN YUR ZAL ZAR ' +
    'ZMK ZMW ZRN ZRZ ZWD ZWG ZWL ZWR '
  )
    .split(' ')
    .filter(Boolean),
);
const EXPONENTS: Record<string, number> = Object.fromEntries(
  (
    [
      [
        0,
        'ADP AFN ALL BIF BYR CLP COP DJF ESP GNF HUF IDR IQD IRR ISK ITL JPY KMF KPW KRW LAK LBP LUF ' +
          'MGA MGF MMK MRO PKR PYG RWF SLL SOS STD SYP TMM TRL UGX UYI VND VUV XAF XOF XPF YER ZMK ZWD ',
      ],
      [3, 'BHD JOD KWD LYD OMR TND '],
      [4, 'CLF UYW '],
    ] as const
  ).flatMap(([exponent, codes]) =>
    codes
      .split(' ')
      .filter(Boolean)
      .map((c) => [c, exponent]),
  ),
);

/** ISO 4217 minor-unit exponent of a currency code (USD 2, JPY 0, BHD 3), or null for an unknown code. */
export function currencyExponent(code: string): number | null {
  return CODES.has(code) ? (EXPONENTS[code] ?? 2) : null;
}

/** The exponent of a code already known to be valid (an entity's own currency). */
export function exponentOf(code: string): number {
  return currencyExponent(code) ?? 2;
}

/** Every code the table knows, for the test that holds it to Intl. */
export const CURRENCY_CODES: ReadonlySet<string> = CODES;

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
  // A safe integer prints exactly as a number: no bigint needed (the general ledger's hot path).
  const neg = atoms < 0;
  const digits = String(neg ? -atoms : atoms).padStart(exponent + 1, '0');
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

const MAX_BIG = BigInt(MAX_ATOMS);

/**
 * An amount in atoms as a store gives it back (a number, a bigint, a numeric string), exactly: every
 * amount written was a safe integer, so anything else is damage, refused rather than rounded.
 */
export function storedAtoms(v: unknown): number {
  const n = typeof v === 'bigint' || typeof v === 'string' ? Number(v) : v;
  if (Number.isSafeInteger(n) && (typeof v !== 'bigint' || BigInt(n as number) === v))
    return n as number;
  throw new BooksError('damaged', `a stored amount (${String(v)}) is not a whole number of atoms`);
}

/** Converts an exact bigint to a number when it fits, for JSON; larger values stay bigint. */
export function toJsonInteger(v: bigint): number | bigint {
  return v <= MAX_BIG && v >= -MAX_BIG ? Number(v) : v;
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
