import { isIsoDate } from './dates.js';
import { lineTags, tagRule } from './tagRule.js';
import { LONE_SURROGATE, type Tags } from './tags.js';
import { dateBar } from './entityRules.js';
import type { FxSnapshot } from './fx.js';
import { counterpartyRule } from './counterpartyRule.js';
import { fxRule, realizedRule } from './fxRule.js';
import type { OpenItems } from './settlement.js';
import {
  MAX_LINES,
  MIN_LINES,
  type AccountRef,
  type CounterpartyRef,
  type ValidationContext,
  type ValidLine,
} from './entry.js';
import type { Problem } from './errors.js';
import { normaliseJeNumber, type JeSeq } from './jeNumber.js';
import { JsonFraction } from './json.js';
import { currencyExponent, formatAmount, MAX_ATOMS } from './money.js';

/**
 * Entry validation as beancount's validations are: a list of small rules over one shared state,
 * each adding the problems it finds (with their paths) and what it learnt for the rules after it.
 * Every rule runs, so that every problem of an entry is reported at once.
 */
export interface EntryCheck {
  readonly body: Obj;
  readonly ctx: ValidationContext;
  readonly problems: Problem[];
  currency: string;
  /** Decimals of the entity's currency, for amounts in messages. */
  exponent: number;
  entryDate: string | null;
  isAdjusting: boolean;
  jeNumber: string | null;
  jeSeq: JeSeq | null;
  memo: string | null;
  reason: string | null;
  /** The date of the entry's automatic reversal, when it asks for one. */
  autoReverseOn: string | null;
  lines: ValidLine[];
  /** Sums while they stay exact (below 2^53); the balance rule sums again as bigint past that. */
  debits: number;
  credits: number;
  /** Each line's amount (given or converted), negative for a credit: for the exact sums past 2^53. */
  signed: number[];
  /** The open foreign items of the receivables and payables the entry's lines settle, by account and counterparty. */
  openItems: Map<string, OpenItems>;
  /** Its lines valued at carrying rates (settlements): their gain or loss is realizedRule's. */
  settlements: LineCheck[];
  amountsValid: boolean;
  /** The entry's own tags; a line's effective ones are these overridden by its own. */
  tags: Tags;
}

/** One line of the entry under check. */
export interface LineCheck {
  readonly raw: Obj;
  readonly index: number;
  account: AccountRef | null;
  lineType: 'debit' | 'credit' | null;
  amount: number | null;
  counterparty: CounterpartyRef | null;
  fx: FxSnapshot | null;
}

export type EntryRule = (c: EntryCheck) => void;
export type LineRule = (c: EntryCheck, l: LineCheck) => void;

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX_TEXT = 1000;
const ENTRY_FIELDS = new Set([
  'currency',
  'entry_date',
  'lines',
  'is_adjusting',
  'je_number',
  'manual_entry_reason',
  'memo',
  'auto_reverse_on',
  'tags',
]);
const LINE_FIELDS = new Set([
  'gl_account_id',
  'line_type',
  'amount_atoms',
  'memo',
  'counterparty_type',
  'counterparty_external_id',
  'fx',
  'tags',
]);

export const add = (c: EntryCheck, path: string, reason: string, message: string) =>
  c.problems.push({ path, reason, message });
/** A line's path; built only for a problem, as most lines have none. */
export const at = (l: LineCheck, field: string) => `lines[${l.index}]${field ? `.${field}` : ''}`;

export const knownFields: EntryRule = (c) => {
  for (const k in c.body)
    if (!ENTRY_FIELDS.has(k)) add(c, k, 'unknown_field', `unknown field '${k}'`);
};

export const currencyRule: EntryRule = (c) => {
  const given = c.body.currency;
  if (given === undefined) return;
  const entity = c.ctx.entity.currency;
  if (typeof given !== 'string' || currencyExponent(given) === null) {
    add(c, 'currency', 'invalid_currency', `'${String(given)}' is not an ISO 4217 currency code`);
  } else if (given !== entity) {
    const message = `currency ${given} does not match the entity's functional currency ${entity}`;
    add(c, 'currency', 'currency_mismatch', message);
  }
};

export const dateRule: EntryRule = (c) => {
  const d = c.body.entry_date;
  const bar = isIsoDate(d) ? dateBar(c.ctx.entity, d) : null;
  if (d === undefined) add(c, 'entry_date', 'missing_field', 'entry_date is required');
  else if (!isIsoDate(d)) {
    add(c, 'entry_date', 'invalid_date', `'${String(d)}' is not a date: write YYYY-MM-DD`);
  } else if (bar?.reason === 'before_books_start') {
    add(c, 'entry_date', bar.reason, `${d} is before the books start on ${bar.books_start}`);
  } else if (bar) {
    const message = `${d} is in a closed period: the books are closed through ${bar.lock_date}`;
    add(c, 'entry_date', bar.reason, message);
  } else c.entryDate = d;
};

