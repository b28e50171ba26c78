import type { Entity } from './accounts.js';
import { ownTags, type Tags } from './tags.js';
import type { AccountRef, CounterpartyRef, ValidationContext, ValidEntry } from './entry.js';
import { entryInvalid, errors } from './errors.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';
import { isIsoDate } from './dates.js';
import type { FxSnapshot } from './fx.js';
import type { FxHistoryLine } from './settlement.js';
import { normaliseJeNumber } from './jeNumber.js';
import { isObj } from './rules.js';
import { reversalDateProblem } from './validation.js';

/** An idempotency key as a ledger keeps it once its entry posted. */
export interface UsedKey {
  request_hash: string;
  journal_entry_id: string;
  created_at_ms: number;
  /** The JE number of the entry the key posted (null if that entry is gone). */
  je_number: string | null;
}

/**
 * The checks a write of an entry runs before its content, in the order docs/api.md gives ("Decisions"): the
 * First Month of Books (CAPI67), a rebuild under way (CAPI73), then the idempotency key: used within
 * the hour is CAPI34, naming the entry it posted (as "already posted" only for the same request).
 * Throws the first refusal; read inside the write's own transaction, so that no other writer can
 * change what they read before it commits.
 */
export function writeGates(
  entity: Entity,
  rebuilding: boolean,
  used: UsedKey | undefined,
  requestHash: string,
  nowMs: number,
): void {
  if (!entity.books_start) throw errors.noBooksStart();
  if (rebuilding) throw errors.rebuilding(1);
  if (used && nowMs - used.created_at_ms < IDEMPOTENCY_WINDOW_MS) {
    const existing = {
      id: used.journal_entry_id,
      je_number: used.je_number ?? used.journal_entry_id,
    };
    throw errors.idempotencyKeyUsed(existing, used.request_hash === requestHash);
  }
}

/** The checks of an import before anything of it is read: First Month of Books, then a rebuild. */
export function importGates(entity: Entity, rebuilding: boolean): void {
  if (!entity.books_start) throw errors.noBooksStart();
  if (rebuilding) throw errors.rebuilding(1);
}

const hasNul = (s: string) => s.includes('\u0000');

/** What validation of these request bodies needs to look up in the ledger. */
export function wantsOf(bodies: unknown[]): {
  accounts: Set<string>;
  counterparties: Set<string>;
  jeNumbers: Set<string>;
  rates: Set<string>;
  settlements: Set<string>;
} {
  const wants = {
    accounts: new Set<string>(),
    counterparties: new Set<string>(),
    jeNumbers: new Set<string>(),
    rates: new Set<string>(),
    settlements: new Set<string>(),
  };
  for (const body of bodies) {
    if (!isObj(body)) continue;
    if (typeof body.je_number === 'string') {
      const n = normaliseJeNumber(body.je_number);
      if (n.ok) wants.jeNumbers.add(n.value);
    }
    if (!Array.isArray(body.lines)) continue;
    for (const l of body.lines as unknown[]) {
      if (!isObj(l)) continue;
      // A name with a NUL names nothing a ledger holds (none keeps one): it is not looked up.
      if (typeof l.gl_account_id === 'string' && l.gl_account_id && !hasNul(l.gl_account_id))
        wants.accounts.add(l.gl_account_id);
      const { counterparty_type: t, counterparty_external_id: id } = l;
      if (typeof t === 'string' && typeof id === 'string' && !hasNul(t) && !hasNul(id))
        wants.counterparties.add(`${t}\u0000${id}`);
      // A snapshot with neither a rate nor the functional amount converts at the table's rate.
      const fx = l.fx;
      if (
        isObj(fx) &&
        (fx.rate === undefined || fx.rate === null) &&
        l.amount_atoms === undefined &&
        typeof fx.currency === 'string' &&
        /^[A-Z]{3}$/.test(fx.currency) &&
        isIsoDate(body.entry_date)
      ) {
        wants.rates.add(`${fx.currency}\u0000${body.entry_date}`);
        // On a receivable or payable, it may settle open items: their history is read too.
        if (wants.counterparties.has(`${t}\u0000${id}`) && typeof l.gl_account_id === 'string')
          wants.settlements.add(`${l.gl_account_id}\u0000${t}\u0000${id}\u0000${body.entry_date}`);
      }
    }
  }
  return wants;
}

/**
 * The validation context over what was looked up for some entries: accounts by the references they
 * give, counterparties, and the JE numbers among theirs already taken. `resembling` names accounts
 * like one that names none (read only on that error's path).
 */
