import type { Tags } from './tags.js';
import type { JeSeq } from './jeNumber.js';
import type { FxSnapshot } from './fx.js';
import type { Reconciliation } from './reconcile.js';
import type { RecurringTemplate } from './recurring.js';
import type { StatementLayout } from './statementLayout.js';

/** The records of a dump (domain/dump.ts) besides the books themselves, and its counts. */

/** The close's plans (docs/close.md): budget cells, and recurring entries' templates. */
export type PlanRecord =
  | { type: 'budget'; account_id: string; period: string; amount_atoms: number }
  | ({ type: 'recurring_template' } & RecurringTemplate);

/**
 * Reconciliation's records (docs/reconciliation.md): finished reconciliations, an account's last closing
 * balance, statement lines, and the journal lines cleared, named by entry id and line number.
 */
export type ReconRecord =
  | ({ type: 'reconciliation' } & Reconciliation)
  | { type: 'statement_closing'; account_id: string; date: string; balance_atoms: number }
  | {
      type: 'statement_source';
      account_id: string;
      layout: StatementLayout | null;
      acctid: string | null;
      bankid: string | null;
    }
  | {
      type: 'statement_line';
      id: string;
      account_id: string;
      ordinal: number;
      date: string;
      amount_atoms: number;
      description: string | null;
      reference: string | null;
      bank_id: string | null;
      identity: string;
      state: 'unmatched' | 'matched' | 'ignored';
      reconciliation_id: string | null;
      imported_at: string;
    }
  | {
      type: 'cleared_line';
      entry_id: string;
      line_no: number;
      account_id: string;
      entry_date: string;
      net_atoms: number;
      cleared_date: string;
      statement_line_id: string | null;
      reconciliation_id: string | null;
    };

export interface DumpEntry {
  type: 'entry';
  id: string;
  je_number: string;
  /** n of JE-n when it counts for numbering, and when it is only taken (see JeNumbering). */
  je_seq: JeSeq | null;
  je_seq_uncounted: JeSeq | null;
  entry_date: string;
  currency: string;
  memo: string | null;
  source: string;
  status: string;
  is_adjusting: boolean;
  manual_entry_reason: string | null;
  total_atoms: number;
  /** The id of the entry this one reverses. */
  original_id: string | null;
  fingerprint: string | null;
  created_at: string;
  updated_at: string;
  /** The entry's own tags, when it has any. */
  tags?: Tags;
  lines: {
    account_id: string;
    line_type: 'debit' | 'credit';
    amount_atoms: number;
    memo: string | null;
    counterparty_id: string | null;
    /** On a line of a foreign account. */
    fx?: FxSnapshot;
    /** On a line books added (a settlement's realised exchange gain/loss). */
    system?: 'fx_realized';
    /** Its effective tags (the entry's overridden by its own), when it has any. */
    tags?: Tags;
  }[];
}

/** How many records of each kind a dump holds: its last record, so that a cut-off dump is refused. */
export interface DumpCounts {
  accounts: number;
  counterparties: number;
  entries: number;
  lines: number;
  idempotency_keys: number;
  api_keys: number;
  /** Reconciliation's records (absent from a dump written before them: none). */
  reconciliations?: number;
  statement_lines?: number;
  cleared_lines?: number;
  /** The close's plans (absent from a dump written before them: none). */
  budgets?: number;
  recurring_templates?: number;
  /** The rate table (absent from a dump written before it: none). */
  exchange_rates?: number;
  /** The audit trail (absent from a dump written before it: none). */
  audit_events?: number;
}

/** The counts of a dump before its first record. */
export const noCounts = (): DumpCounts => ({
  accounts: 0,
  counterparties: 0,
  entries: 0,
  lines: 0,
  idempotency_keys: 0,
  api_keys: 0,
  reconciliations: 0,
  statement_lines: 0,
  cleared_lines: 0,
  budgets: 0,
  recurring_templates: 0,
  exchange_rates: 0,
  audit_events: 0,
});
