import { seqOf, type JeSeq } from '../../domain/jeNumber.js';
import { tagsOf } from '../../domain/tags.js';
import { storedLine, type LineTags } from '../journal/storedLine.js';
import { Scope } from '../sql/dialect.js';
import { FxTables } from '../sql/fxTables.js';
import { FX_COLUMNS, type FxColumns } from '../../domain/fx.js';
import type { UsedKey } from '../../domain/posting.js';
import { DB_MS, factsStatement, takenAbove, type FactsRow } from './facts.js';
import { EntryWriter } from '../journal/entryRows.js';
import type { EntryFilter } from '../port.js';
import type {
  EntityState,
  FactsRequest,
  GroupWriteTx,
  NumberingFacts,
  StoredEntry,
  WriteKind,
} from '../journal/store.js';
import { GroupTotals } from '../journal/groupTotals.js';
import type { FeatureStore, StoreReadTx, StoreWriteTx } from '../compose/storeLedger.js';
import { lookupsOf, type PgChart } from './chart.js';
import type { PgDb, Query, TxQuery } from './db.js';
import type { PgEntities } from './entity.js';
import { PgEntryReader } from './entries.js';
import { PgGroupCommit } from './groupCommit.js';
import { OneStatement } from './entryRows.js';
import { PgImportStore } from './importBatch.js';
import { analyzeIfGrown } from './statistics.js';
import { pgRecon } from './recon.js';
import { pgSql } from './tables.js';
import { PlanTables } from '../sql/planTables.js';
import { recorded, type Unrecorded } from '../audit/recording.js';
import { whoNow } from '../runtime/actor.js';
import { AUDIT_COLUMNS, AuditTables, eventRow } from '../sql/auditTables.js';
import { GENESIS, type AuditEvent, type Who } from '../../domain/audit.js';

/** audit_events' columns, the entity's first, as a batch inserts them. */
const AUDIT_NAMES = ['entity_id', ...AUDIT_COLUMNS.map((c) => c.name)];

/** The largest storage sequence number of the entity; a writer that holds its lock goes on from it. */
export async function lastSeq(q: Query, entityId: string): Promise<number> {
  const [r] = await q<{ seq: number }>(
    `SELECT COALESCE(MAX(seq), 0) AS seq FROM journal_entries WHERE entity_id = $1`,
    [entityId],
  );
  return Number(r!.seq);
}

/**
 * Where numbering stands for an import, which may number any count of entries: the largest JE-n
 * that counts, and every number taken without counting above it (final under the entity's lock).
 */
export async function numberingOf(q: Query, entityId: string): Promise<NumberingFacts> {
  const [top] = await q<{ last: string | null }>(
    `SELECT MAX(je_seq)::text AS last FROM journal_entries WHERE entity_id = $1`,
    [entityId],
  );
  const rows = await q<{ n: string }>(`SELECT n::text FROM (${takenAbove('$2')}) x ORDER BY n`, [
    entityId,
    String(seqOf(top!.last === null ? null : BigInt(top!.last))),
  ]);
  return numberingFrom(
    top!.last,
    rows.map((r) => r.n),
  );
}

/** Numbering from the largest counted number and the uncounted ones above it, ascending. */
function numberingFrom(lastText: string | null, takenText: string[]): NumberingFacts {
  const last = seqOf(lastText === null ? null : BigInt(lastText));
  const taken = takenText.map((n) => BigInt(n));
  return {
    last,
    nextTaken: (from: JeSeq) => {
      const f = BigInt(from);
      let [lo, hi] = [0, taken.length];
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (taken[mid]! < f) lo = mid + 1;
        else hi = mid;
      }
      return lo < taken.length ? seqOf(taken[lo]!) : null;
    },
  };
}

/**
 * What a write adds after its rows, to the same statement: the entries it reverses marked, and the
 * idempotency keys it was posted under (each key at most once: a group's later post under a key
 * is refused before it is written).
 */
function marksAndKeys(
  one: OneStatement,
  entityId: string,
  reversed: number[],
  keys: [string, string, string][],
  stamp: string,
): void {
  if (reversed.length)
    one.add(
      (at) => `UPDATE journal_entries SET status = 'reversed', updated_at = $${at + 2}
        WHERE entity_id = $${at} AND seq = ANY($${at + 1}::int8[])`,
      [entityId, reversed, stamp],
    );
  if (keys.length)
    one.add(
      (at) => `INSERT INTO idempotency_keys AS k
          (entity_id, key, request_hash, journal_entry_id, created_at_ms)
        SELECT $${at}, x.k, x.h, x.i, ${DB_MS}
        FROM unnest($${at + 1}::text[], $${at + 2}::text[], $${at + 3}::text[]) AS x(k, h, i)
        ON CONFLICT (entity_id, key) DO UPDATE SET request_hash = excluded.request_hash,
          journal_entry_id = excluded.journal_entry_id, created_at_ms = excluded.created_at_ms`,
      [entityId, ...[0, 1, 2].map((i) => keys.map((k) => k[i]))],
    );
}

