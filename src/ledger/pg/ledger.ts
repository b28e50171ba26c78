import type { Ledger } from '../port.js';
import { StoreLedger } from '../compose/storeLedger.js';
import { PgChart } from './chart.js';
import { redacted, type PgDb } from './db.js';
import { PgEntities } from './entity.js';
import { PgJournalStore } from './journal.js';
import { PgKeys } from './keys.js';
import { PgMaintenance } from './maintenance.js';
import { entityTables } from './tables.js';
import { PgSums } from './sums.js';

/**
 * One entity's ledger in a PostgreSQL database: the same port as a ledger file, over a pool shared
 * with the other entities a process opens. Every read is fresh (other servers write the same rows).
 */
export class PgLedger extends StoreLedger implements Ledger {
  readonly location: string;
  readonly entity: PgEntities;
  readonly chart: PgChart;
  readonly keys: PgKeys;
  /** Restores a dump through a transaction of the caller's (PgMaintenance.restoreIn). */
  readonly restoreIn: PgMaintenance['restoreIn'];

  constructor(
    db: PgDb,
    readonly entityId: string,
    slug: string,
    private readonly release: () => Promise<void>,
  ) {
    const entity = new PgEntities(db, entityId);
    const tables = entityTables(db, entity);
    const chart = new PgChart(db, entityId, tables);
    const maintenance = new PgMaintenance(db, entityId, entity, tables);
    super(
      new PgJournalStore(db, entityId, entity, chart),
      new PgSums(db, entityId, entity, chart),
      maintenance,
      chart,
    );
    this.location = `${redacted(db.location)} (entity ${slug})`;
    [this.entity, this.chart] = [entity, chart];
    this.keys = new PgKeys(db, entityId, tables);
    this.restoreIn = (q, records) => maintenance.restoreIn(q, records);
  }

  close(): Promise<void> {
    return this.release();
  }
}
