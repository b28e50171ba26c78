import {
  noCounts,
  type DumpCounts,
  type DumpEntry,
  type DumpReader,
  type DumpRecord,
} from '../../domain/dump.js';
import { BooksError } from '../../domain/errors.js';
import { seqOf } from '../../domain/jeNumber.js';
import type { Permission } from '../../domain/keys.js';
import type { PgDb, Query } from './db.js';
import { ENTRY_COLUMNS, LINE_COLUMNS, type RowTarget } from '../entryRows.js';
import { entityRows } from './journal.js';
import { rewriteTotals } from './maintenance.js';
import { reconRecords, ReconRestore } from '../sql/reconTransfer.js';
import { pgSql } from './recon.js';

/** Entries read per page of a dump. */
const PAGE = 1000;

/**
 * One entity as a dump (domain/dump.ts), from one snapshot, streamed a page of entries at a time.
 */
export function dumpEntity(db: PgDb, entityId: string): AsyncGenerator<DumpRecord> {
  return db.snapshot((run) => records((sql, params = [entityId]) => run(sql, params), entityId));
}

/** The records of a dump, read through `q` (whose parameters are the entity's id unless given). */
async function* records(q: Query, entityId: string): AsyncGenerator<DumpRecord> {
  yield { type: 'ledger', format: 1 };
  const [e] = await q<Omit<Extract<DumpRecord, { type: 'entity' }>, 'type'>>(
    `SELECT entity_id AS id, name, currency, books_start, fiscal_year_start_month, lock_date, created_at,
            updated_at FROM entities WHERE entity_id = $1`,
  );
  yield { type: 'entity', ...e! };
  for (const s of await q<{ name: string; value: Buffer }>(
    `SELECT name, value FROM ledger_secrets WHERE entity_id = $1 ORDER BY name`,
  ))
    yield { type: 'secret', name: s.name, value: s.value.toString('base64') };
  const counts = noCounts();
  yield* chartRecords(q, counts);
  yield* entryRecords(q, entityId, counts);
  yield* keyRecords(q, counts);
  const accounts = await q<{ key: number; id: string }>(
    `SELECT key, id FROM accounts WHERE entity_id = $1`,
  );
  yield* reconRecords(
    pgSql(q),
    entityId,
    {
      accountIds: new Map(accounts.map((a) => [Number(a.key), a.id])),
      entryIds: async (seqs) => {
        const rows = await q<{ seq: number; id: string }>(
          `SELECT seq, id FROM journal_entries WHERE entity_id = $1 AND seq = ANY($2::int8[])`,
          [entityId, seqs],
        );
        return new Map(rows.map((r) => [Number(r.seq), r.id]));
      },
    },
    counts,
  );
  yield { type: 'end', counts };
}

/** The accounts (parents named by id) and counterparties, counted as they go. */
async function* chartRecords(q: Query, counts: DumpCounts): AsyncGenerator<DumpRecord> {
  for (const a of await q<Omit<Extract<DumpRecord, { type: 'account' }>, 'type'>>(
    `SELECT a.id, a.external_id, a.account_number, a.name, a.account_type, p.id AS parent_id,
            a.is_postable, a.is_active, a.currency, a.created_at, a.updated_at
     FROM accounts a LEFT JOIN accounts p ON p.entity_id = a.entity_id AND p.key = a.parent_key
     WHERE a.entity_id = $1 ORDER BY a.key`,
  )) {
    counts.accounts++;
    yield { type: 'account', ...a };
  }
  for (const c of await q<Omit<Extract<DumpRecord, { type: 'counterparty' }>, 'type'>>(
    `SELECT id, counterparty_type, external_id, name, is_active, created_at, updated_at
     FROM counterparties WHERE entity_id = $1 ORDER BY counterparty_type, external_id`,
  )) {
    counts.counterparties++;
    yield { type: 'counterparty', ...c };
  }
}

/** The entries in storage order, a page at a time, each with its lines. */
async function* entryRecords(
  q: Query,
  entityId: string,
  counts: DumpCounts,
): AsyncGenerator<DumpRecord> {
  for (let after = 0; ;) {
    const rows = await q<
      Omit<DumpEntry, 'type' | 'lines' | 'je_seq' | 'je_seq_uncounted'> & {
        seq: number;
        je_seq: string | null;
        je_seq_uncounted: string | null;
      }
    >(
      `SELECT e.seq, e.id, e.je_number, e.je_seq::text, e.je_seq_uncounted::text, e.entry_date, e.currency,
              e.memo, e.source, e.status, e.is_adjusting, e.manual_entry_reason, e.total_atoms,
              o.id AS original_id, e.fingerprint, e.created_at, e.updated_at
       FROM journal_entries e LEFT JOIN journal_entries o ON o.entity_id = e.entity_id AND o.seq = e.original_seq
       WHERE e.entity_id = $1 AND e.seq > $2 ORDER BY e.seq LIMIT ${PAGE}`,
      [entityId, after],
    );
    if (rows.length === 0) break;
    const lines = await q<DumpEntry['lines'][number] & { entry_seq: number }>(
      `SELECT l.entry_seq, a.id AS account_id, l.line_type, l.amount_atoms, l.memo, l.counterparty_id
       FROM journal_lines l JOIN accounts a ON a.entity_id = l.entity_id AND a.key = l.account_key
       WHERE l.entity_id = $1 AND l.entry_seq > $2 AND l.entry_seq <= $3 ORDER BY l.entry_seq, l.line_no`,
      [entityId, after, rows[rows.length - 1]!.seq],
    );
    const bySeq = new Map<number, DumpEntry['lines']>();
    for (const { entry_seq: seq, ...line } of lines) {
      let list = bySeq.get(seq);
      if (!list) bySeq.set(seq, (list = []));
      list.push(line);
    }
    for (const { seq, ...r } of rows) {
      const num = (v: string | null) => (v === null ? null : seqOf(BigInt(v)));
      const entryLines = bySeq.get(seq) ?? [];
      counts.entries++;
      counts.lines += entryLines.length;
      yield {
        type: 'entry',
        ...r,
        je_seq: num(r.je_seq),
        je_seq_uncounted: num(r.je_seq_uncounted),
        lines: entryLines,
      };
    }
    after = rows[rows.length - 1]!.seq;
  }
}

