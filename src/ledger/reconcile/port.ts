import type { ReconLine, Reconciliation, StatementLine } from '../../domain/reconcile.js';
import type {
  KnownSource,
  StatementLayout,
  StatementSource,
} from '../../domain/statementLayout.js';

/** Reconciliation's part of the ledger's port (ledger/port.ts): its operations and their answers. */

/** An exact sum of atoms: a number while it is safe, a bigint beyond. */
type Atoms = number | bigint;

/** What every reconciliation operation names: the account (external id or number). */
export interface ReconArgs {
  account: string;
}

export interface StatementImportArgs extends ReconArgs {
  statement: unknown;
  dry_run?: boolean;
  file?: string;
  /** The statement's own account as its file names it: checked against the account's. */
  source?: StatementSource | null;
  /** The flags the file was read with, to remember as the account's layout (not on a dry run). */
  layout?: StatementLayout | null;
  /** The statement's bank account replaces the one the account remembers. */
  ofx_account_change?: boolean;
}

/** An account's remembered statement layout and bank account (`reconcile layout`). */
export interface StatementSourceView {
  account_id: string;
  layout: StatementLayout | null;
  statement_account: KnownSource | null;
  forgotten?: StatementLayout | null; // after forgetting: the layout forgotten, or null
}

export interface StatementImportSummary {
  imported: number;
  skipped: number;
  start: string;
  end: string;
  closing_balance: number | null;
}

/** A match as a person reads it (asked with `describe`): the statement line, the JE lines. */
export interface Described {
  date: string;
  amount_atoms: number;
  description: string | null;
  /** The ledger lines as `JE-12:2`. */
  ledger_lines: string[];
}

export interface MatchOutcome {
  matched: ({ statement_line_id: string; line_ids: string[]; days: number } & Partial<Described>)[];
  unmatched_statement_lines: StatementLine[];
  uncleared_lines: ReconLine[];
}

/** A rule of `reconcile create --rules`: the first whose pattern a description holds applies. */
export interface CreateRule {
  /** The rules file's row, for messages. */
  row?: number;
  pattern: string;
  offset_account: string;
  counterparty?: string | null;
  memo?: string | null;
}

export interface CreateOutcome {
  created: { statement_line_id: string; je_number: string; entry_id: string; line_id: string }[];
  /** Unmatched statement lines no rule applied to. */
  left: string[];
}

export interface ReconcileStatus {
  account_id: string;
  last_reconciliation: Reconciliation | null;
  /** The closing balance of the account's last imported OFX statement. */
  statement: { date: string; balance_atoms: number } | null;
  /** The date the status is taken at: the closing balance's, else the last statement line's. */
  through: string | null;
  /** Of the lines cleared through that date. */
  cleared_balance: Atoms | null;
  difference: Atoms | null;
  matched: number;
  unmatched_statement_lines: StatementLine[];
  ignored_statement_lines: StatementLine[];
  /** Uncleared lines dated through that date (every one when no statement is imported). */
  uncleared_lines: ReconLine[];
  /** An entry and its reversal, both uncleared, netting to zero: left out of the lines above. */
  reversed_pairs: [ReconLine, ReconLine][];
}

export interface ReconciliationReport {
  account_id: string;
  statement_date: string;
  status: 'finished' | 'draft';
  statement_balance: number | null;
  /** Sums of many lines: past 2^53 a bigint, written exactly in JSON. */
  cleared_balance: Atoms;
  difference: Atoms | null;
  book_balance: Atoms;
  outstanding_debits: { total: Atoms; lines: ReconLine[] };
  outstanding_credits: { total: Atoms; lines: ReconLine[] };
  cleared_after_date: { total: Atoms; lines: ReconLine[] };
  /** Left out of the outstanding lines: an entry and its reversal netting to zero. */
  reversed_pairs: [ReconLine, ReconLine][];
  unmatched_statement_lines: StatementLine[];
  ignored_statement_lines: StatementLine[];
}

/**
 * Bank and card reconciliation (docs/reconciliation.md), on every store and over the API: each operation takes
 * its arguments as the API's JSON body (or query) names them.
 */
export interface ReconcileOps {
  importStatement(a: StatementImportArgs): Promise<StatementImportSummary>;
  /** The account's remembered statement layout and bank account. */
  layout(a: ReconArgs): Promise<StatementSourceView>;
  /** Forgets the account's layout (its bank account stays), saying what it was. */
  forgetLayout(a: ReconArgs): Promise<StatementSourceView>;
  /** Automatic matching; or, given a statement line and ledger lines, a manual match. */
  match(
    a: ReconArgs & {
      window_days?: number;
      dry_run?: boolean;
      statement_line_id?: string;
      line_ids?: string[];
      /** Each match also says its statement line's date, amount, description and JE lines. */
      describe?: boolean;
    },
  ): Promise<MatchOutcome>;
  unmatch(a: ReconArgs & { statement_line_id: string }): Promise<StatementLine>;
  clear(
    a: ReconArgs & { line_ids: string[]; unclear?: boolean },
  ): Promise<{ line_ids: string[]; state: 'cleared' | 'uncleared' }>;
  ignore(a: ReconArgs & { statement_line_id: string }): Promise<StatementLine>;
  create(
    a: ReconArgs & {
      statement_line_id?: string;
      offset_account?: string;
      counterparty?: string | null;
      memo?: string | null;
      rules?: CreateRule[];
      dry_run?: boolean;
    },
  ): Promise<CreateOutcome>;
  finish(
    a: ReconArgs & { statement_date?: string; statement_balance_atoms?: number },
  ): Promise<Reconciliation>;
  /** Undoes the account's latest reconciliation (the one named, when an id is given). */
  undo(a: ReconArgs & { id?: string }): Promise<Reconciliation>;
  list(a: ReconArgs): Promise<Reconciliation[]>;
  status(a: ReconArgs): Promise<ReconcileStatus>;
  report(a: ReconArgs & { statement_date?: string }): Promise<ReconciliationReport>;
  /**
   * The state of cleared lines (those not named are uncleared): of the lines named (comma-separated
   * ids over the API), or of every line of the ledger when none are.
   */
  lineStates(a: { line_ids?: string[] | string }): Promise<LineStates>;
}

/** Cleared and reconciled lines by id, with the date each counts as cleared from. */
export type LineStates = Record<string, { state: 'cleared' | 'reconciled'; cleared_date: string }>;
