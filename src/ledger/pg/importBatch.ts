import { AuditTables } from '../sql/auditTables.js';
import { Scope } from '../sql/dialect.js';
import { pgSql } from './tables.js';
import { wantsOf } from '../../domain/posting.js';
import { EntryWriter } from '../journal/entryRows.js';
import {
  largeImport,
  type BatchWrites,
  type EntityState,
  type Facts,
  type ImportStore,
} from '../journal/store.js';
import { pipelined } from './pipelined.js';
import { journalHolds, lookupsOf, type LookupRow, type PgChart } from './chart.js';
import { connection, GENERIC_PLANS, prepared, type PgDb } from './db.js';
import type { PgEntities } from './entity.js';
import { lastSeq, numberingOf } from './journal.js';
import { entityRows } from './entryRows.js';
import { analyzeIfGrown } from './statistics.js';

/**
 * Entries written per window: the import waits for the window before the last one to be written,
 * so that the database inserts one window while the next is read and checked.
 */
const WINDOW = 2048;

/** The fingerprints ($2) that entries of the entity ($1) carry. */
const TAKEN = prepared(journalHolds('fingerprint', '$2'));

/**
 * What an import asks of a database: look-ups for each chunk, read on the pool without the lock, and
 * the batch's one transaction on a connection of its own, holding the entity's write lock from its
 * first entry to commit. Rows go in as arrays (an INSERT per 2,000 rows), queued on the connection
 * while the next entries are parsed. Nothing is visible to others until commit; a killed process leaves none of it.
 */
export class PgImportStore implements ImportStore {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    private readonly entities: PgEntities,
    private readonly chart: PgChart,
    private readonly sizeHint: number | null | undefined,
  ) {}

  entity(): Promise<EntityState> {
    return this.entities.state(this.db.query);
  }

  async facts(bodies: unknown[]): Promise<Facts> {
    const [rows] = await this.generic([this.chart.factsStatement(wantsOf(bodies))]);
    return lookupsOf(rows![0] as LookupRow);
  }

  /**
   * Reads on generic plans (db.ts GENERIC_PLANS), in one transaction: the entity's own rows, written
   * by this import and not yet committed, are in every index, and a plan made for an entity the
   * statistics hold no rows of walked them for each value looked up (a second 1M-line import slowed
   * tenfold).
   */
  private generic(statements: [string, unknown[]][]): Promise<unknown[][]> {
    return this.db.readTogether(statements, [GENERIC_PLANS]);
  }

  resembling(ref: string): Promise<string[]> {
    return this.chart.resembling(ref);
  }

  async lookups(bodies: unknown[], fingerprints: string[]): Promise<[Facts, Set<string>]> {
    const [rows, taken] = await this.generic([
      this.chart.factsStatement(wantsOf(bodies)),
      [TAKEN, [this.entityId, fingerprints]],
    ]);
    return [lookupsOf(rows![0] as LookupRow), new Set((taken as { v: string }[]).map((r) => r.v))];
  }

  async openWrites(): Promise<BatchWrites> {
    const { client, q, commit } = await (largeImport(this.sizeHint)
      ? pipelined(this.db)
      : connection(this.db));
    let open = true;
    const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
      if (!open) return;
      open = false;
      try {
        await (sql === 'COMMIT' ? commit() : q(sql));
      } finally {
        client.release(sql === 'ROLLBACK');
      }
    };
    try {
      await q(`BEGIN; ${GENERIC_PLANS}`);
      const entity = await this.entities.state(q, 'FOR UPDATE');
      let [first, reached] = [0, 0];
      const sink = new EntryWriter(
        entityRows(q, this.entityId),
        (first = reached = await lastSeq(q, this.entityId)),
        this.db.now,
        (seq) => (reached = seq),
      );
      let written = 0;
      let behind: Promise<void> = Promise.resolve();
      const write = sink.write.bind(sink);
      sink.write = (...args) => {
        written++;
        return write(...args);
      };
      return {
        trail: new AuditTables(pgSql(q), new Scope(this.entityId)),
        entity: async () => entity,
        taken: async (fingerprints) =>
          new Set((await q<{ v: string }>(TAKEN, [this.entityId, fingerprints])).map((r) => r.v)),
        numbering: () => numberingOf(q, this.entityId),
        sink: () => sink,
        ready: async () => {
          if (written < WINDOW) return;
          written = 0;
          const earlier = behind;
          behind = sink.detach();
          await earlier;
        },
        commit: async () => {
          try {
            await behind;
          } catch (e) {
            await end('ROLLBACK').catch(() => {});
            throw e;
          }
          await end('COMMIT');
          analyzeIfGrown(this.db, first, reached, this.entityId);
        },
        rollback: () => end('ROLLBACK'),
      };
    } catch (e) {
      await end('ROLLBACK').catch(() => {});
      throw e;
    }
  }
}
