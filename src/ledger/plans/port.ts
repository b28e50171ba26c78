import type { BudgetRow } from '../../domain/budget.js';
import type { RecurringTemplate } from '../../domain/recurring.js';
import type { ImportCounts } from '../books/port.js';

/** The close's plans on the port (docs/close.md): budgets, recurring entries. */

/** Budgets (docs/close.md, "Comparisons and budgets"): cells by account and report period. */
export interface BudgetOps {
  /** Sets the cells the rows name (a re-import replaces them); refused whole, by row, on a problem. */
  import(a: {
    rows: { row?: number; gl_account_id: string; period: string; amount_atoms: number }[];
  }): Promise<ImportCounts>;
  list(a?: Record<string, never>): Promise<BudgetRow[]>;
}

/** What a run of recurring entries posted, and what it left (before the books, in a closed period). */
export interface RecurringRun {
  through: string;
  dry_run: boolean;
  posted: { name: string; date: string; je_number: string | null; entry_id: string | null }[];
  skipped: { name: string; date: string; reason: string }[];
  /** Occurrences due through the date that an earlier run (or a run retried) had posted. */
  already_posted: number;
}

/** Recurring entries (docs/close.md): templates kept in the ledger, each occurrence posted once. */
export interface RecurringOps {
  add(template: unknown): Promise<RecurringTemplate>;
  list(a?: Record<string, never>): Promise<RecurringTemplate[]>;
  remove(a: { name: string }): Promise<RecurringTemplate>;
  run(a: { through: string; dry_run?: boolean }): Promise<RecurringRun>;
}