/**
 * An accrual that reverses itself (docs/close.md): its reversal's date, after the entry's own (and so,
 * like it, after the lock date). Checked after the entry's date.
 */
export const autoReverseRule: EntryRule = (c) => {
  const v = c.body.auto_reverse_on;
  if (v === undefined || v === null) return;
  if (!isIsoDate(v))
    return add(
      c,
      'auto_reverse_on',
      'invalid_date',
      `'${String(v)}' is not a date: write YYYY-MM-DD`,
    );
  // Later than the entry, which the books start bars already: only the lock date is asked.
  const bar = dateBar({ books_start: null, lock_date: c.ctx.entity.lock_date }, v);
  if (bar?.reason === 'period_closed')
    return add(
      c,
      'auto_reverse_on',
      'period_closed',
      `the reversal's date ${v} is in a closed period: the books are closed through ${bar.lock_date}`,
    );
  const d = c.body.entry_date;
  if (isIsoDate(d) && v <= d)
    return add(
      c,
      'auto_reverse_on',
      'reversal_not_after_entry',
      `the reversal's date ${v} is not after the entry's date ${d}`,
    );
  c.autoReverseOn = v;
};

export const adjustingRule: EntryRule = (c) => {
  const v = c.body.is_adjusting ?? false;
  if (typeof v !== 'boolean')
    add(c, 'is_adjusting', 'invalid_type', 'is_adjusting must be true or false');
  else c.isAdjusting = v;
};

export const jeNumberRule: EntryRule = (c) => {
  const v = c.body.je_number;
  if (v === undefined || v === null) return;
  if (typeof v !== 'string')
    return add(c, 'je_number', 'invalid_type', 'je_number must be a string');
  const n = normaliseJeNumber(v);
  if (!n.ok) add(c, 'je_number', 'invalid_je_number', n.message);
  else if (c.ctx.jeNumberTaken(n.value)) {
    add(c, 'je_number', 'duplicate_je_number', `${n.value} is already used by another entry`);
  } else [c.jeNumber, c.jeSeq] = [n.value, n.seq];
};

/**
 * A text field that may be absent or null, and is at most MAX_TEXT characters, without NUL (U+0000):
 * a database's text cannot hold it, and no ledger keeps what one store could not.
 */
function optionalText(c: EntryCheck, o: Obj, field: string, path: string): string | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') add(c, path, 'invalid_type', `${field} must be a string`);
  else if (v.length > MAX_TEXT)
    add(c, path, 'too_long', `${field} is longer than ${MAX_TEXT} characters`);
  else if (v.includes('\u0000'))
    add(
      c,
      path,
      'invalid_text',
      `${field} holds a NUL character (U+0000), which a ledger cannot keep`,
    );
  // A lone half of a surrogate pair is no character: a store would keep something else than the
  // text given (and its audit event would no longer match it).
  else if (LONE_SURROGATE.test(v))
    add(
      c,
      path,
      'invalid_text',
      `${field} holds a lone surrogate (U+D800–U+DFFF), which is no text`,
    );
  else return v;
  return null;
}

export const textRules: EntryRule = (c) => {
  c.memo = optionalText(c, c.body, 'memo', 'memo');
  c.reason = optionalText(c, c.body, 'manual_entry_reason', 'manual_entry_reason');
};

export const lineFields: LineRule = (c, l) => {
  for (const k in l.raw) {
    if (LINE_FIELDS.has(k)) continue;
    // A guess at the amount's name gets the field that holds it.
    const hint = /^amount|^value$|^sum$/.test(k)
      ? ': a line amount is amount_atoms, in integer atoms (12.50 USD is 1250)'
      : '';
    add(c, at(l, k), 'unknown_field', `unknown field '${k}'${hint}`);
  }
};

export const accountRule: LineRule = (c, l) => {
  const v = l.raw.gl_account_id;
  if (typeof v !== 'string' || v === '') {
    const message =
      v === undefined ? 'gl_account_id is required' : 'gl_account_id must be a non-empty string';
    return add(c, at(l, 'gl_account_id'), 'unknown_account', message);
  }
  const a = c.ctx.account(v);
  // An account in another currency takes lines with its snapshot (fxRule).
  if (a && a.is_active && a.is_postable) {
    l.account = a;
    return;
  }
  const path = at(l, 'gl_account_id');
  if (!a) {
    const near = c.ctx.resembling?.(v) ?? [];
    const hint = near.length ? `; did you mean ${near.join(', ')}?` : '';
    add(c, path, 'unknown_account', `no GL account with external id or number '${v}'${hint}`);
  } else if (!a.is_active)
    add(c, path, 'inactive_account', `GL account '${v}' (${a.name}) is inactive`);
  else {
    const message = `GL account '${v}' (${a.name}) is a header account and cannot be posted to`;
    add(c, path, 'unpostable_account', message);
  }
};

