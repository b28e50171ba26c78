import { requiredCounterpartyType, type AccountType, type Entity } from './accounts.js';
import { isIsoDate } from './dates.js';
import type { Problem } from './errors.js';
import { normaliseJeNumber } from './jeNumber.js';
import { currencyExponent, formatAmount, MAX_ATOMS } from './money.js';

export const MIN_LINES = 2;
export const MAX_LINES = 1000;
const MAX_TEXT = 1000;

/** A journal-entry line as posted and returned (spec 2.3). */
export interface JournalEntryLine {
  id: string;
  object: 'journal_entry_line';
  created_at: string;
  updated_at: string;
  is_deleted: boolean;
  journal_entry_id: string;
  account_id: string;
  account_number: string | null;
  account_name: string;
  account_type: string;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
  memo: string | null;
  counterparty_type: string | null;
  counterparty_external_id: string | null;
  counterparty_name: string | null;
}

/** A journal entry as posted and returned (spec 2.1). */
export interface JournalEntry {
  id: string;
  object: 'journal_entry';
  created_at: string;
  updated_at: string;
  is_deleted: boolean;
  je_number: string;
  entry_date: string;
  memo: string | null;
  source: string;
  total_debit_atoms: number;
  total_credit_atoms: number;
  currency: string;
  lines: JournalEntryLine[];
  status: string;
  manual_entry_reason: string | null;
  policy_key: string | null;
  tags: Record<string, string>;
  attachments: { url: string; filename: string; content_type: string }[];
  is_adjusting: boolean;
  entry_type_label: string;
  counterparty_name: string | null;
  source_description: string | null;
  source_svc_object: {
    object_type: string;
    object_external_id: string;
    display_number: string;
  } | null;
  original_journal_entry_id: string | null;
  original_journal_entry_date: string | null;
  reversed_by_journal_entry_ids: string[];
}

/** What validation needs to know about an account a line names. */
export interface AccountRef {
  key: number;
  id: string;
  external_id: string;
  account_number: string | null;
  name: string;
  account_type: AccountType;
  is_active: boolean;
  is_postable: boolean;
  currency: string | null;
}

export interface CounterpartyRef {
  id: string;
  counterparty_type: string;
  external_id: string;
  name: string;
  is_active: boolean;
}

/** Read-only look-ups entry validation consults; the ledger supplies them. */
export interface ValidationContext {
  entity: Entity;
  account(externalId: string): AccountRef | undefined;
  counterparty(type: string, externalId: string): CounterpartyRef | undefined;
  jeNumberTaken(normalised: string): boolean;
}

export interface ValidLine {
  account: AccountRef;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
  memo: string | null;
  counterparty: CounterpartyRef | null;
}

/** An entry that passed every rule, ready to be written. */
export interface ValidEntry {
  currency: string;
  entry_date: string;
  is_adjusting: boolean;
  /** Normalised caller number, or null to assign JE-(largest + 1). */
  je_number: string | null;
  je_seq: number | null;
  memo: string | null;
  manual_entry_reason: string | null;
  lines: ValidLine[];
  total_atoms: number;
}

