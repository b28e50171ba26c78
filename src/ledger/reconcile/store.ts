import type { CheckedLine } from '../../domain/reconcile.js';
import type { JournalStore, ReadTx, WriteTx } from '../journal/store.js';
import type { KnownSource, StatementLayout } from '../../domain/statementLayout.js';

/** A statement line as its table holds it. */
export interface StatementLineRow {
  id: string;
  account_key: number;
  ordinal: number;
  line_date: string;
  amount_atoms: number;
  description: string | null;
  reference: string | null;
  bank_id: string | null;
  state: 'unmatched' | 'matched' | 'ignored';
  reconciliation_id: string | null;
}

/**
 * A journal line of a reconciled account that is cleared: matched to a statement line (cleared as of
 * that line's date) or ticked by hand (as of its own date), and the reconciliation that holds it.
 */
export interface LineMark {
  entry_seq: number;
  line_no: number;
  account_key: number;
  entry_date: string;
  /** The line's amount in the account's sign. */
  net_atoms: number;
  cleared_date: string;
  statement_line_id: string | null;
  reconciliation_id: string | null;
}

export interface ReconciliationRow {
  id: string;
  account_key: number;
  statement_date: string;
  statement_balance_atoms: number;
  line_count: number;
  finished_at: string;
}

/** An account's remembered statement layout and bank account (each null until an import names it). */
export interface StoredSource {
  layout: StatementLayout | null;
  known: KnownSource | null;
}

/** An entry and the entry that reverses it. */
export interface ReversalLink {
  original: number;
  reversal: number;
  original_je: string;
  reversal_je: string;
}

/** A journal line named by the API's line id, with what reconciliation needs of it. */
export interface JournalLineFacts {
  entry_seq: number;
  line_no: number;
  account_key: number;
  entry_date: string;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
}

/** What reconciliation reads of a store, inside one of its transactions. */
export interface ReconReads {
  /** The account's statement lines, in date and import order. */
  statementLines(key: number, ids?: string[]): Promise<StatementLineRow[]>;
  /** Which of these identities the account's statement lines already carry. */
  identitiesTaken(key: number, identities: string[]): Promise<Set<string>>;
  /** The account's cleared lines dated in [from, to]. */
  marks(key: number, from: string, to: string): Promise<LineMark[]>;
  /** The marks of these lines, or of the lines matched to these statement lines. */
  marksOf(q: {
    lines?: { seq: number; line_no: number }[];
    statementLines?: string[];
  }): Promise<LineMark[]>;
  /** The sum of the account's lines cleared through a date, and those of them dated after it. */
  clearedThrough(key: number, date: string): Promise<{ total: bigint; after: LineMark[] }>;
  reconciliations(key: number): Promise<ReconciliationRow[]>;
  /** Every cleared line of the entity (an export's, which marks them). */
  allMarks(): Promise<LineMark[]>;
  /** How the account's statements are read, and the bank account they come from, once named. */
  source(key: number): Promise<StoredSource>;
  /** The closing balance the account's last OFX statement gave. */
  closing(key: number): Promise<{ date: string; balance_atoms: number } | null>;
  /** Reversals touching these entries (as original or as reversal), with both entries' JE numbers. */
  reversalLinks(seqs: number[]): Promise<ReversalLink[]>;
  /** Journal lines by their place (entry sequence and line number); those not found are left out. */
  journalLines(refs: { seq: number; line_no: number }[]): Promise<JournalLineFacts[]>;
  /** Every reconciliation of the entity with the sum of its account's reconciled lines through its date. */
  reconciledSums(): Promise<(ReconciliationRow & { reconciled: bigint })[]>;
  /** Marks whose journal line is gone or is not what the mark says (account, date, amount). */
  strayMarks(): Promise<{ entry_seq: number; line_no: number; why: string }[]>;
  /** Where the tables do not hold together among themselves (see sql/reconChecks.ts). */
  damage(): Promise<{ path: string; why: string }[]>;
}

/** What reconciliation writes, inside a write transaction that holds the entity's lock. */
export interface ReconWrites extends ReconReads {
  /** Adds statement lines in the order given; returns the ids they were given. */
  addStatementLines(key: number, lines: CheckedLine[], at: string): Promise<string[]>;
  setClosing(key: number, closing: { date: string; balance_atoms: number }): Promise<void>;
  setSource(key: number, source: StoredSource): Promise<void>;
  setState(ids: string[], state: StatementLineRow['state']): Promise<void>;
  addMarks(marks: LineMark[]): Promise<void>;
  removeMarks(lines: { seq: number; line_no: number }[]): Promise<void>;
  /**
   * Records a reconciliation and makes it hold every unreconciled mark and line through its date;
   * returns how many ledger lines it took.
   */
  finish(r: ReconciliationRow): Promise<number>;
  /** Removes a reconciliation and releases what it held. */
  undo(r: ReconciliationRow): Promise<void>;
}

/** A journal transaction with reconciliation's tables. */
export type ReconReadTx = ReadTx & { recon: ReconReads };
export type ReconWriteTx = WriteTx & { recon: ReconWrites };

/** A store as reconciliation uses it. */
export type ReconStore = JournalStore<ReconReadTx, ReconWriteTx>;
