import type { ValidEntry } from '../../domain/entry.js';
import type { NumberedEntry } from '../../domain/jeNumber.js';
import { addEntryTotals, MonthTotals } from '../../domain/totals.js';
import { tagsText } from '../../domain/tags.js';
import { TagTotals } from '../../domain/tagTotals.js';
import type { EntryMeta, EntrySink, Inserted } from './store.js';
import { newId } from '../ids.js';

/** The columns of a journal entry's row, as EntryWriter and a restore write them. */
export const ENTRY_COLUMNS = [
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
  'tags',
] as const;
/** The columns of a journal line's row. */
export const LINE_COLUMNS = [
  'entry_seq',
  'line_no',
  'account_key',
  'line_type',
  'amount_atoms',
  'memo',
  'counterparty_id',
  'entry_date',
  'fx_currency',
  'fx_amount_atoms',
  'fx_rate',
  'system',
  'tags',
] as const;

const positions = <C extends string>(columns: readonly C[]) =>
  Object.fromEntries(columns.map((c, i) => [c, i])) as Record<C, number>;
/** Each column's place in a row of ENTRY_COLUMNS and of LINE_COLUMNS, for readers of written rows. */
export const ENTRY_AT = positions(ENTRY_COLUMNS);
export const LINE_AT = positions(LINE_COLUMNS);

/**
 * Runs one write statement with its parameters (`?` for each): at once on a ledger file's connection
 * or a writer thread's, or queued on a database connection (a promise, awaited by flush).
 */
export type RunWrite = (sql: string, params: unknown[]) => unknown;

/**
 * How a store's tables take an entry's rows: many rows of a table in one statement, a renumbering,
 * the totals added. Each may return a promise (a database's queued write), awaited by flush.
 */
export interface RowTarget {
  /** A value every row carries first (a database's entity_id); none for a file. */
  scope?: { column: string; value: unknown };
  /** Inserts `rows` rows (values row after row, in `columns` order), at most `perStatement` at once. */
  insert(table: string, columns: readonly string[], values: unknown[], rows: number): unknown;
  perStatement: number;
  /** Gives the entry with JE number `from` the number `to`. */
  renumber(from: string, to: NumberedEntry): unknown;
  /** Gives the entry with JE number `jeNumber` another memo. */
  setMemo(jeNumber: string, memo: string): unknown;
  /** Adds totals: rows of (scope, account_key, month, net, lines, adjusting net, adjusting lines). */
  addTotals(rows: unknown[][]): unknown;
  /**
   * Adds the totals by tag of what was written: from rows the writer sums (scope, account_key, month,
   * tag_key, tag_value, net, lines, adjusting net, adjusting lines), or as the store sums the lines
   * of the entries stored after `after` up to `through` (a statement its database runs).
   */
  tagTotals:
    { rows(rows: unknown[][]): unknown } | { since(after: number, through: number): unknown };
}

/** Rows of one table waiting to be inserted, flushed as multi-row statements. */
class PendingRows {
  private values: unknown[] = [];
  private rows = 0;

  constructor(
    private readonly target: RowTarget,
    private readonly queue: (r: unknown) => void,
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
    return this.rows >= this.target.perStatement;
  }

  flush(): void {
    const width = this.columns.length;
    const per = this.target.perStatement;
    for (let row = 0; row < this.rows; row += per) {
      const n = Math.min(per, this.rows - row);
      const values =
        n === this.rows ? this.values : this.values.slice(row * width, (row + n) * width);
      this.queue(this.target.insert(this.table, this.columns, values, n));
    }
    this.values = [];
    this.rows = 0;
  }
}

/**
 * The derived totals entries add, summed in memory: by account and month (and the adjusting part),
 * and by tag where the store takes them as rows. Written through a RowTarget, then emptied.
 */
export class EntryTotals {
  private readonly totals = new MonthTotals();
  private readonly adjusting = new MonthTotals();
  private readonly tagged = new TagTotals();
  /** Whether an entry added since the last write has a tagged line. */
  private anyTags = false;

  add(entry: ValidEntry, byTag: boolean): void {
    addEntryTotals(this.totals, this.adjusting, entry);
    if (!this.anyTags) this.anyTags = entry.lines.some((l) => tagsText(l.tags) !== null);
    if (this.anyTags && byTag) this.tagged.add(entry);
  }