const ENTRY_FIELDS = new Set([
  'currency',
  'entry_date',
  'lines',
  'is_adjusting',
  'je_number',
  'manual_entry_reason',
  'memo',
]);
const LINE_FIELDS = new Set([
  'gl_account_id',
  'line_type',
  'amount_atoms',
  'memo',
  'counterparty_type',
  'counterparty_external_id',
]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a `POST /v1/journal-entries` body against every rule of the spec and the entity, and returns
 * either the valid entry or every problem found (each with its path), never just the first.
 */
export function validateEntry(
  body: unknown,
  ctx: ValidationContext,
): { entry: ValidEntry; problems: [] } | { entry: null; problems: Problem[] } {
  const problems: Problem[] = [];
  const add = (path: string, reason: string, message: string) =>
    problems.push({ path, reason, message });

  if (!isObj(body)) {
    add('', 'invalid_body', 'the entry must be a JSON object');
    return { entry: null, problems };
  }
  for (const k in body) {
    if (!ENTRY_FIELDS.has(k)) add(k, 'unknown_field', `unknown field '${k}'`);
  }

  const entity = ctx.entity;
  let currency = entity.currency;
  if (body.currency !== undefined) {
    if (typeof body.currency !== 'string' || currencyExponent(body.currency) === null) {
      add(
        'currency',
        'invalid_currency',
        `'${String(body.currency)}' is not an ISO 4217 currency code`,
      );
    } else if (body.currency !== entity.currency) {
      add(
        'currency',
        'currency_mismatch',
        `currency ${body.currency} does not match the entity's functional currency ${entity.currency}`,
      );
    } else currency = body.currency;
  }
  const exponent = currencyExponent(entity.currency) ?? 2;

  const entryDate = body.entry_date;
  if (entryDate === undefined) add('entry_date', 'missing_field', 'entry_date is required');
  else if (!isIsoDate(entryDate))
    add('entry_date', 'invalid_date', `'${String(entryDate)}' is not a date (YYYY-MM-DD)`);
  else if (entity.books_start && entryDate < entity.books_start) {
    add(
      'entry_date',
      'before_books_start',
      `${entryDate} is before the books start on ${entity.books_start}`,
    );
  } else if (entity.lock_date && entryDate <= entity.lock_date) {
    add(
      'entry_date',
      'period_closed',
      `${entryDate} is in a closed period: the books are closed through ${entity.lock_date}`,
    );
  }

  const isAdjusting = body.is_adjusting ?? false;
  if (typeof isAdjusting !== 'boolean')
    add('is_adjusting', 'invalid_type', 'is_adjusting must be true or false');

  let jeNumber: string | null = null;
  let jeSeq: number | null = null;
  if (body.je_number !== undefined && body.je_number !== null) {
    if (typeof body.je_number !== 'string')
      add('je_number', 'invalid_type', 'je_number must be a string');
    else {
      const n = normaliseJeNumber(body.je_number);
      if (!n.ok) add('je_number', 'invalid_je_number', n.message);
      else if (ctx.jeNumberTaken(n.value))
        add('je_number', 'duplicate_je_number', `${n.value} is already used by another entry`);
      else [jeNumber, jeSeq] = [n.value, n.seq];
    }
  }
  const memo = optionalText(body, 'memo', add);
  const reason = optionalText(body, 'manual_entry_reason', add);

  const lines: ValidLine[] = [];
  // Sums as numbers while they stay exact (below 2^53); past that, summed again as bigint below.
  let debits = 0;
  let credits = 0;
  let amountsValid = true;
  const rawLines = body.lines;
  if (rawLines === undefined) add('lines', 'missing_field', 'lines is required');
  else if (!Array.isArray(rawLines)) add('lines', 'invalid_type', 'lines must be an array');
  else {
    if (rawLines.length < MIN_LINES || rawLines.length > MAX_LINES) {
      add(
        'lines',
        'line_count',
        `an entry has ${MIN_LINES} to ${MAX_LINES} lines; this one has ${rawLines.length}`,
      );
    }
    for (let i = 0; i < rawLines.length; i++) {
      const raw: unknown = rawLines[i];
      // Paths are built only for a problem: most lines have none.
      const at = (field: string) => `lines[${i}]${field ? `.${field}` : ''}`;
      if (!isObj(raw)) {
        add(at(''), 'invalid_type', 'a line must be an object');
        amountsValid = false;
        continue;
      }
      for (const k in raw) {
        if (!LINE_FIELDS.has(k)) add(at(k), 'unknown_field', `unknown field '${k}'`);
      }
      const account = checkAccount(raw.gl_account_id, at, currency, ctx, add);
      const lineType = raw.line_type;
      if (lineType !== 'debit' && lineType !== 'credit') {
        add(
          at('line_type'),
          'invalid_line_type',
          `line_type must be 'debit' or 'credit', not '${String(lineType)}'`,
        );
      }
      const amount = raw.amount_atoms;
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1) {
        amountsValid = false;
        add(at('amount_atoms'), 'invalid_amount', amountMessage(amount));
      } else if (lineType === 'debit') debits += amount;
      else if (lineType === 'credit') credits += amount;
      else amountsValid = false;
      const counterparty = checkCounterparty(raw, at, account, ctx, add);
      const lineMemo = raw.memo === undefined ? null : optionalText(raw, 'memo', add, at('') + '.');
      if (
        account &&
        (lineType === 'debit' || lineType === 'credit') &&
        typeof amount === 'number'
      ) {
        lines.push({
          account,
          line_type: lineType,
          amount_atoms: amount,
          memo: lineMemo,
          counterparty,
        });
      }
    }
  }

  let total = debits;
  if (amountsValid && Array.isArray(rawLines) && rawLines.length > 0) {
    if (debits > MAX_ATOMS || credits > MAX_ATOMS) {
      const exact = (side: string) =>
        (rawLines as Obj[]).reduce(
          (s, l) => (l.line_type === side ? s + BigInt(l.amount_atoms as number) : s),
          0n,
        );
      const [d, c] = [exact('debit'), exact('credit')];
      if (d !== c)
        add(
          'lines',
          'unbalanced',
          `entry is not balanced: debits ${formatAmount(d, exponent)} ≠ credits ${formatAmount(c, exponent)}`,
        );
      else
        add('lines', 'total_too_large', `the entry's debit total ${d} atoms exceeds ${MAX_ATOMS}`);
    } else if (debits !== credits) {
      add(
        'lines',
        'unbalanced',
        `entry is not balanced: debits ${formatAmount(debits, exponent)} ≠ credits ${formatAmount(credits, exponent)}`,
      );
    }
  }

  if (problems.length > 0) return { entry: null, problems };
  return {
    entry: {
      currency,
      entry_date: entryDate as string,
      is_adjusting: isAdjusting as boolean,
      je_number: jeNumber,
      je_seq: jeSeq,
      memo,
      manual_entry_reason: reason,
      lines,
      total_atoms: total,
    },
    problems: [],
  };
}

