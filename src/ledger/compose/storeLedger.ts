import type { Capabilities, Ledger } from '../port.js';
import { FxFromStore } from '../fx/fx.js';
import { AuditFromStore } from '../audit/audit.js';
import type { FxReadTx, FxWriteTx } from '../fx/store.js';
import type { ChartOps, MaintenanceOps } from '../books/port.js';
import { JournalFromStore } from '../journal/journal.js';
import { localProcesses } from '../runtime/processes.js';
import { BudgetsFromStore, RecurringFromStore } from '../plans/plans.js';
import { checkingReconciliations, ReconcileFromStore } from '../reconcile/reconcile.js';
import { ReportsFromSums, type Sums } from '../reports/reports.js';
import type { JournalStore } from '../journal/store.js';
import type { PlanReadTx, PlanWriteTx } from '../plans/store.js';
import type { ReconReadTx, ReconWriteTx } from '../reconcile/store.js';

/** A store's transactions with every feature's tables. */
export type StoreReadTx = ReconReadTx & PlanReadTx & FxReadTx;
export type StoreWriteTx = ReconWriteTx & PlanWriteTx & FxWriteTx;

/** A store as the features use it together. */
export type FeatureStore = JournalStore<StoreReadTx, StoreWriteTx>;

/**
 * A ledger over a store of its own (a file, a database): every feature is the store-neutral code over
 * the store's journal, sums and maintenance; the store adds its entity, chart and keys.
 */
export abstract class StoreLedger implements Pick<
  Ledger,
  | 'capabilities'
  | 'journal'
  | 'reports'
  | 'maintenance'
  | 'reconcile'
  | 'budgets'
  | 'recurring'
  | 'fx'
  | 'audit'
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
  readonly fx: FxFromStore;
  readonly audit: AuditFromStore;

  constructor(
    store: FeatureStore,
    sums: Sums,
    maintenance: MaintenanceOps,
    chart: Pick<ChartOps, 'accounts' | 'counterparties'>,
  ) {
    const counterparties = () => chart.counterparties();
    this.journal = new JournalFromStore(store, localProcesses, chart);
    const budgets = () => store.read((tx) => tx.plans.budgetRows());
    this.reports = new ReportsFromSums(sums, budgets, counterparties);
    this.budgets = new BudgetsFromStore(store, sums);
    this.recurring = new RecurringFromStore(store, this.journal);
    this.fx = new FxFromStore(store, this.journal);
    this.audit = new AuditFromStore(store);
    this.reconcile = new ReconcileFromStore(store, sums, this.journal);
    // Check proves every reconciliation too (see ReconReports.problems).
    const checked = checkingReconciliations(maintenance, this.reconcile);
    const fx = this.fx;
    // Check says, too, which revalued balances moved since (notes, not problems).
    this.maintenance = {
      ...checked,
      check: async () => {
        const result = await checked.check();
        // Read only in a sound ledger: a damaged one is not read further than check's own reading.
        if (result.problems.length) return result;
        const { notes, count } = await fx.revaluationNotes();
        return {
          ...result,
          checked: { ...result.checked, revaluations: count },
          ...(notes.length ? { notes } : {}),
        };
      },
    };
  }
}