export function contextOf(
  entity: Entity,
  facts: {
    accounts: { get(ref: string): AccountRef | undefined };
    counterparties: { get(key: string): CounterpartyRef | undefined };
    takenNumbers: { has(n: string): boolean };
    rates: { get(key: string): string | undefined };
    fxHistory: { get(key: string): FxHistoryLine[] | undefined };
  },
  resembling?: (ref: string) => string[],
): ValidationContext {
  return {
    entity,
    account: (ref) => facts.accounts.get(ref),
    counterparty: (type, id) => facts.counterparties.get(`${type}\u0000${id}`),
    jeNumberTaken: (n) => facts.takenNumbers.has(n),
    rate: (currency, date) => facts.rates.get(`${currency}\u0000${date}`),
    fxHistory: (account, type, id, date) =>
      facts.fxHistory.get(`${account}\u0000${type}\u0000${id}\u0000${date}`),
    ...(resembling ? { resembling } : {}),
  };
}

/** A stored entry as its reversal reads it. */
export interface Reversible {
  je_number: string;
  entry_date: string;
  currency: string;
  is_adjusting: boolean;
  /** JE numbers of the entries that reverse it. */
  reversed_by: string[];
  lines: {
    gl_account_id: string;
    line_type: 'debit' | 'credit';
    amount_atoms: number;
    memo: string | null;
    counterparty_type: string | null;
    counterparty_external_id: string | null;
    fx?: FxSnapshot;
    system?: 'fx_realized';
    /** Its effective tags. */
    tags?: Tags;
  }[];
  /** The entry's own tags. */
  tags?: Tags;
}

/**
 * The request body of the entry that reverses a stored one: its lines on the other side, on `date`
 * (the original's own by default), with a memo naming it. Refused (CAPI33) when the entry is already
 * reversed, or when the date is before the original's.
 */
export function reversalBody(
  original: Reversible,
  date: string | undefined,
): Record<string, unknown> {
  if (original.reversed_by.length) {
    const message = `${original.je_number} is already reversed by ${original.reversed_by.join(', ')}`;
    throw entryInvalid([{ path: 'id', reason: 'already_reversed', message }]);
  }
  const on = date ?? original.entry_date;
  const tooEarly = reversalDateProblem(original, on);
  if (tooEarly) throw entryInvalid([tooEarly]);
  return {
    entry_date: on,
    currency: original.currency,
    memo: reversalMemo(original.je_number),
    is_adjusting: original.is_adjusting,
    // The original's tags: a reversal undoes the same project's, class's or location's amounts.
    ...(original.tags && Object.keys(original.tags).length ? { tags: original.tags } : {}),
    lines: original.lines.map((l) => ({
      gl_account_id: l.gl_account_id,
      line_type: l.line_type === 'debit' ? 'credit' : 'debit',
      amount_atoms: l.amount_atoms,
      ...(l.memo !== null ? { memo: l.memo } : {}),
      ...(l.counterparty_type !== null
        ? {
            counterparty_type: l.counterparty_type,
            counterparty_external_id: l.counterparty_external_id,
          }
        : {}),
      // Both amounts: the rate is implied by them, and the journal gives the line the original's.
      ...(l.fx ? { fx: { currency: l.fx.currency, amount_atoms: l.fx.amount_atoms } } : {}),
      ...lineOwnTags(original.tags ?? {}, l.tags),
    })),
  };
}

/** A line's own tags for a request, from its entry's and its effective ones: none when it sets none. */
function lineOwnTags(entry: Tags, effective: Tags | undefined): { tags?: Tags } {
  const own = effective ? ownTags(entry, effective) : {};
  return Object.keys(own).length ? { tags: own } : {};
}

/** A reversal's memo: it names the entry it reverses. */
export const reversalMemo = (jeNumber: string) => `Reversal of ${jeNumber}`;

/**
 * The automatic reversal of an entry that asks for one (`auto_reverse_on`): its lines on the other
 * side, on that date, named as `books je reverse` names a reversal. Built from the checked entry, so
 * it needs no check of its own: its accounts and counterparties are the entry's, its date was
 * checked with the entry (after it, after the lock date).
 */
export function autoReversalOf(entry: ValidEntry, jeNumber: string): ValidEntry {
  return {
    ...entry,
    entry_date: entry.auto_reverse_on!,
    je_number: null,
    je_seq: null,
    memo: reversalMemo(jeNumber),
    manual_entry_reason: null,
    auto_reverse_on: null,
    lines: entry.lines.map((l) => ({
      ...l,
      line_type: l.line_type === 'debit' ? 'credit' : 'debit',
    })),
  };
}