function amountMessage(v: unknown): string {
  if (typeof v === 'number' && Number.isInteger(v) && v > MAX_ATOMS)
    return `amount_atoms ${v} exceeds ${MAX_ATOMS}`;
  if (typeof v === 'number' && Number.isInteger(v))
    return `amount_atoms must be at least 1, not ${v}`;
  if (v === undefined) return 'amount_atoms is required';
  return `amount_atoms must be a whole number of atoms, not ${JSON.stringify(v)}`;
}

function optionalText(
  o: Obj,
  field: string,
  add: (p: string, r: string, m: string) => void,
  prefix = '',
): string | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') add(prefix + field, 'invalid_type', `${field} must be a string`);
  else if (v.length > MAX_TEXT)
    add(prefix + field, 'too_long', `${field} is longer than ${MAX_TEXT} characters`);
  else return v;
  return null;
}

function checkAccount(
  v: unknown,
  at: (field: string) => string,
  currency: string,
  ctx: ValidationContext,
  add: (p: string, r: string, m: string) => void,
): AccountRef | null {
  if (typeof v !== 'string' || v === '') {
    const path = at('gl_account_id');
    add(
      path,
      'unknown_account',
      v === undefined ? 'gl_account_id is required' : 'gl_account_id must be a non-empty string',
    );
    return null;
  }
  const a = ctx.account(v);
  if (a && a.is_active && a.is_postable && (a.currency === null || a.currency === currency))
    return a;
  const path = at('gl_account_id');
  if (!a) add(path, 'unknown_account', `no GL account with external id '${v}'`);
  else if (!a.is_active) add(path, 'inactive_account', `GL account '${v}' (${a.name}) is inactive`);
  else if (!a.is_postable)
    add(
      path,
      'unpostable_account',
      `GL account '${v}' (${a.name}) is a header account and cannot be posted to`,
    );
  else if (a.currency !== null && a.currency !== currency) {
    add(
      path,
      'currency_conflict',
      `GL account '${v}' is denominated in ${a.currency}, not ${currency}`,
    );
  } else return a;
  return null;
}

function checkCounterparty(
  line: Obj,
  at: (field: string) => string,
  account: AccountRef | null,
  ctx: ValidationContext,
  add: (p: string, r: string, m: string) => void,
): CounterpartyRef | null {
  const type = line.counterparty_type;
  const id = line.counterparty_external_id;
  const needed = account ? requiredCounterpartyType(account.account_type) : null;
  const given = (type !== undefined && type !== null) || (id !== undefined && id !== null);
  if (!given) {
    if (needed)
      add(
        at('counterparty_external_id'),
        'invalid_counterparty',
        `lines on ${account!.account_type} accounts need a ${needed} counterparty`,
      );
    return null;
  }
  if (typeof type !== 'string' || type === '') {
    add(
      at('counterparty_type'),
      'invalid_counterparty',
      'counterparty_type is required with counterparty_external_id',
    );
    return null;
  }
  if (typeof id !== 'string' || id === '') {
    add(
      at('counterparty_external_id'),
      'invalid_counterparty',
      'counterparty_external_id is required with counterparty_type',
    );
    return null;
  }
  if (needed && type !== needed) {
    add(
      at('counterparty_type'),
      'invalid_counterparty',
      `lines on ${account!.account_type} accounts need a ${needed}, not a ${type}`,
    );
    return null;
  }
  const cp = ctx.counterparty(type, id);
  if (!cp)
    add(
      at('counterparty_external_id'),
      'invalid_counterparty',
      `no ${type} with external id '${id}'`,
    );
  else if (!cp.is_active)
    add(
      at('counterparty_external_id'),
      'invalid_counterparty',
      `${type} '${id}' (${cp.name}) is inactive`,
    );
  else return cp;
  return null;
}

/** Checks an idempotency key as the spec bounds it; returns a reason sentence or null when fine. */
export function idempotencyKeyProblem(key: string | undefined | null): string | null {
  if (key === undefined || key === null) return 'X-Idempotency-Key is missing';
  if (key.trim() === '') return 'X-Idempotency-Key is empty';
  if (key.length > 128)
    return `X-Idempotency-Key is ${key.length} characters; at most 128 are allowed`;
  return null;
}
