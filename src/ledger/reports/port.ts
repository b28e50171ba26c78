import type { BalanceSheet } from '../../domain/balanceSheet.js';
import type { GlEvent } from '../../domain/generalLedger.js';
import type { IncomeStatement } from '../../domain/incomeStatement.js';
import type { CashFlowStatement } from '../../domain/cashFlow.js';
import type { TagSummary } from '../../domain/tags.js';
import type { ReportQuery } from '../../domain/periods.js';
import type { GeneralLedgerQuery, TrialBalanceQuery } from '../../domain/reportQueries.js';
import type { TrialBalance } from '../../domain/trialBalance.js';
import type { AgingReport } from '../../domain/aging.js';
import type { GlCursor } from './reports.js';

/** An aging's parameters as the API names them (checked by the ledger). */
export interface AgingQueryArgs {
  type: string;
  as_of: string;
  buckets?: string | number[];
  due_days?: number | string;
  counterparty?: string;
  /** Accounts by external id or number (over the API, `account` repeated). */
  accounts?: string[] | string;
}

export interface ReportOps {
  /** The balance sheet of a checked query; a window over 5 years is CAPI69. */
  balanceSheet(query: ReportQuery): Promise<BalanceSheet>;
  /** The income statement: activity within each period, its sections and computed rows. */
  incomeStatement(query: ReportQuery): Promise<IncomeStatement>;
  /** The cash-flow statement, indirect method: Net Income, then balance-sheet changes by section. */
  cashFlow(query: ReportQuery): Promise<CashFlowStatement>;
  /** The trial balance as of a date, with adjusting entries included, left out, or shown apart. */
  trialBalance(query: TrialBalanceQuery): Promise<TrialBalance>;
  /**
   * The general ledger as a stream of accounts and lines (memory does not grow with the lines); it
   * goes on after a position when given one (the API's cursor).
   */
  generalLedger(query: GeneralLedgerQuery, from?: GlCursor): AsyncIterable<GlEvent>;
  /**
   * What the API's general-ledger cursors are signed with: a secret kept in the ledger (so that any
   * server over it accepts a cursor another gave) and the entity it is scoped to.
   */
  cursorKey(): Promise<{ secret: Buffer; scope: string }>;
  /** The tag keys the journal's lines carry, each with its values and their lines. */
  tags(): Promise<TagSummary[]>;
  /** Aged receivables or payables: open items first-in-first-out per counterparty (docs/close.md). */
  aging(query: AgingQueryArgs): Promise<AgingReport>;
}