/**
 * The journal's persistence in a database, for one entity: a write is one transaction that takes the
 * entity's row FOR UPDATE first (its write lock: writers of one entity queue, numbers stay gapless),
 * reads what the write needs in one statement (FACTS), and writes the entry, its totals and its key
 * in another (OneStatement).
 */
export class PgJournalStore implements FeatureStore {
  readonly groupsPosts = true;
  private readonly reader: PgEntryReader;
  private readonly commits: PgGroupCommit;

  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    private readonly entities: PgEntities,
    private readonly chart: PgChart,
  ) {
    this.reader = new PgEntryReader(db, entityId);
    this.commits = new PgGroupCommit(entities);
    const totals = new GroupTotals();
    this.commits.deferTotals(totals, async (q) => {
      const one = new OneStatement();
      totals.write(one.target(entityId), [entityId]);
      await one.run(q);
    });
  }

  now(): Date {
    return this.db.now();
  }

  async write<T>(
    fn: (tx: StoreWriteTx) => Promise<T>,
    kind?: WriteKind,
    as?: Who,
    facts?: FactsRequest,
  ): Promise<T> {
    const who = as ?? whoNow();
    let grew: [number, number] | undefined;
    const result = await this.commits.run(
      (q, entity, then) =>
        recorded(
          this.writeTx(
            q,
            entity,
            (b, a) => (grew = [grew?.[0] ?? b, a]),
            then && facts && { request: facts, row: then[0] as FactsRow },
          ),
          who,
          fn,
        ),
      kind === 'entries',
      facts && factsStatement(this.entityId, facts),
    );
    if (grew) analyzeIfGrown(this.db, ...grew, this.entityId);
    return result;
  }

  read<T>(fn: (tx: StoreReadTx) => Promise<T>): Promise<T> {
    return this.db.tx(async (q) => fn(this.readTx(q, await this.entities.state(q))), true);
  }

  private readTx(
    q: Query,
    entity: EntityState,
    recon = pgRecon(q, this.entityId),
    onSeq?: (seq: number) => void,
    /** The facts of a request, read with the lock. */
    read?: { request: FactsRequest; row: FactsRow },
  ): StoreReadTx & { plans: PlanTables; fx: FxTables } {
    const e = this.entityId;
    // Its head comes with each write's facts, and is kept for the transaction.
    const trail = new AuditTables(pgSql(q), new Scope(e), undefined, () => 0);
    return {
      facts: async (r) => {
        const keys = r.idempotencyKeys;
        const [row] = read?.request === r ? [read.row] : await q<FactsRow>(...factsStatement(e, r));
        const { ms, seq, used, fingerprinted, taken, head, at, live } = row!;
        onSeq?.(Number(seq));
        trail.seed({ seq: Number(head?.seq ?? 0), hash: head?.hash ?? GENESIS, at });
        const usedKeys = keys
          ? new Map(((used ?? []) as (UsedKey & { key: string })[]).map((u) => [u.key, u]))
          : undefined;
        return {
          nowMs: Number(ms),
          entity,
          usedKey: keys ? undefined : ((used as UsedKey | null) ?? undefined),
          fingerprinted: fingerprinted ?? undefined,
          lookups: lookupsOf(row!),
          numbering: numberingFrom(row!.last, taken ?? []),
          ...(usedKeys ? { usedKeys } : {}),
          ...(r.apiKeys ? { liveKeys: new Set(live ?? []) } : {}),
        };
      },
      trail,
      resembling: (ref) => this.chart.resembling(ref, q),
      entry: (idOrNumber) => this.stored(q, idOrNumber),
      recon,
      plans: new PlanTables(pgSql(q), e),
      fx: new FxTables(pgSql(q), new Scope(e)),
    };
  }

  /** `grew`: the entity's largest sequence number before and after the transaction's entries. */
  private writeTx(
    q: TxQuery,
    entity: EntityState,
    grew: (before: number, after: number) => void,
    read?: { request: FactsRequest; row: FactsRow },
  ): Unrecorded<StoreWriteTx & GroupWriteTx> {
    const recon = pgRecon(q, this.entityId);
    // The entity's largest sequence number, as this transaction's facts (or last write) left it.
    let seq: number | undefined;
    return {
      ...this.readTx(q, entity, recon, (s) => (seq = s), read),
      recon,
      write: async (entry, numbered, meta, key) => {
        const e = this.entityId;
        const one = new OneStatement();
        const group = this.commits.groupTotals;
        const last = seq ?? (await lastSeq(q, e));
        const sink = new EntryWriter(one.target(e), last, this.db.now, undefined, group === null);
        const inserted = sink.write(entry, numbered, meta);
        await sink.flush();
        const reversed = meta.originalSeq === null ? [] : [meta.originalSeq];
        marksAndKeys(
          one,
          e,
          reversed,
          key ? [[key.key, key.hash, inserted.id]] : [],
          this.db.stamp(),
        );
        await one.run(q);
        group?.wrote(entry);
        grew(last, (seq = inserted.seq));
        return inserted;
      },
      batch: () => {
        const e = this.entityId;
        const one = new OneStatement();
        let sink: EntryWriter | null = null;
        let first = 0;
        let last = 0;
        const reversed: number[] = [];
        const keys: [string, string, string][] = [];
        let events: AuditEvent[] = [];
        return {
          record: (sealed) => {
            events = sealed;
          },
          write: (entry, numbered, meta, key) => {
            if (seq === undefined) throw new Error('a batch is written after the facts it read');
            // The batch sums its own totals: it is one write of its group commit.
            sink ??= new EntryWriter(one.target(e), (first = seq), this.db.now);
            const inserted = sink.write(entry, numbered, meta);
            // An accrual written in the batch is written reversed already: only earlier entries are marked.
            if (meta.originalSeq !== null && meta.originalSeq <= first)
              reversed.push(meta.originalSeq);
            if (key) keys.push([key.key, key.hash, inserted.id]);
            last = inserted.seq;
            return inserted;
          },
          flush: async (end) => {
            if (!sink) return;
            await sink.flush();
            marksAndKeys(one, e, reversed, keys, this.db.stamp());
            // The posts' events go with their rows.
            if (events.length)
              one.target(e).insert(
                'audit_events',
                AUDIT_NAMES,
                events.flatMap((ev) => [e, ...eventRow(ev)]),
                events.length,
              );
            await one.run((end && q.lastWith) || q);
            grew(first, (seq = last));
          },
        };
      },
    };
  }

  /** An entry named by id or JE number as its reversal reads it, or undefined. */
  private async stored(q: Query, idOrNumber: string): Promise<StoredEntry | undefined> {
    const row = await this.reader.find(q, idOrNumber);
    if (!row) return undefined;
    const e = this.entityId;
    const [lines, reversedBy] = await Promise.all([
      q<StoredEntry['lines'][number] & FxColumns & LineTags>(
        `SELECT a.external_id AS gl_account_id, l.line_type, l.amount_atoms, l.memo,
                c.counterparty_type, c.external_id AS counterparty_external_id, ${FX_COLUMNS},
                l.tags AS line_tags
         FROM journal_lines l JOIN accounts a ON a.entity_id = l.entity_id AND a.key = l.account_key
         LEFT JOIN counterparties c ON c.entity_id = l.entity_id AND c.id = l.counterparty_id
         WHERE l.entity_id = $1 AND l.entry_seq = $2 ORDER BY l.line_no`,
        [e, row.seq],
      ),
      q<{ je_number: string }>(
        `SELECT je_number FROM journal_entries WHERE entity_id = $1 AND original_seq = $2 ORDER BY seq`,
        [e, row.seq],
      ),
    ]);
    return {
      seq: row.seq,
      id: row.id,
      je_number: row.je_number,
      entry_date: row.entry_date,
      currency: row.currency,
      is_adjusting: row.is_adjusting,
      reversed_by: reversedBy.map((r) => r.je_number),
      lines: lines.map(storedLine),
      tags: tagsOf(row.tags),
    };
  }

  get(idOrNumber: string) {
    return this.reader.get(idOrNumber);
  }

  list(filter: EntryFilter) {
    return this.reader.list(filter);
  }

  async importStore(sizeHint: number | null | undefined): Promise<PgImportStore> {
    return new PgImportStore(this.db, this.entityId, this.entities, this.chart, sizeHint);
  }
}
