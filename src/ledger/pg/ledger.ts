import { JournalFromStore } from '../journal.js';
import type { Ledger, MaintenanceOps } from '../port.js';
import { checkingReconciliations, ReconcileFromStore } from '../reconcile.js';
import { localProcesses } from '../processes.js';
import { ReportsFromSums } from '../reports.js';
import { BudgetsFromStore, RecurringFromStore } from '../plans.js';
import { PgChart } from './chart.js';
import { redacted, type PgDb } from './db.js';
import { PgEntities } from './entity.js';
import { PgJournalStore } from './journal.js';
import { PgKeys } from './keys.js';
import { PgMaintenance } from './maintenance.js';
import { entityTables } from './tables.js';
import { KeyTables } from '../keys/keys.js';
import { PgSums } from './sums.js';

/**
 * One entity's ledger in a PostgreSQL database: the same port as a ledger file, over a pool shared
 * with the other entities a process opens. Every read is fresh (other servers write the same rows).
 */
export class PgLedger implements Ledger {
  readonly capabilities = {
    atomicImport: true,
    dryRun: true,
    waitsHere: true,
    listsEntries: true,
  };
  readonly location: string;
  readonly entity: PgEntities;
  readonly chart: PgChart;
  readonly journal: JournalFromStore;
  readonly reports: ReportsFromSums;
  readonly keys: PgKeys;
  readonly maintenance: MaintenanceOps;
  /** Restores a dump through a transaction of the caller's (PgMaintenance.restoreIn). */
  readonly restoreIn: PgMaintenance['restoreIn'];
  readonly reconcile: ReconcileFromStore;
  readonly budgets: BudgetsFromStore;
  readonly recurring: RecurringFromStore;

  constructor(
    db: PgDb,
    readonly entityId: string,
    slug: string,
    private readonly release: () => Promise<void>,
  ) {
    this.location = `${redacted(db.location)} (entity ${slug})`;
    this.entity = new PgEntities(db, entityId);
    const tables = entityTables(db, this.entity);
    this.chart = new PgChart(db, entityId, tables);
    const store = new PgJournalStore(db, entityId, this.entity, this.chart);
    this.journal = new JournalFromStore(store, localProcesses);
    const sums = new PgSums(db, entityId, this.entity, this.chart);
    this.reports = new ReportsFromSums(sums, () => store.read((tx) => tx.plans.budgetRows()));
    this.budgets = new BudgetsFromStore(store, sums);
    this.recurring = new RecurringFromStore(store, this.journal);
    this.keys = new PgKeys(db, entityId, new KeyTables(tables));
    this.reconcile = new ReconcileFromStore(store, sums, this.journal);
    const maintenance = new PgMaintenance(db, entityId, this.entity, tables);
    this.restoreIn = (q, records) => maintenance.restoreIn(q, records);
    this.maintenance = checkingReconciliations(maintenance, this.reconcile);
  }

  close(): Promise<void> {
    return this.release();
  }
}
