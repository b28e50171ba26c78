import type { Who } from '../../domain/audit.js';
import type { UsedKey } from '../../domain/posting.js';
import { tagsOf } from '../../domain/tags.js';
import { storedLine, type LineTags } from '../journal/storedLine.js';
import { FxTables } from '../sql/fxTables.js';
import { FX_COLUMNS, type FxColumns } from '../../domain/fx.js';
import { normaliseJeNumber } from '../../domain/jeNumber.js';
import type { EntryFilter } from '../port.js';
import type { StoredEntry } from '../journal/store.js';
import type { FeatureStore, StoreReadTx, StoreWriteTx } from '../compose/storeLedger.js';
import type { SqliteChart } from './chart.js';
import type { Db } from './db.js';
import { EntryReader } from './entries.js';
import { indexTailIfLong } from './glIndex.js';
import { sqliteRecon } from './recon.js';
import { insertRows, sqliteSql } from './tables.js';
import { FILE_ENTITY, Scope } from '../sql/dialect.js';
import { PlanTables } from '../sql/planTables.js';
import type { ReconTables } from '../sql/reconTables.js';
import type { GroupCommit } from './groupCommit.js';
import { SqliteImportStore } from './importBatch.js';
import { fileRows, fileWriter, lastSeq, numberingFacts, runOn } from './writer.js';
import { GroupTotals } from '../journal/groupTotals.js';
import type { WriteKind } from '../journal/store.js';
import { recorded, type Unrecorded } from '../audit/recording.js';
import { whoNow } from '../runtime/actor.js';
import { AUDIT_COLUMNS, AuditTables } from '../sql/auditTables.js';
import { HeldEvents } from '../sql/heldEvents.js';
import { FILE } from './tables.js';

/**
 * The journal's persistence in a ledger file: look-ups, transactions and rows. Posts and reversals
 * requested together share a transaction (GroupCommit), each in a savepoint of its own.
 */
export class SqliteJournalStore implements FeatureStore {
  private readonly reader: EntryReader;
  /**
   * The transactions' look-ups and writes: made once (as they hold no state of their own) when first
   * needed, after the schema is brought up to date.
   */
  private readOps: StoreReadTx | null = null;
  private writeOps: Unrecorded<StoreWriteTx> | null = null;
  /** The audit events of a group's writes, inserted together before it commits. */
  private readonly held: HeldEvents;

  constructor(
    private readonly db: Db,
    private readonly chart: SqliteChart,
    private readonly commits: GroupCommit,
  ) {
    this.reader = new EntryReader(db);
    const totals = new GroupTotals();
    const rows = fileRows(runOn(db));
    commits.deferTotals(totals, () => void totals.write(rows));
    const columns = FILE.columns(AUDIT_COLUMNS);
    // At once: a failed insert throws in the group's flush, which rolls the group back.
    this.held = new HeldEvents((events) =>
      insertRows((text) => db.prep(text), 'audit_events', columns, events),
    );
    commits.hold(this.held);
  }

  now(): Date {
    return this.db.now();
  }

  write<T>(fn: (tx: StoreWriteTx) => Promise<T>, kind?: WriteKind, as?: Who): Promise<T> {
    const who = as ?? whoNow();
    return this.commits.run(
      () => recorded((this.writeOps ??= this.writeTx()), who, fn),
      kind === 'entries',
    );
  }

  /**
   * A read transaction around fn. What fn awaits resolves at once (this store answers synchronously),
   * so no other work on the connection runs inside it.
   */
  async read<T>(fn: (tx: StoreReadTx) => Promise<T>): Promise<T> {
    return this.db.readAsync(() => fn((this.readOps ??= this.readTx())));
  }