/** The idempotency keys and the API keys (their hashes). */
async function* keyRecords(q: Query, counts: DumpCounts): AsyncGenerator<DumpRecord> {
  for (const k of await q<Omit<Extract<DumpRecord, { type: 'idempotency_key' }>, 'type'>>(
    `SELECT key, request_hash, journal_entry_id, created_at_ms FROM idempotency_keys WHERE entity_id = $1
     ORDER BY key`,
  )) {
    counts.idempotency_keys++;
    yield { type: 'idempotency_key', ...k };
  }
  for (const k of await q<Record<string, unknown>>(
    `SELECT id, name, key_hash, permissions, created_at, revoked_at FROM api_keys WHERE entity_id = $1
     ORDER BY created_at, id`,
  )) {
    counts.api_keys++;
    yield {
      type: 'api_key',
      ...(k as Omit<Extract<DumpRecord, { type: 'api_key' }>, 'type' | 'permissions'>),
      permissions: JSON.parse(k.permissions as string) as Permission[],
    };
  }
}

/**
 * Restores a dump into an entity that holds nothing yet, inside the caller's transaction (which holds
 * the entity's lock): all of it or nothing. The entity keeps its id and takes the dump's settings;
 * entries and lines go in as arrays, a few thousand rows a statement; the derived totals are computed
 * from the lines before it commits.
 */
export async function restoreEntity(
  q: Query,
  entityId: string,
  records: AsyncIterable<unknown>,
  reader: DumpReader,
): Promise<DumpCounts> {
  await refuseUnlessEmpty(q, entityId);
  const restore = new Restore(q, entityId);
  let counts: DumpCounts | null = null;
  for await (const record of records) {
    const r = reader.read(record);
    if (r.type === 'end') counts = r.counts;
    else await restore.record(r);
  }
  reader.finish();
  await restore.finish();
  return counts!;
}

async function refuseUnlessEmpty(q: Query, entityId: string): Promise<void> {
  const [held] = await q<{ held: string[] }>(
    `SELECT array_remove(ARRAY[
       CASE WHEN EXISTS (SELECT 1 FROM accounts WHERE entity_id = $1) THEN 'accounts' END,
       CASE WHEN EXISTS (SELECT 1 FROM counterparties WHERE entity_id = $1) THEN 'counterparties' END,
       CASE WHEN EXISTS (SELECT 1 FROM journal_entries WHERE entity_id = $1) THEN 'entries' END,
       CASE WHEN EXISTS (SELECT 1 FROM api_keys WHERE entity_id = $1) THEN 'api_keys' END], NULL) AS held`,
    [entityId],
  );
  if (held!.held.length)
    throw new BooksError(
      'invalid_input',
      `the entity already holds ${held!.held.join(', ')}: a dump is restored into a new entity ` +
        '(books init without --chart)',
    );
}

