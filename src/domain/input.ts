import type { Counterparty, GlAccount } from './accounts.js';
import type { Problem } from './errors.js';
import { isIsoDate, isIsoMonth } from './dates.js';
import { formatAmount, MAX_ATOMS, parseDecimal, plainDecimalAtoms } from './money.js';

/**
 * What people type, read into values: one function per kind of input (amount, date, month, whole
 * number, account reference), each with one message per way it can be wrong. Flags, JSON bodies,
 * CSV cells and prompts all call these; the caller only says where the value came from.
 */
export type Read<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      reason: string;
      message: string;
      /** The text is not of the kind at all (not a number, not a date), rather than a value refused. */
      unreadable: boolean;
    };

const fail = <T>(reason: string, message: string, unreadable = false): Read<T> => ({
  ok: false,
  reason,
  message,
  unreadable,
});

/**
 * A positive decimal amount in major units (`1250`, `1250.00`, `1,250.00`) as exact atoms of a
 * currency with `exponent` decimals, from 1 to MAX_ATOMS. The message of a refusal says what is
 * accepted: a currency sign, a decimal comma, a sign or parentheses each get their own advice.
 */
export function readAmount(
  text: string,
  exponent: number,
  currency = 'the currency',
): Read<number> {
  const plain = plainDecimalAtoms(text, exponent);
  if (plain !== null && plain >= 1) return { ok: true, value: plain };
  const t = text.trim();
  if (t === '') return fail('invalid_amount', 'the amount is blank', true);
  const parsed = parseDecimal(t, exponent);
  if (parsed.ok) {
    if (parsed.atoms < 0n) return fail('invalid_amount', negative(t));
    if (parsed.atoms === 0n)
      return fail('invalid_amount', `'${t}' is zero: an amount is more than 0`);
    if (parsed.atoms > BigInt(MAX_ATOMS)) {
      const most = formatAmount(MAX_ATOMS, exponent);
      return fail('invalid_amount', `'${t}' is more than the largest amount, ${most}`);
    }
    return { ok: true, value: Number(parsed.atoms) };
  }
  if (parsed.reason === 'too_many_decimals') {
    const decimals = t.length - t.indexOf('.') - 1;
    return fail(
      'invalid_amount',
      `'${t}' has ${decimals} decimal${decimals === 1 ? '' : 's'}; ${currency} has ${exponent}`,
    );
  }
  // A negative written in parentheses or with a trailing minus is read, and refused as -5 is (CAPI33).
  if (/^\(.*\)$/.test(t) || /^[0-9.,]+-$/.test(t)) return fail('invalid_amount', negative(t));
  return fail('invalid_amount', notDecimal(t), true);
}

const negative = (t: string) =>
  `'${t}' is negative: an amount is positive, and a credit goes on the credit side`;

/** Why a text that is not a plain decimal is refused, with what to write instead. */
function notDecimal(t: string): string {
  const head = `'${t}' is not a decimal amount`;
  const bare = t.replace(/^[$€£¥]|^[A-Z]{3}\s*|\s*[A-Z]{3}$|[$€£¥]$/g, '');
  if (bare !== t && /^-?[0-9][0-9.,]*$/.test(bare)) {
    return `${head}: leave out the currency (${bare})`;
  }
  if (/^-?\d{1,3}(\.\d{3})*,\d+$/.test(t) || /^-?\d+,\d{1,2}$/.test(t)) {
    const fixed = t.replace(/\./g, '').replace(',', '.');
    return `${head}: it has a decimal comma; write ${fixed}`;
  }
  return `${head}: write digits with an optional point, such as 1250 or 1,250.00`;
}

/** A calendar date written YYYY-MM-DD. */
export function readDate(text: string): Read<string> {
  const t = text.trim();
  if (isIsoDate(t)) return { ok: true, value: t };
  return fail(
    'invalid_date',
    `'${text}' is not a date: write YYYY-MM-DD, such as 2025-01-31`,
    true,
  );
}

/** A month written YYYY-MM. */
export function readMonth(text: string): Read<string> {
  const t = text.trim();
  if (isIsoMonth(t)) return { ok: true, value: t };
  return fail('invalid_month', `'${text}' is not a month: write YYYY-MM, such as 2025-01`, true);
}

/** A whole number within [min, max] (decimal digits only). */
export function readWholeNumber(
  text: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): Read<number> {
  const t = text.trim();
  const n = /^-?\d{1,16}$/.test(t) ? Number(t) : NaN;
  if (Number.isSafeInteger(n) && n >= min && n <= max) return { ok: true, value: n };
  const range = max === Number.MAX_SAFE_INTEGER ? `from ${min}` : `from ${min} to ${max}`;
  return fail('invalid_number', `'${text}' is not a whole number ${range}`, true);
}

