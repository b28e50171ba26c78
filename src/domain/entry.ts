import { ownTags, type Tags } from './tags.js';
import type { AccountType, Entity } from './accounts.js';
import type { JeSeq } from './jeNumber.js';
import type { FxSnapshot } from './fx.js';
import type { FxHistoryLine } from './settlement.js';
import { storedAtoms } from './money.js';

/**
 * Where an entry came from: `manual_api` (the API, the CLI) or `csv_import` (a file). An import
 * through the API says so in this header (a books extension; other services may ignore it).
 */
export const ENTRY_SOURCES = ['manual_api', 'csv_import'] as const;
export const SOURCE_HEADER = 'X-Books-Source';
/** The header an import's post carries its entry's fingerprint in (see PostOptions.fingerprint). */
export const FINGERPRINT_HEADER = 'X-Books-Fingerprint';

export const MIN_LINES = 2;
export const MAX_LINES = 1000;

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
  /** On a line of a foreign account only: its amount in that currency and the rate (docs/currency.md). */
  fx?: FxSnapshot;
  /** On a line books added itself: `fx_realized`, a settlement's realised exchange gain or loss. */
  system?: 'fx_realized';
  /**
   * Its own tags, those it sets apart from its entry's (absent: none). As a LineFacts, a line's
   * effective tags: the entry's overridden by its own.
   */
  tags?: Tags;
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
  /** An account by external id, else by account number (a chart never lets the two name different ones). */
  account(ref: string): AccountRef | undefined;
  counterparty(type: string, externalId: string): CounterpartyRef | undefined;
  jeNumberTaken(normalised: string): boolean;
  /**
   * The rate table's rate for a currency on a date (the latest on or before it), as its decimal
   * text; absent where the rates cannot be seen (a check before a remote post, which the ledger
   * repeats).
   */
  rate?(currency: string, date: string): string | undefined;
  /**
   * The foreign lines of a receivable or payable account (named as the line names it) with one
   * counterparty, all of them in date order: the items open now, which a settlement settles (a
   * payment dated before later ones settles what they left). Absent where the ledger cannot be seen
   * (a check before a remote post).
   */
  fxHistory?(account: string, type: string, id: string, date: string): FxHistoryLine[] | undefined;
  /** Accounts a reference that names none resembles, described for a message (`6100 Rent (rent)`). */
  resembling?(ref: string): string[];
}

export interface ValidLine {
  account: AccountRef;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
  memo: string | null;
  counterparty: CounterpartyRef | null;
  /** The snapshot of a line on a foreign account; null on a functional one. */
  fx: FxSnapshot | null;
  /** A line books added: the realised exchange gain/loss of a settlement. */
  system?: 'fx_realized';
  /** Its effective tags: the entry's, overridden by its own (absent: none). */
  tags?: Tags;
}

/** An entry that passed every rule, ready to be written. */
export interface ValidEntry {
  currency: string;
  entry_date: string;
  is_adjusting: boolean;
  /** Normalised caller number, or null to assign JE-(largest + 1). */
  je_number: string | null;
  je_seq: JeSeq | null;
  memo: string | null;
  manual_entry_reason: string | null;
  /** The date its automatic reversal posts on, in the same transaction; null for none. */
  auto_reverse_on: string | null;
  lines: ValidLine[];
  total_atoms: number;
  /** The entry's own tags (a line's effective tags are on the line). */
  tags?: Tags;
}

/** What is stored of an entry besides its lines: enough to answer for it as the API does. */
export interface EntryFacts {
  id: string;
  /** Storage sequence, for line ids; null for an entry that is not stored (a dry run). */
  seq: number | null;
  je_number: string;
  entry_date: string;
  currency: string;
  memo: string | null;
  source: string;
  status: string;
  is_adjusting: boolean;
  manual_entry_reason: string | null;
  total_atoms: number;
  created_at: string;
  updated_at: string;
  original: { id: string; date: string } | null;
  reversed_by: string[];
  /** The entry's own tags (docs/close.md, "Tags"). */
  tags?: Tags;
}

/** An entry as a store reads it back: the original it reverses named by id and date. */
export interface EntryRowFacts extends Omit<EntryFacts, 'original' | 'seq'> {
  seq: number;
  original_id: string | null;
  original_date: string | null;
}

