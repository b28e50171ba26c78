import { randomBytes } from 'node:crypto';
import type { ValidEntry } from '../../domain/entry.js';
import { JeNumbering, seqOf } from '../../domain/jeNumber.js';
import type { Db } from './db.js';

/** What a writer wrote for one entry: enough to answer without reading the entry back. */
export interface Inserted {
  seq: number;
  id: string;
  je_number: string;
  ts: string;
}

export interface EntryMeta {
  source: string;
  fingerprint: string | null;
  originalSeq: number | null;
}

let idPool = Buffer.alloc(0);
let idPoolAt = 0;
let idMs = -1;
let idTime = '';

/**
 * A fresh id with a type prefix (`je_…`, `acct_…`): milliseconds in base 36, then 72 random bits, so ids
 * are unique across processes yet arrive in order, and a batch appends to the id index instead of
 * writing all over it. Random bytes are drawn in blocks, as a batch needs many.
 */
export function newId(prefix: string): string {
  if (idPoolAt + 9 > idPool.length) {
    idPool = randomBytes(9 * 4096);
    idPoolAt = 0;
  }
  idPoolAt += 9;
  const ms = Date.now();
  if (ms !== idMs) [idMs, idTime] = [ms, ms.toString(36).padStart(9, '0')];
  return `${prefix}_${idTime}${idPool.toString('base64url', idPoolAt - 9, idPoolAt)}`;
}

const ENTRY_COLUMNS = [
  'seq',
  'id',
  'je_number',
  'je_seq',
  'je_seq_uncounted',
  'entry_date',
  'currency',
  'memo',
  'source',
  'status',
  'is_adjusting',
  'manual_entry_reason',
  'total_atoms',
  'line_count',
  'original_seq',
  'fingerprint',
  'created_at',
  'updated_at',
] as const;
const LINE_COLUMNS = [
  'entry_seq',
  'line_no',
  'account_key',
  'line_type',
  'amount_atoms',
  'memo',
  'counterparty_id',
  'entry_date',
] as const;

/**
 * Rows per INSERT statement. Binding a row costs little; each statement run costs about a microsecond
 * of driver and VDBE set-up, which a million lines would otherwise pay a million times.
 */
const ROWS_PER_STATEMENT = 64;

/** Sums of (account, month) net atoms and line counts, added up exactly in memory. */
export class MonthTotals {
  // By account key, then month: numbers as keys, so adding a line builds no key string.
  private readonly map = new Map<
    number,
    Map<string, { net: number; big: bigint; count: number }>
  >();

  add(account: number, month: string, net: number): void {
    let months = this.map.get(account);
    if (!months) this.map.set(account, (months = new Map()));
    const cur = months.get(month);
    if (!cur) months.set(month, { net, big: 0n, count: 1 });
    else {
      cur.count++;
      // A number holds the sum exactly while it stays below 2^53; beyond, it moves to the bigint.
      const sum = cur.net + net;
      if (Number.isSafeInteger(sum)) cur.net = sum;
      else {
        cur.big += BigInt(cur.net) + BigInt(net);
        cur.net = 0;
      }
    }
  }

  *entries(): IterableIterator<[number, string, bigint, number]> {
    for (const [account, months] of this.map)
      for (const [month, t] of months) yield [account, month, t.big + BigInt(t.net), t.count];
  }

  /** One account-month's sum and count, or undefined when nothing was added to it. */
  get(account: number, month: string): [bigint, number] | undefined {
    const t = this.map.get(account)?.get(month);
    return t && [t.big + BigInt(t.net), t.count];
  }

  clear(): void {
    this.map.clear();
  }
}

/** Runs one write statement with its parameters, on this connection or on a writer thread's. */
export type RunWrite = (sql: string, params: unknown[]) => void;

/** RunWrite on the ledger's own connection, with its cached statements. */
export const runOn =
  (db: Db): RunWrite =>
  (sql, params) =>
    db.prep(sql).run(...params);

/** Rows of one table waiting to be inserted, flushed as multi-row statements. */
class PendingRows {
  private values: unknown[] = [];
  private rows = 0;
  private readonly sql: string[] = [];

  constructor(
    private readonly run: RunWrite,
    private readonly table: string,
    private readonly columns: readonly string[],
  ) {}

  /** Where the caller pushes one row's values, in column order, before calling `added`. */
  get buffer(): unknown[] {
    return this.values;
  }

  added(): void {
    this.rows++;
  }

  get full(): boolean {
    return this.rows >= ROWS_PER_STATEMENT;
  }

  flush(): void {
    const width = this.columns.length;
    for (let row = 0; row < this.rows; row += ROWS_PER_STATEMENT) {
      const n = Math.min(ROWS_PER_STATEMENT, this.rows - row);
      this.run(
        this.insert(n),
        n === this.rows ? this.values : this.values.slice(row * width, (row + n) * width),
      );
    }
    this.values = [];
    this.rows = 0;
  }