/** How an account is written where people name one: its external id or its account number. */
export type AccountFinder = (ref: string) => Read<GlAccount>;

/** An account as people name it: by external id or number, and by name in a hint. */
type Named = { name: string; external_id: string; account_number: string | null };

/** Accounts by external id, then by account number; and what to say of a reference that names none. */
export interface AccountIndex<A extends Named = GlAccount> {
  get(ref: string): A | undefined;
  /** Why a reference names no account, with the accounts it most resembles (by name, number or id). */
  unknown(ref: string): string;
}

export function accountIndex<A extends Named>(accounts: A[]): AccountIndex<A> {
  const byExt = new Map(accounts.map((a) => [a.external_id, a]));
  const byNumber = new Map<string, A>();
  for (const a of accounts) if (a.account_number) byNumber.set(a.account_number, a);
  return {
    get: (ref) => byExt.get(ref) ?? byNumber.get(ref),
    unknown(ref) {
      const near = closeMatches(ref, accounts);
      const hint = near.length ? `; did you mean ${near.map(describeAccount).join(', ')}?` : '';
      return `no account '${ref}': name it by external id or account number${hint}`;
    },
  };
}

/**
 * Finds accounts by external id first, then by account number. A reference that names none is
 * refused with the accounts it most resembles, so that a typo or a name typed where an id belongs
 * gets an answer.
 */
export function accountFinder(accounts: GlAccount[]): AccountFinder {
  const index = accountIndex(accounts);
  return (ref) => {
    const t = ref.trim();
    const found = index.get(t);
    return found ? { ok: true, value: found } : fail('unknown_account', index.unknown(t));
  };
}

/** An account as messages name it: `6100 Rent (rent)`. */
export function describeAccount(a: {
  account_number: string | null;
  name: string;
  external_id: string;
}): string {
  return `${a.account_number ? `${a.account_number} ` : ''}${a.name} (${a.external_id})`;
}

/** Up to three accounts whose name, number or id resembles the text (case aside). */
export function closeMatches<A extends Named>(text: string, accounts: A[]): A[] {
  const t = text.toLowerCase();
  if (!t) return [];
  const scored: [number, A][] = [];
  for (const a of accounts) {
    const keys = [a.name, a.external_id, a.account_number ?? ''].map((k) => k.toLowerCase());
    let best = Infinity;
    for (const k of keys) {
      if (!k) continue;
      if (k === t) best = 0;
      else if (k.startsWith(t) || t.startsWith(k)) best = Math.min(best, 1);
      else if (k.includes(t)) best = Math.min(best, 2);
      else if (Math.abs(k.length - t.length) <= 2) {
        const d = editDistance(k, t);
        if (d <= Math.max(1, Math.floor(t.length / 4))) best = Math.min(best, 2 + d);
      }
    }
    if (best < Infinity) scored.push([best, a]);
  }
  scored.sort((x, y) => x[0] - y[0]);
  return scored.slice(0, 3).map(([, a]) => a);
}

/** Levenshtein distance of two short texts. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * A filter's accounts (by external id or number) that the chart does not have: refused as an unknown
 * counterparty is, each with the accounts it resembles, not answered with an empty report.
 */
export function unknownAccounts(refs: string[], accounts: Named[]): Problem[] {
  const index = accountIndex(accounts);
  return refs
    .map((ref) => ref.trim())
    .filter((ref) => !index.get(ref))
    .map((ref) => ({ path: 'account', reason: 'unknown_account', message: index.unknown(ref) }));
}

/** Why a counterparty reference names none, with those of its type whose id or name resembles it. */
export function unknownCounterparty(
  ref: { type: string; external_id: string },
  counterparties: Counterparty[],
): string {
  const t = ref.external_id.toLowerCase();
  const near = counterparties
    .filter((c) => c.counterparty_type === ref.type)
    .filter((c) =>
      [c.external_id, c.name].some(
        (k) => k.toLowerCase().includes(t) || t.includes(k.toLowerCase()),
      ),
    )
    .slice(0, 3)
    .map((c) => `${c.counterparty_type}:${c.external_id} (${c.name})`);
  const hint = near.length ? `; did you mean ${near.join(', ')}?` : '';
  return `no ${ref.type} '${ref.external_id}'${hint}`;
}

/**
 * A filter's counterparty that the ledger does not have: refused as an unknown account is, not
 * answered with an empty report. Null when it has it.
 */
export function counterpartyProblem(
  ref: { type: string; external_id: string },
  counterparties: Counterparty[],
): Problem | null {
  const found = counterparties.some(
    (c) => c.counterparty_type === ref.type && c.external_id === ref.external_id,
  );
  if (found) return null;
  const message = unknownCounterparty(ref, counterparties);
  return { path: 'counterparty', reason: 'unknown_counterparty', message };
}
