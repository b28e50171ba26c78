import Database from 'better-sqlite3';
import {
  DumpReader,
  noCounts,
  type DumpCounts,
  type DumpEntry,
  type DumpRecord,
} from '../../domain/dump.js';
import { BooksError } from '../../domain/errors.js';
import type { Permission } from '../../domain/keys.js';
import { seqOf } from '../../domain/jeNumber.js';
import type { Db } from './db.js';
import { reindex } from './glIndex.js';
import { MONTH_TOTALS_FROM_LINES } from './sql.js';
import { reconRecords, ReconRestore } from '../sql/reconTransfer.js';
import { FILE_ENTITY, sqliteSql } from './recon.js';

/** Entries read per page of a dump: their lines come in one range read. */
const PAGE = 1000;

/**
 * The ledger as a dump (domain/dump.ts), read on a read-only connection of its own in one read
 * transaction: a consistent snapshot, streamed, with memory that holds a page of entries.
 */
export async function* dumpLedger(location: string): AsyncGenerator<DumpRecord> {
  const db = new Database(location, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(false);
  try {
    db.exec('BEGIN');
    yield { type: 'ledger', format: 1 };
    const e = db
      .prepare(
        `SELECT id, name, currency, books_start, fiscal_year_start_month, lock_date, created_at, updated_at
         FROM entity`,
      )
      .get() as Omit<Extract<DumpRecord, { type: 'entity' }>, 'type'>;
    yield { type: 'entity', ...e };
    for (const s of db.prepare(`SELECT name, value FROM ledger_secrets ORDER BY name`).all() as {
      name: string;
      value: Buffer;
    }[])
      yield { type: 'secret', name: s.name, value: s.value.toString('base64') };
    const counts = noCounts();
    yield* chart(db, counts);
    for (const entry of entries(db)) {
      counts.entries++;
      counts.lines += entry.lines.length;
      yield entry;
    }
    for (const k of db
      .prepare(
        `SELECT key, request_hash, journal_entry_id, created_at_ms FROM idempotency_keys ORDER BY key`,
      )
      .iterate() as IterableIterator<
      Omit<Extract<DumpRecord, { type: 'idempotency_key' }>, 'type'>
    >) {
      counts.idempotency_keys++;
      yield { type: 'idempotency_key', ...k };
    }
    for (const k of db
      .prepare(
        `SELECT id, name, key_hash, permissions, created_at, revoked_at FROM api_keys ORDER BY created_at, id`,
      )
      .iterate() as IterableIterator<Record<string, unknown>>) {
      counts.api_keys++;
      yield {
        type: 'api_key',
        ...(k as Omit<Extract<DumpRecord, { type: 'api_key' }>, 'type' | 'permissions'>),
        permissions: JSON.parse(k.permissions as string) as Permission[],
      };
    }
    const entryId = db.prepare(`SELECT id FROM journal_entries WHERE seq = ?`).pluck();
    yield* reconRecords(
      sqliteSql((text) => db.prepare(text)),
      FILE_ENTITY,
      {
        accountIds: new Map(
          db.prepare(`SELECT key, id FROM accounts`).raw().all() as [number, string][],
        ),
        entryIds: async (seqs) => new Map(seqs.map((seq) => [seq, entryId.get(seq) as string])),
      },
      counts,
    );
    yield { type: 'end', counts };
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/** The accounts (parents named by id) and counterparties of the dump, counted as they go. */
function* chart(db: Database.Database, counts: DumpCounts): Generator<DumpRecord> {
  for (const a of db
    .prepare(
      `SELECT a.id, a.external_id, a.account_number, a.name, a.account_type, p.id AS parent_id,
              a.is_postable, a.is_active, a.currency, a.created_at, a.updated_at
       FROM accounts a LEFT JOIN accounts p ON p.key = a.parent_key ORDER BY a.key`,
    )
    .iterate() as IterableIterator<Record<string, unknown>>) {
    counts.accounts++;
    yield {
      type: 'account',
      ...(a as Omit<Extract<DumpRecord, { type: 'account' }>, 'type'>),
      is_postable: a.is_postable === 1,
      is_active: a.is_active === 1,
    };
  }
  for (const c of db
    .prepare(
      `SELECT id, counterparty_type, external_id, name, is_active, created_at, updated_at
       FROM counterparties ORDER BY counterparty_type, external_id`,
    )
    .iterate() as IterableIterator<Record<string, unknown>>) {
    counts.counterparties++;
    yield {
      type: 'counterparty',
      ...(c as Omit<Extract<DumpRecord, { type: 'counterparty' }>, 'type'>),
      is_active: c.is_active === 1,
    };
  }
}

/** The entries in storage order, a page at a time, each with its lines. */
function* entries(db: Database.Database): Generator<DumpEntry> {
  const page = db.prepare(
    `SELECT e.seq, e.id, e.je_number, e.je_seq, e.je_seq_uncounted, e.entry_date, e.currency, e.memo,
            e.source, e.status, e.is_adjusting, e.manual_entry_reason, e.total_atoms, o.id AS original_id,
            e.fingerprint, e.created_at, e.updated_at
     FROM journal_entries e LEFT JOIN journal_entries o ON o.seq = e.original_seq
     WHERE e.seq > ? ORDER BY e.seq LIMIT ?`,
  );
  page.safeIntegers(true);
  const lines = db.prepare(
    `SELECT l.entry_seq, a.id AS account_id, l.line_type, l.amount_atoms, l.memo, l.counterparty_id
     FROM journal_lines l JOIN accounts a ON a.key = l.account_key
     WHERE l.entry_seq BETWEEN ? AND ? ORDER BY l.entry_seq, l.line_no`,
  );
  for (let after = 0n; ;) {
    const rows = page.all(after, PAGE) as Record<string, unknown>[];
    if (rows.length === 0) return;
    const first = rows[0]!.seq as bigint;
    const last = rows[rows.length - 1]!.seq as bigint;
    const bySeq = new Map<number, DumpEntry['lines']>();
    for (const l of lines.all(first, last) as (DumpEntry['lines'][number] & {
      entry_seq: number;
    })[]) {
      const { entry_seq: seq, ...line } = l;
      let list = bySeq.get(seq);
      if (!list) bySeq.set(seq, (list = []));
      list.push(line);
    }
    for (const r of rows) {
      const num = (v: unknown) => (v === null ? null : seqOf(v as bigint));
      yield {
        type: 'entry',
        id: r.id as string,
        je_number: r.je_number as string,
        je_seq: num(r.je_seq),
        je_seq_uncounted: num(r.je_seq_uncounted),
        entry_date: r.entry_date as string,
        currency: r.currency as string,
        memo: r.memo as string | null,
        source: r.source as string,
        status: r.status as string,
        is_adjusting: r.is_adjusting === 1n,
        manual_entry_reason: r.manual_entry_reason as string | null,
        total_atoms: Number(r.total_atoms),
        original_id: r.original_id as string | null,
        fingerprint: r.fingerprint as string | null,
        created_at: r.created_at as string,
        updated_at: r.updated_at as string,
        lines: bySeq.get(Number(r.seq)) ?? [],
      };
    }
    after = last;
  }
}

/**
 * Restores a dump into this ledger, which must hold nothing yet (no account, counterparty, entry or
 * key: a ledger just made by books init without a chart): in one IMMEDIATE transaction, all of it
 * or nothing. The entity takes the dump's identity and settings; the derived totals and the general
 * ledger's index are computed from the lines before it commits. The ledger's connection serves
 * nothing else meanwhile (the records may come from a file, read as they come).
 */
export async function restoreLedger(db: Db, records: AsyncIterable<unknown>): Promise<DumpCounts> {
  return db.writeAsync(async () => {
    refuseUnlessEmpty(db);
    const reader = new DumpReader();
    const restore = new Restore(db);
    let counts: DumpCounts | null = null;
    for await (const record of records) {
      const r = reader.read(record);
      if (r.type === 'end') counts = r.counts;
      else restore.record(r);
    }
    reader.finish();
    await restore.finish();
    return counts!;
  });
}

function refuseUnlessEmpty(db: Db): void {
  const held = ['accounts', 'counterparties', 'journal_entries', 'api_keys'].filter(
    (t) => db.prep(`SELECT EXISTS (SELECT 1 FROM ${t})`).pluck().get() === 1,
  );
  if (held.length)
    throw new BooksError(
      'invalid_input',
      `${db.location} already holds ${held.join(', ').replace('journal_entries', 'entries')}: ` +
        'a dump is restored into a new ledger (books init without --chart)',
    );
}

/** The rows of a dump as they are inserted: accounts' keys and entries' sequence numbers by id. */
class Restore {
  private readonly accountKeys = new Map<string, number>();
  private readonly parents: [string, string][] = [];
  private readonly entrySeqs = new Map<string, number>();
  private seq = 0;
  /** Reconciliation's records, written once the journal is in. */
  private readonly recon: ReconRestore;

  constructor(private readonly db: Db) {
    this.recon = new ReconRestore(
      sqliteSql((text) => db.prep(text)),
      FILE_ENTITY,
    );
  }

  record(r: Exclude<DumpRecord, { type: 'end' }>): void {
    const run = (sql: string, ...params: unknown[]) => this.db.prep(sql).run(...params);
    switch (r.type) {
      case 'ledger':
        return;
      case 'entity':
        run(
          `UPDATE entity SET id = ?, name = ?, currency = ?, books_start = ?, fiscal_year_start_month = ?,
             lock_date = ?, created_at = ?, updated_at = ?, rebuild_started_at = NULL, rebuild_owner = NULL`,
          r.id,
          r.name,
          r.currency,
          r.books_start,
          r.fiscal_year_start_month,
          r.lock_date,
          r.created_at,
          r.updated_at,
        );
        return;
      case 'secret':
        run(
          `INSERT INTO ledger_secrets (name, value) VALUES (?, ?)
           ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
          r.name,
          Buffer.from(r.value, 'base64'),
        );
        return;
      case 'account':
        return this.account(r);
      case 'counterparty':
        return this.counterparty(r);
      case 'entry':
        return this.entry(r);
      case 'idempotency_key':
        run(
          `INSERT INTO idempotency_keys (key, request_hash, journal_entry_id, created_at_ms) VALUES (?, ?, ?, ?)`,
          r.key,
          r.request_hash,
          r.journal_entry_id,
          r.created_at_ms,
        );
        return;
      case 'api_key':
        run(
          `INSERT INTO api_keys (id, name, key_hash, permissions, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)`,
          r.id,
          r.name,
          r.key_hash,
          JSON.stringify(r.permissions),
          r.created_at,
          r.revoked_at,
        );
        return;
      default:
        this.recon.add(r);
    }
  }

  private account(r: Extract<DumpRecord, { type: 'account' }>): void {
    const info = this.db
      .prep(
        `INSERT INTO accounts (id, external_id, account_number, name, account_type, is_postable, is_active,
                               currency, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        r.id,
        r.external_id,
        r.account_number,
        r.name,
        r.account_type,
        +r.is_postable,
        +r.is_active,
        r.currency,
        r.created_at,
        r.updated_at,
      );
    this.accountKeys.set(r.id, Number(info.lastInsertRowid));
    if (r.parent_id) this.parents.push([r.id, r.parent_id]);
  }

  private counterparty(r: Extract<DumpRecord, { type: 'counterparty' }>): void {
    this.db
      .prep(
        `INSERT INTO counterparties (id, counterparty_type, external_id, name, is_active, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        r.id,
        r.counterparty_type,
        r.external_id,
        r.name,
        +r.is_active,
        r.created_at,
        r.updated_at,
      );
  }

  private entry(r: DumpEntry): void {
    const seq = ++this.seq;
    const original = r.original_id === null ? null : this.entrySeqs.get(r.original_id)!;
    this.db
      .prep(
        `INSERT INTO journal_entries (seq, id, je_number, je_seq, je_seq_uncounted, entry_date, currency, memo,
           source, status, is_adjusting, manual_entry_reason, total_atoms, line_count, original_seq, fingerprint,
           created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        seq,
        r.id,
        r.je_number,
        r.je_seq,
        r.je_seq_uncounted,
        r.entry_date,
        r.currency,
        r.memo,
        r.source,
        r.status,
        +r.is_adjusting,
        r.manual_entry_reason,
        r.total_atoms,
        r.lines.length,
        original,
        r.fingerprint,
        r.created_at,
        r.updated_at,
      );
    const line = this.db.prep(
      `INSERT INTO journal_lines (entry_seq, line_no, account_key, line_type, amount_atoms, memo, counterparty_id,
         entry_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    r.lines.forEach((l, i) =>
      line.run(
        seq,
        i + 1,
        this.accountKeys.get(l.account_id)!,
        l.line_type,
        l.amount_atoms,
        l.memo,
        l.counterparty_id,
        r.entry_date,
      ),
    );
    this.entrySeqs.set(r.id, seq);
  }

  /** Parents, now that every account is in; derived totals and index from the lines; reconciliation. */
  async finish(): Promise<void> {
    const setParent = this.db.prep(`UPDATE accounts SET parent_key = ? WHERE id = ?`);
    for (const [id, parent] of this.parents) {
      const key = this.accountKeys.get(parent);
      if (key === undefined)
        throw new BooksError(
          'invalid_input',
          `account ${id} of the dump names parent ${parent}, not in it`,
        );
      setParent.run(key, id);
    }
    this.db.sqlite.exec(
      `DELETE FROM account_month_totals;
       INSERT INTO account_month_totals (account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count)
       ${MONTH_TOTALS_FROM_LINES}`,
    );
    reindex(this.db);
    await this.recon.finish(
      (id) => this.accountKeys.get(id)!,
      (id) => this.entrySeqs.get(id)!,
    );
  }
}