  /**
   * Queues the writes of what was added (each row led by `scoped`), the totals by tag of the
   * entries stored after `after` up to `through` where the store sums them itself; then empties.
   */
  write(
    target: RowTarget,
    scoped: unknown[],
    queue: (r: unknown) => void,
    stored?: { after: number; through: number },
  ): void {
    const rows: unknown[][] = [];
    for (const [account, month, net, count] of this.totals.entries()) {
      const adj = this.adjusting.get(account, month);
      rows.push([...scoped, account, month, net, count, adj?.[0] ?? 0, adj?.[1] ?? 0]);
    }
    if (rows.length) queue(target.addTotals(rows));
    const tags = target.tagTotals;
    if (this.anyTags) {
      if (!('since' in tags)) queue(tags.rows(this.tagged.rows().map((r) => [...scoped, ...r])));
      else if (stored) queue(tags.since(stored.after, stored.through));
      else throw new Error('totals by tag summed by the store need the entries they cover');
    }
    this.clear();
  }

  clear(): void {
    this.anyTags = false;
    this.totals.clear();
    this.adjusting.clear();
    this.tagged.clear();
  }
}

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
  /** What the entries written since the last flush add to the totals (null: the caller sums them). */
  private readonly sums: EntryTotals | null;
  /** The last seq the last flush covered. */
  private flushedSeq: number;
  private lastLines = 0;

  private readonly scoped: unknown[];
  /** Writes queued on a database connection, awaited by flush. */
  private queued: Promise<unknown>[] = [];

  constructor(
    private readonly target: RowTarget,
    private lastSeq: number,
    private readonly now: () => Date,
    private readonly afterFlush: (lastSeq: number, lines: number) => void = () => {},
    /** Whether this writer adds its entries' totals; a group commit may sum them for all its writes. */
    totals = true,
  ) {
    this.sums = totals ? new EntryTotals() : null;
    this.flushedSeq = lastSeq;
    const scope = target.scope ? [target.scope.column] : [];
    this.scoped = target.scope ? [target.scope.value] : [];
    const queue = (r: unknown) => this.queue(r);
    this.entries = new PendingRows(target, queue, 'journal_entries', [...scope, ...ENTRY_COLUMNS]);
    this.lines = new PendingRows(target, queue, 'journal_lines', [...scope, ...LINE_COLUMNS]);
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
      ...this.scoped,
      seq,
      id,
      n.je_number,
      n.counted,
      n.uncounted,
      entry.entry_date,
      entry.currency,
      entry.memo,
      meta.source,
      meta.status ?? 'posted',
      entry.is_adjusting ? 1 : 0,
      entry.manual_entry_reason,
      entry.total_atoms,
      entry.lines.length,
      meta.originalSeq,
      meta.fingerprint,
      ts,
      ts,
      tagsText(entry.tags),
    );
    this.entries.added();
    const lines = entry.lines;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      this.lines.buffer.push(
        ...this.scoped,
        seq,
        i + 1,
        l.account.key,
        l.line_type,
        l.amount_atoms,
        l.memo,
        l.counterparty?.id ?? null,
        entry.entry_date,
        l.fx?.currency ?? null,
        l.fx?.amount_atoms ?? null,
        l.fx?.rate ?? null,
        l.system ?? null,
        tagsText(l.tags),
      );
      this.lines.added();
    }
    this.sums?.add(entry, 'rows' in this.target.tagTotals);
    this.lastLines = lines.length;
    if (this.entries.full || this.lines.full) this.flushRows();
    return { seq, id, je_number: n.je_number, ts };
  }

  renumber(from: string, to: NumberedEntry): void {
    this.flushRows();
    this.queue(this.target.renumber(from, to));
  }

  setMemo(jeNumber: string, memo: string): void {
    this.flushRows();
    this.queue(this.target.setMemo(jeNumber, memo));
  }

  /** Writes the pending rows; entries first, as lines reference them. */
  private flushRows(): void {
    this.entries.flush();
    this.lines.flush();
  }

  /** Keeps a write a database has queued, to await it; caught here and raised where detach()'s promise is awaited. */
  private queue(r: unknown): void {
    if (r instanceof Promise) {
      r.catch(() => {});
      this.queued.push(r);
    }
  }

  /**
   * The writes queued so far, as one promise, no longer awaited by this writer: the caller awaits it
   * when it wants them done (a database's import keeps one window of writes in flight while it reads
   * the next entries).
   */
  detach(): Promise<void> {
    const queued = this.queued;
    this.queued = [];
    const done = Promise.all(queued).then(() => {});
    done.catch(() => {});
    return done;
  }

  /** Writes every pending row and adds the accumulated monthly totals to the derived table. */
  async flush(): Promise<void> {
    this.flushRows();
    const stored = { after: this.flushedSeq, through: this.lastSeq };
    this.sums?.write(this.target, this.scoped, (r) => this.queue(r), stored);
    this.flushedSeq = this.lastSeq;
    await this.detach();
    this.afterFlush(this.lastSeq, this.lastLines);
  }
}
