import type { Counterparty, GlAccount } from './accounts.js';
import { isIsoDate } from './dates.js';
import type { AccountRef, ValidationContext, ValidEntry } from './entry.js';
import type { Problem } from './errors.js';
import { currencyExponent } from './money.js';
import { ENTRY_RULES, isObj, type EntryCheck } from './rules.js';

/**
 * Checks a `POST /v1/journal-entries` body against every rule of docs/api.md and the entity, and returns
 * either the valid entry or every problem found (each with its path), never just the first.
 */
export function validateEntry(
  body: unknown,
  ctx: ValidationContext,
): { entry: ValidEntry; problems: [] } | { entry: null; problems: Problem[] } {
  if (!isObj(body)) {
    return {
      entry: null,
      problems: [{ path: '', reason: 'invalid_body', message: 'the entry must be a JSON object' }],
    };
  }
  const c: EntryCheck = {
    body,
    ctx,
    problems: [],
    currency: ctx.entity.currency,
    exponent: currencyExponent(ctx.entity.currency) ?? 2,
    entryDate: null,
    isAdjusting: false,
    jeNumber: null,
    jeSeq: null,
    memo: null,
    reason: null,
    autoReverseOn: null,
    lines: [],
    debits: 0,
    credits: 0,
    signed: [],
    openItems: new Map(),
    settlements: [],
    amountsValid: true,
    tags: {},
  };
  for (const rule of ENTRY_RULES) rule(c);
  if (c.problems.length > 0) return { entry: null, problems: c.problems };
  const entry: ValidEntry = {
    currency: c.currency,
    entry_date: c.entryDate!,
    is_adjusting: c.isAdjusting,
    je_number: c.jeNumber,
    je_seq: c.jeSeq,
    memo: c.memo,
    manual_entry_reason: c.reason,
    auto_reverse_on: c.autoReverseOn,
    lines: c.lines,
    total_atoms: c.debits,
    tags: c.tags,
  };
  return { entry, problems: [] };
}

/** A reversal may not be dated before the entry it reverses (docs/api.md, "Decisions"). */
export function reversalDateProblem(
  original: { je_number: string; entry_date: string },
  date: string,
): Problem | null {
  if (!isIsoDate(date) || date >= original.entry_date) return null;
  return {
    path: 'entry_date',
    reason: 'reversal_before_original',
    message:
      `${date} is before ${original.je_number}'s own date, ${original.entry_date}; ` +
      'a reversal is dated on or after it',
  };
}

/**
 * A validation context over a chart as it was listed (a remote service's `GET /v1/gl-accounts`):
 * entries are checked by the same rules before anything is sent. Counterparties that are not listed
 * are taken on trust (the service checks them when the entry posts), and so are the service's
 * numbers; what the file or the prompts add is checked here.
 */
export function contextFromChart(
  entity: ValidationContext['entity'],
  accounts: GlAccount[],
  counterparties: Counterparty[] | null,
): ValidationContext {
  const byExt = new Map(accounts.map((a) => [a.external_id, { ...a, key: 0 }]));
  const byNumber = new Map<string, AccountRef>();
  for (const a of byExt.values()) if (a.account_number) byNumber.set(a.account_number, a);
  const cps = new Map(
    (counterparties ?? []).map((c) => [`${c.counterparty_type}\u0000${c.external_id}`, c]),
  );
  return {
    entity,
    account: (id) => byExt.get(id) ?? byNumber.get(id),
    counterparty: (type, externalId) =>
      counterparties === null
        ? {
            id: '',
            counterparty_type: type,
            external_id: externalId,
            name: externalId,
            is_active: true,
          }
        : cps.get(`${type}\u0000${externalId}`),
    jeNumberTaken: () => false,
  };
}
