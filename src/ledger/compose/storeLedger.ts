import type { Capabilities, Ledger, MaintenanceOps } from '../port.js';
import { JournalFromStore } from '../journal.js';
import { localProcesses } from '../processes.js';
import { BudgetsFromStore, RecurringFromStore } from '../plans.js';
import { checkingReconciliations, ReconcileFromStore } from '../reconcile.js';
import { ReportsFromSums, type Sums } from '../reports.js';
import type { JournalStore } from '../store.js';

/**
 * A ledger over a store of its own (a file, a database): every feature is the store-neutral code over
 * the store's journal, sums and maintenance; the store adds its entity, chart and keys.
 */
export abstract class StoreLedger implements Pick<
  Ledger,
  'capabilities' | 'journal' | 'reports' | 'maintenance' | 'reconcile' | 'budgets' | 'recurring'
> {
  readonly capabilities: Capabilities = {
    atomicImport: true,
    dryRun: true,
    waitsHere: true,
    listsEntries: true,
  };
  readonly journal: JournalFromStore;
  readonly reports: ReportsFromSums;
  readonly maintenance: MaintenanceOps;
  readonly reconcile: ReconcileFromStore;
  readonly budgets: BudgetsFromStore;
  readonly recurring: RecurringFromStore;

  constructor(store: JournalStore, sums: Sums, maintenance: MaintenanceOps) {
    this.journal = new JournalFromStore(store, localProcesses);
    this.reports = new ReportsFromSums(sums, () => store.read((tx) => tx.plans.budgetRows()));
    this.budgets = new BudgetsFromStore(store, sums);
    this.recurring = new RecurringFromStore(store, this.journal);
    this.reconcile = new ReconcileFromStore(store, sums, this.journal);
    // Check proves every reconciliation too (see ReconReports.problems).
    this.maintenance = checkingReconciliations(maintenance, this.reconcile);
  }
}