export const sideRule: LineRule = (c, l) => {
  const t = l.raw.line_type;
  if (t === 'debit' || t === 'credit') l.lineType = t;
  else {
    const message = `line_type must be 'debit' or 'credit', not '${String(t)}'`;
    add(c, at(l, 'line_type'), 'invalid_line_type', message);
  }
};

export const amountRule: LineRule = (c, l) => {
  if (l.amount !== null) return addAmount(c, l, l.amount);
  if (
    l.raw.fx !== undefined &&
    l.raw.fx !== null &&
    l.fx === null &&
    l.raw.amount_atoms === undefined
  ) {
    // The snapshot's own problem is reported (or the line is left to a ledger that knows the rate).
    c.amountsValid = false;
    return;
  }
  const v = l.raw.amount_atoms;
  // An amount under another name is already reported as that field: one problem, not two.
  if (v === undefined && Object.keys(l.raw).some((k) => /^amount./.test(k) || k === 'amount')) {
    c.amountsValid = false;
    return;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1) {
    l.amount = v;
    return addAmount(c, l, v);
  }
  c.amountsValid = false;
  add(c, at(l, 'amount_atoms'), 'invalid_amount', amountMessage(v));
};

function addAmount(c: EntryCheck, l: LineCheck, v: number): void {
  if (l.lineType === 'debit') c.debits += v;
  else if (l.lineType === 'credit') c.credits += v;
  else return void (c.amountsValid = false);
  c.signed.push(l.lineType === 'debit' ? v : -v);
}

function amountMessage(v: unknown): string {
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v) && v > MAX_ATOMS)) {
    return v > 0
      ? `amount_atoms ${v} exceeds ${MAX_ATOMS}`
      : `amount_atoms must be at least 1, not ${v}`;
  }
  if (typeof v === 'number' && Number.isInteger(v))
    return `amount_atoms must be at least 1, not ${v}`;
  if (v === undefined) return 'amount_atoms is required';
  const shown = v instanceof JsonFraction ? v.text : JSON.stringify(v);
  return `amount_atoms must be a whole number of atoms, written without a point, not ${shown}`;
}

export const LINE_RULES: readonly LineRule[] = [
  lineFields,
  accountRule,
  sideRule,
  fxRule,
  amountRule,
  counterpartyRule,
];

export const linesRule: EntryRule = (c) => {
  const raw = c.body.lines;
  if (raw === undefined) return add(c, 'lines', 'missing_field', 'lines is required');
  if (!Array.isArray(raw)) return add(c, 'lines', 'invalid_type', 'lines must be an array');
  if (raw.length < MIN_LINES || raw.length > MAX_LINES) {
    const message = `an entry has ${MIN_LINES} to ${MAX_LINES} lines; this one has ${raw.length}`;
    add(c, 'lines', 'line_count', message);
  }
  for (let i = 0; i < raw.length; i++) {
    const line: unknown = raw[i];
    if (!isObj(line)) {
      add(c, `lines[${i}]`, 'invalid_type', 'a line must be an object');
      c.amountsValid = false;
      continue;
    }
    const l: LineCheck = {
      raw: line,
      index: i,
      account: null,
      lineType: null,
      amount: null,
      counterparty: null,
      fx: null,
    };
    for (const rule of LINE_RULES) rule(c, l);
    const memo = line.memo === undefined ? null : optionalText(c, line, 'memo', at(l, 'memo'));
    const tags = lineTags(c, l);
    if (l.account && l.lineType && l.amount !== null) {
      const { account, lineType: line_type, amount: amount_atoms, counterparty, fx } = l;
      c.lines.push({ account, line_type, amount_atoms, memo, counterparty, fx, tags });
    }
  }
};

export const balanceRule: EntryRule = (c) => {
  const raw = c.body.lines;
  if (!c.amountsValid || !Array.isArray(raw) || raw.length === 0) return;
  const money = (n: bigint | number) => formatAmount(n, c.exponent);
  if (c.debits > MAX_ATOMS || c.credits > MAX_ATOMS) {
    let [d, cr] = [0n, 0n];
    for (const v of c.signed)
      if (v > 0) d += BigInt(v);
      else cr -= BigInt(v);
    if (d !== cr)
      add(
        c,
        'lines',
        'unbalanced',
        `entry is not balanced: debits ${money(d)} ≠ credits ${money(cr)}`,
      );
    else
      add(c, 'lines', 'total_too_large', `the entry's debit total ${d} atoms exceeds ${MAX_ATOMS}`);
  } else if (c.debits !== c.credits) {
    const message = `entry is not balanced: debits ${money(c.debits)} ≠ credits ${money(c.credits)}`;
    add(c, 'lines', 'unbalanced', message);
  }
};

/** Every rule of an entry, in their problems' order. */
export const ENTRY_RULES: readonly EntryRule[] = [
  knownFields,
  currencyRule,
  dateRule,
  autoReverseRule,
  adjustingRule,
  jeNumberRule,
  textRules,
  tagRule,
  linesRule,
  realizedRule,
  balanceRule,
];