  private readTx(
    recon: ReconTables = sqliteRecon(this.db),
  ): StoreReadTx & { plans: PlanTables; fx: FxTables } {
    const db = this.db;
    const usedKey = db.prep(
      `SELECT k.request_hash, k.journal_entry_id, k.created_at_ms, e.je_number
       FROM idempotency_keys k LEFT JOIN journal_entries e ON e.id = k.journal_entry_id WHERE k.key = ?`,
    );
    const fingerprinted = db.prep(
      `SELECT id, je_number FROM journal_entries WHERE fingerprint = ?`,
    );
    const live = db.prep(`SELECT 1 FROM api_keys WHERE id = ? AND revoked_at IS NULL`).pluck();
    return {
      facts: async (r) => ({
        nowMs: db.now().getTime(),
        entity: db.entity(),
        usedKey:
          r.idempotencyKey === undefined ? undefined : (usedKey.get(r.idempotencyKey) as UsedKey),
        fingerprinted:
          r.fingerprint === null
            ? undefined
            : (fingerprinted.get(r.fingerprint) as { id: string; je_number: string } | undefined),
        lookups: this.chart.facts(),
        // Read once per group's transaction (Db.kept): only a write can revoke a key.
        ...(r.apiKeys
          ? {
              liveKeys: new Set(
                r.apiKeys.filter((id) => db.kept(`live ${id}`, () => !!live.get(id))),
              ),
            }
          : {}),
        numbering: numberingFacts(db),
      }),
      trail: new AuditTables(
        sqliteSql((text) => db.prep(text)),
        FILE,
      ),
      resembling: (ref) => this.chart.resembling(ref),
      entry: async (idOrNumber) => this.stored(idOrNumber),
      recon,
      plans: new PlanTables(
        sqliteSql((text) => db.prep(text)),
        FILE_ENTITY,
      ),
      fx: new FxTables(
        sqliteSql((text) => db.prep(text)),
        new Scope(null),
      ),
    };
  }

  private writeTx(): Unrecorded<StoreWriteTx> {
    const db = this.db;
    const reversed = db.prep(
      `UPDATE journal_entries SET status = 'reversed', updated_at = ? WHERE seq = ?`,
    );
    const recordKey = db.prep(
      `INSERT INTO idempotency_keys (key, request_hash, journal_entry_id, created_at_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash,
         journal_entry_id = excluded.journal_entry_id, created_at_ms = excluded.created_at_ms`,
    );
    const recon = sqliteRecon(db);
    return {
      ...this.readTx(recon),
      // The head of the trail is read once per group commit's transaction, not once per write.
      trail: new AuditTables(
        sqliteSql((text) => db.prep(text)),
        FILE,
        undefined,
        () => this.commits.epoch,
        this.held,
      ),
      recon,
      write: async (entry, numbered, meta, key) => {
        const group = this.commits.groupTotals;
        const afterFlush = (seq: number, lines: number) => indexTailIfLong(db, seq, lines);
        const sink = fileWriter(runOn(db), lastSeq(db), db.now, afterFlush, group === null);
        const inserted = sink.write(entry, numbered, meta);
        await sink.flush();
        group?.wrote(entry);
        if (meta.originalSeq !== null) reversed.run(db.stamp(), meta.originalSeq);
        if (key) recordKey.run(key.key, key.hash, inserted.id, db.now().getTime());
        return inserted;
      },
    };
  }

  /** An entry named by id or JE number as its reversal reads it, or undefined. */
  private stored(idOrNumber: string): StoredEntry | undefined {
    const n = normaliseJeNumber(idOrNumber);
    const row = this.db
      .prep(
        `SELECT seq, id, je_number, entry_date, currency, is_adjusting, tags FROM journal_entries
         WHERE id = ? OR je_number = ?`,
      )
      .get(idOrNumber.trim(), n.ok ? n.value : null) as
      | (Omit<StoredEntry, 'is_adjusting' | 'reversed_by' | 'lines' | 'tags'> & {
          is_adjusting: number;
          tags: string | null;
        })
      | undefined;
    if (!row) return undefined;
    const lines = this.db
      .prep(
        `SELECT a.external_id AS gl_account_id, l.line_type, l.amount_atoms, l.memo,
                c.counterparty_type, c.external_id AS counterparty_external_id, ${FX_COLUMNS},
                l.tags AS line_tags
         FROM journal_lines l JOIN accounts a ON a.key = l.account_key
         LEFT JOIN counterparties c ON c.id = l.counterparty_id WHERE l.entry_seq = ? ORDER BY l.line_no`,
      )
      .all(row.seq)
      .map((l) => storedLine(l as StoredEntry['lines'][number] & FxColumns & LineTags));
    const reversedBy = this.db
      .prep(`SELECT je_number FROM journal_entries WHERE original_seq = ? ORDER BY seq`)
      .pluck()
      .all(row.seq) as string[];
    return {
      ...row,
      is_adjusting: row.is_adjusting === 1,
      reversed_by: reversedBy,
      lines,
      tags: tagsOf(row.tags),
    };
  }

  get(idOrNumber: string) {
    return Promise.resolve(this.reader.get(idOrNumber));
  }

  async *list(filter: EntryFilter) {
    yield* this.reader.list(filter);
  }

  async importStore(sizeHint: number | null | undefined): Promise<SqliteImportStore> {
    return new SqliteImportStore(this.db, this.chart, sizeHint);
  }
}
