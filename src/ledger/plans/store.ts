import type { RecurringTemplate } from '../../domain/recurring.js';
import type { JournalStore, ReadTx, WriteTx } from '../journal/store.js';
import type { BudgetCellRow } from '../reports/reports.js';

/** What budgets and recurring entries read of a store, inside one of its transactions. */
export interface PlanReads {
  budgetRows(): Promise<BudgetCellRow[]>;
  templates(): Promise<RecurringTemplate[]>;
}

/** What they write, inside a write transaction that holds the entity's lock. */
export interface PlanWrites extends PlanReads {
  /** Sets budget cells (a cell named again is replaced). */
  setBudgets(rows: BudgetCellRow[]): Promise<void>;
  addTemplate(t: RecurringTemplate): Promise<void>;
  /** Removes a template; false when there was none by that name. */
  removeTemplate(name: string): Promise<boolean>;
}

/** A journal transaction with the plans' tables. */
export type PlanReadTx = ReadTx & { plans: PlanReads };
export type PlanWriteTx = WriteTx & { plans: PlanWrites };

/** A store as budgets and recurring entries use it. */
export type PlanStore = JournalStore<PlanReadTx, PlanWriteTx>;