/** Inserts one row given as columns and values (the entity's id added first). */
function insertRow(q: Query, table: string, entityId: string, row: Record<string, unknown>) {
  const columns = ['entity_id', ...Object.keys(row)];
  const params = columns.map((_, i) => `$${i + 1}`).join(', ');
  return q(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${params})`, [
    entityId,
    ...Object.values(row),
  ]);
}

/** Rows as a restore writes them: the entity first, then the columns EntryWriter writes. */
const ENTRY_ROW = ['entity_id', ...ENTRY_COLUMNS];
const LINE_ROW = ['entity_id', ...LINE_COLUMNS];

/** The rows of a dump as they go in: accounts' keys and entries' sequence numbers by id. */
class Restore {
  /** API keys of the dump that another entity holds: their ids and names, and the entity's slug. */
  private readonly keysTaken: string[] = [];
  private readonly accountKeys = new Map<string, number>();
  private readonly parents: [string, string][] = [];
  private readonly entrySeqs = new Map<string, number>();
  private entries: unknown[] = [];
  private lines: unknown[] = [];
  private readonly rows: RowTarget;

  constructor(
    private readonly q: Query,
    private readonly entityId: string,
  ) {
    this.rows = entityRows(q, entityId);
    this.recon = new ReconRestore(pgSql(q), entityId);
  }

  /** Reconciliation's records, written once the journal is in. */
  private readonly recon: ReconRestore;

  async record(r: Exclude<DumpRecord, { type: 'end' }>): Promise<void> {
    const { q, entityId: e } = this;
    switch (r.type) {
      case 'ledger':
        return;
      case 'entity':
        await q(
          `UPDATE entities SET name = $2, currency = $3, books_start = $4, fiscal_year_start_month = $5,
             lock_date = $6, created_at = $7, updated_at = $8, rebuild_started_at = NULL, rebuild_owner = NULL
           WHERE entity_id = $1`,
          [e, r.name, r.currency, r.books_start, r.fiscal_year_start_month, r.lock_date].concat([
            r.created_at,
            r.updated_at,
          ]),
        );
        return;
      case 'secret':
        await q(
          `INSERT INTO ledger_secrets (entity_id, name, value) VALUES ($1, $2, $3)
           ON CONFLICT (entity_id, name) DO UPDATE SET value = excluded.value`,
          [e, r.name, Buffer.from(r.value, 'base64')],
        );
        return;
      case 'account': {
        const { type: _t, parent_id, ...account } = r;
        this.accountKeys.set(r.id, this.accountKeys.size + 1);
        if (parent_id) this.parents.push([r.id, parent_id]);
        await insertRow(q, 'accounts', e, { ...account, key: this.accountKeys.size });
        return;
      }
      case 'counterparty': {
        const { type: _t, ...party } = r;
        await insertRow(q, 'counterparties', e, party);
        return;
      }
      case 'entry':
        return this.entry(r);
      case 'idempotency_key': {
        const { type: _t, ...key } = r;
        await insertRow(q, 'idempotency_keys', e, key);
        return;
      }
      case 'api_key': {
        const { type: _t, permissions, ...key } = r;
        const [owner] = await q<{ slug: string }>(
          `SELECT e.slug FROM api_keys k JOIN entities e ON e.entity_id = k.entity_id WHERE k.id = $1`,
          [r.id],
        );
        // The id is part of the key a client holds, and a key opens one entity: said once all are read.
        if (owner)
          return void this.keysTaken.push(
            `${r.id}${r.name ? ` (${r.name})` : ''} of '${owner.slug}'`,
          );
        await insertRow(q, 'api_keys', e, { ...key, permissions: JSON.stringify(permissions) });
        return;
      }
      default:
        this.recon.add(r);
    }
  }

  private async entry(r: DumpEntry): Promise<void> {
    const seq = this.entrySeqs.size + 1;
    this.entrySeqs.set(r.id, seq);
    const original = r.original_id === null ? null : this.entrySeqs.get(r.original_id);
    this.entries.push(this.entityId, seq, r.id, r.je_number, r.je_seq, r.je_seq_uncounted);
    this.entries.push(r.entry_date, r.currency, r.memo, r.source, r.status, +r.is_adjusting);
    this.entries.push(r.manual_entry_reason, r.total_atoms, r.lines.length, original);
    this.entries.push(r.fingerprint, r.created_at, r.updated_at);
    r.lines.forEach((l, i) => {
      const key = this.accountKeys.get(l.account_id);
      this.lines.push(this.entityId, seq, i + 1, key, l.line_type, l.amount_atoms, l.memo);
      this.lines.push(l.counterparty_id, r.entry_date);
    });
    if (this.lines.length >= this.rows.perStatement * LINE_ROW.length) await this.flush();
  }

  private async flush(): Promise<void> {
    const entries = this.entries.length / ENTRY_ROW.length;
    const lines = this.lines.length / LINE_ROW.length;
    if (entries) await this.rows.insert('journal_entries', ENTRY_ROW, this.entries, entries);
    if (lines) await this.rows.insert('journal_lines', LINE_ROW, this.lines, lines);
    [this.entries, this.lines] = [[], []];
  }

  /** Parents, now that every account is in; the derived totals, from the lines; reconciliation. */
  async finish(): Promise<void> {
    if (this.keysTaken.length) {
      const message =
        `the ledger's API keys ${this.keysTaken.join(', ')} are keys of another entity already: ` +
        "a key opens one entity, so a ledger's keys are copied once; nothing was copied";
      throw new BooksError('invalid_input', message, [
        { path: 'api_keys', reason: 'key_taken', message },
      ]);
    }
    await this.flush();
    for (const [id, parent] of this.parents) {
      const key = this.accountKeys.get(parent);
      if (key === undefined)
        throw new BooksError(
          'invalid_input',
          `account ${id} of the dump names parent ${parent}, not in it`,
        );
      await this.q(`UPDATE accounts SET parent_key = $3 WHERE entity_id = $1 AND id = $2`, [
        this.entityId,
        id,
        key,
      ]);
    }
    await rewriteTotals(this.q, this.entityId);
    await this.recon.finish(
      (id) => this.accountKeys.get(id)!,
      (id) => this.entrySeqs.get(id)!,
    );
  }
}
