import { randomBytes } from 'node:crypto';
import type { ValidEntry } from '../../domain/entry.js';
import { seqOf, type NumberedEntry } from '../../domain/jeNumber.js';
import { addEntryTotals, MonthTotals } from '../../domain/totals.js';
import type { EntryMeta, EntrySink, Inserted, NumberingFacts } from '../store.js';
import type { Db } from './db.js';

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

/**
 * The JE numbering as it stands: the largest number that counts, and the numbers above it that
 * entries took without counting. A writer that holds the write lock numbers on from them.
 */
export function numberingFacts(db: Db): NumberingFacts {
  const maxJe = db.prep(`SELECT MAX(je_seq) FROM journal_entries`).pluck().safeIntegers(true);
  const next = db
    .prep(`SELECT MIN(je_seq_uncounted) FROM journal_entries WHERE je_seq_uncounted >= ?`)
    .pluck()
    .safeIntegers(true);
  return {
    last: seqOf(maxJe.get() as bigint | null),
    nextTaken: (from) => {
      const n = next.get(from) as bigint | null;
      return n === null ? null : seqOf(n);
    },
  };
}

/** The largest storage sequence number committed; a writer that holds the write lock goes on from it. */
export function lastSeq(db: Db): number {
  return (db.prep(`SELECT MAX(seq) FROM journal_entries`).pluck().get() as number | null) ?? 0;
}

const BUMP_TOTALS = `INSERT INTO account_month_totals
    (account_key, month, net_atoms, line_count, adj_net_atoms, adj_line_count) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (account_key, month) DO UPDATE SET net_atoms = net_atoms + excluded.net_atoms,
    line_count = line_count + excluded.line_count, adj_net_atoms = adj_net_atoms + excluded.adj_net_atoms,
    adj_line_count = adj_line_count + excluded.adj_line_count`;

/**
 * Writes checked and numbered entries, their lines and the monthly totals they add (the domain's
 * MonthTotals) inside the caller's write transaction, on this connection or a writer thread's.
 * Sequence numbers go on from the ledger's largest when the transaction took the write lock. Rows
 * are buffered into multi-row statements; `flush` writes what is pending (then `afterFlush`, with
 * the last sequence number and its entry's lines) and must run before the transaction commits.
 */
export class EntryWriter implements EntrySink {
  private readonly entries: PendingRows;
  private readonly lines: PendingRows;
  private readonly totals = new MonthTotals();
  /** The part of the totals that adjusting entries make. */
  private readonly adjusting = new MonthTotals();
  private lastLines = 0;

  constructor(
    private readonly run: RunWrite,
    private lastSeq: number,
    private readonly now: () => Date,
    private readonly afterFlush: (lastSeq: number, lines: number) => void = () => {},
  ) {
    this.entries = new PendingRows(run, 'journal_entries', ENTRY_COLUMNS);
    this.lines = new PendingRows(run, 'journal_lines', LINE_COLUMNS);
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

  write(entry: ValidEntry, n: NumberedEntry, meta: EntryMeta): Inserted {
    const ts = this.stamp();
    const seq = ++this.lastSeq;
    const id = newId('je');
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
    }
    addEntryTotals(this.totals, this.adjusting, entry);
    this.lastLines = lines.length;
    if (this.entries.full || this.lines.full) this.flushRows();
    return { seq, id, je_number: n.je_number, ts };
  }

  renumber(from: string, to: NumberedEntry): void {
    this.flushRows();
    this.run(
      `UPDATE journal_entries SET je_number = ?, je_seq = ?, je_seq_uncounted = ? WHERE je_number = ?`,
      [to.je_number, to.counted, to.uncounted, from],
    );
  }

  /** Writes the pending rows; entries first, as lines reference them. */
  private flushRows(): void {
    this.entries.flush();
    this.lines.flush();
  }

  /** Writes every pending row and adds the accumulated monthly totals to the derived table. */
  async flush(): Promise<void> {
    this.flushRows();
    for (const [account, month, net, count] of this.totals.entries()) {
      const adj = this.adjusting.get(account, month);
      this.run(BUMP_TOTALS, [account, month, net, count, adj?.[0] ?? 0, adj?.[1] ?? 0]);
    }
    this.totals.clear();
    this.adjusting.clear();
    this.afterFlush(this.lastSeq, this.lastLines);
  }
}