/** The entry a store read back, as the API answers for it. */
export function journalEntryOfRow(r: EntryRowFacts, lines: LineFacts[]): JournalEntry {
  const { original_id, original_date, ...facts } = r;
  const original = original_id ? { id: original_id, date: original_date! } : null;
  // An amount past 2^53 − 1 was never posted by books: damage, refused rather than shown rounded.
  for (const l of lines) storedAtoms(l.amount_atoms);
  storedAtoms(facts.total_atoms);
  return journalEntryOf({ ...facts, original }, lines);
}

/**
 * A line as stored and answered: the account and counterparty as the response names them, and its
 * effective tags (the answer names only those the line sets apart from its entry's).
 */
export type LineFacts = Omit<
  JournalEntryLine,
  'id' | 'object' | 'created_at' | 'updated_at' | 'is_deleted' | 'journal_entry_id'
>;

/** The label of an entry's kind, as the API answers it. */
export function entryTypeLabel(adjusting: boolean, reverses: boolean): string {
  if (reverses) return 'Reversing Journal Entry';
  return adjusting ? 'Adjusting Journal Entry' : 'Manual Journal Entry';
}

/** The entry as the API answers for it (spec 2.1): built the same way after a post and on a read. */
export function journalEntryOf(e: EntryFacts, lines: LineFacts[]): JournalEntry {
  return {
    id: e.id,
    object: 'journal_entry',
    created_at: e.created_at,
    updated_at: e.updated_at,
    is_deleted: false,
    je_number: e.je_number,
    entry_date: e.entry_date,
    memo: e.memo,
    source: e.source,
    total_debit_atoms: e.total_atoms,
    total_credit_atoms: e.total_atoms,
    currency: e.currency,
    lines: lines.map((l, i) => ({
      id: e.seq === null ? '' : `jel_${e.seq}_${i + 1}`,
      object: 'journal_entry_line',
      created_at: e.created_at,
      updated_at: e.created_at,
      is_deleted: false,
      journal_entry_id: e.id,
      // Field by field: the answer's order is the API's, whatever order a store read them in.
      account_id: l.account_id,
      account_number: l.account_number,
      account_name: l.account_name,
      account_type: l.account_type,
      line_type: l.line_type,
      amount_atoms: l.amount_atoms,
      memo: l.memo,
      counterparty_type: l.counterparty_type,
      counterparty_external_id: l.counterparty_external_id,
      counterparty_name: l.counterparty_name,
      ...(l.fx ? { fx: l.fx } : {}),
      ...(l.system ? { system: l.system } : {}),
      ...ownOf(e.tags ?? {}, l.tags),
    })),
    status: e.status,
    manual_entry_reason: e.manual_entry_reason,
    policy_key: null,
    tags: e.tags ?? {},
    attachments: [],
    is_adjusting: e.is_adjusting,
    entry_type_label: entryTypeLabel(e.is_adjusting, e.original !== null),
    counterparty_name: singleCounterparty(lines),
    source_description: e.source === 'csv_import' ? 'CSV import' : null,
    source_svc_object: null,
    original_journal_entry_id: e.original?.id ?? null,
    original_journal_entry_date: e.original?.date ?? null,
    reversed_by_journal_entry_ids: e.reversed_by,
  };
}

/** The lines of a valid entry as the response names them. */
export function linesOfValid(entry: ValidEntry): LineFacts[] {
  return entry.lines.map((l) => ({
    account_id: l.account.id,
    account_number: l.account.account_number,
    account_name: l.account.name,
    account_type: l.account.account_type,
    line_type: l.line_type,
    amount_atoms: l.amount_atoms,
    memo: l.memo,
    counterparty_type: l.counterparty?.counterparty_type ?? null,
    counterparty_external_id: l.counterparty?.external_id ?? null,
    counterparty_name: l.counterparty?.name ?? null,
    ...(l.fx ? { fx: l.fx } : {}),
    ...(l.system ? { system: l.system } : {}),
    ...(l.tags && Object.keys(l.tags).length ? { tags: l.tags } : {}),
  }));
}

/** A line's own tags as the answer gives them: none when it sets nothing apart from its entry. */
function ownOf(entry: Tags, effective: Tags | undefined): { tags?: Tags } {
  if (!effective) return {};
  const own = ownTags(entry, effective);
  return Object.keys(own).length ? { tags: own } : {};
}

/** The entry's counterparty name when all its named counterparties are one; otherwise null. */
function singleCounterparty(lines: { counterparty_name: string | null }[]): string | null {
  const distinct = new Set<string>();
  for (const l of lines) if (l.counterparty_name !== null) distinct.add(l.counterparty_name);
  return distinct.size === 1 ? [...distinct][0]! : null;
}