  /** The INSERT for `rows` rows; the same string each time, so statement caches find it at once. */
  private insert(rows: number): string {
    let sql = this.sql[rows];
    if (sql === undefined) {
      const one = `(${this.columns.map(() => '?').join(', ')})`;
      sql = this.sql[rows] =
        `INSERT INTO ${this.table} (${this.columns.join(', ')}) VALUES ${Array(rows).fill(one).join(', ')}`;
    }
    return sql;
  }
}

/** Where a writer starts: the ledger's largest sequence number, and its JE numbering. */
export interface WriterStart {
  lastSeq: number;
  numbering: JeNumbering;
}

/**
 * The largest sequence number committed, and the JE numbering as it stands: the largest number that
 * counts, and the numbers above it that entries took without counting. A writer that holds the write
 * lock numbers on from them.
 */
export function writerStart(db: Db): WriterStart {
  const maxJe = db.prep(`SELECT MAX(je_seq) FROM journal_entries`).pluck().safeIntegers(true);
  const last = seqOf(maxJe.get() as bigint | null);
  const above = db
    .prep(`SELECT je_seq_uncounted FROM journal_entries WHERE je_seq_uncounted > ?`)
    .pluck()
    .safeIntegers(true)
    .all(last) as bigint[];
  return {
    lastSeq: (db.prep(`SELECT MAX(seq) FROM journal_entries`).pluck().get() as number | null) ?? 0,
    numbering: new JeNumbering(last, above.map(seqOf)),
  };
}

const BUMP_TOTALS = `INSERT INTO account_month_totals
    (account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (account_key, month) DO UPDATE SET net_atoms = net_atoms + excluded.net_atoms,
    line_count = line_count + excluded.line_count, adj_net_atoms = adj_net_atoms + excluded.adj_net_atoms,
    adj_line_count = adj_line_count + excluded.adj_line_count`;

/**
 * Writes valid entries, their lines and the derived monthly totals inside the caller's write
 * transaction. Sequence numbers and JE numbers are assigned here, from the ledger's maxima when the
 * transaction took the write lock (no other writer can take them meanwhile). Rows are buffered;
 * `flush` writes what is pending and must run before the transaction commits.
 */
export class EntryWriter {
  private readonly entries: PendingRows;
  private readonly lines: PendingRows;
  private readonly totals = new MonthTotals();
  /** The part of the totals that adjusting entries make. */
  private readonly adjusting = new MonthTotals();
  private lastSeq: number;
  private readonly numbering: JeNumbering;

  constructor(
    private readonly run: RunWrite,
    start: WriterStart,
    private readonly now: () => Date,
  ) {
    this.entries = new PendingRows(run, 'journal_entries', ENTRY_COLUMNS);
    this.lines = new PendingRows(run, 'journal_lines', LINE_COLUMNS);
    this.lastSeq = start.lastSeq;
    this.numbering = start.numbering;
  }

  private stampMs = -1;
  private stampText = '';

  /** The time of writing as ISO text, formatted once per millisecond. */
  private stamp(): string {
    const now = this.now();
    const ms = now.getTime();
    if (ms !== this.stampMs) [this.stampMs, this.stampText] = [ms, now.toISOString()];
    return this.stampText;
  }

  /** Numbers given and held so far (see JeNumbering). */
  get numbers(): JeNumbering {
    return this.numbering;
  }

  write(entry: ValidEntry, meta: EntryMeta): Inserted {
    const ts = this.stamp();
    const seq = ++this.lastSeq;
    const id = newId('je');
    const n = this.numbering.assign(entry.je_number, entry.je_seq, meta.source === 'csv_import');
    this.entries.buffer.push(
      seq,
      id,
      n.je_number,
      n.counted,
      n.uncounted,
      entry.entry_date,
      entry.currency,
      entry.memo,
      meta.source,
      'posted',
      entry.is_adjusting ? 1 : 0,
      entry.manual_entry_reason,
      entry.total_atoms,
      entry.lines.length,
      meta.originalSeq,
      meta.fingerprint,
      ts,
      ts,
    );
    this.entries.added();
    const month = entry.entry_date.slice(0, 7);
    const lines = entry.lines;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      this.lines.buffer.push(
        seq,
        i + 1,
        l.account.key,
        l.line_type,
        l.amount_atoms,
        l.memo,
        l.counterparty?.id ?? null,
        entry.entry_date,
      );
      this.lines.added();
      const net = l.line_type === 'debit' ? l.amount_atoms : -l.amount_atoms;
      this.totals.add(l.account.key, month, net);
      if (entry.is_adjusting) this.adjusting.add(l.account.key, month, net);
    }
    if (this.entries.full || this.lines.full) this.flushRows();
    return { seq, id, je_number: n.je_number, ts };
  }

  /** Writes the pending rows; entries first, as lines reference them. */
  private flushRows(): void {
    this.entries.flush();
    this.lines.flush();
  }

  /** Writes every pending row and adds the accumulated monthly totals to the derived table. */
  flush(): void {
    this.flushRows();
    for (const [account, month, net, count] of this.totals.entries()) {
      const adj = this.adjusting.get(account, month);
      this.run(BUMP_TOTALS, [account, month, net, count, adj?.[0] ?? 0, adj?.[1] ?? 0]);
    }
    this.totals.clear();
    this.adjusting.clear();
  }
}
