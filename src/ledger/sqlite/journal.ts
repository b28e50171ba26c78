import {
  journalEntryOf,
  linesOfValid,
  type JournalEntry,
  type ValidationContext,
  type ValidEntry,
} from '../../domain/entry.js';
import { entryInvalid, errors } from '../../domain/errors.js';
import {
  IDEMPOTENCY_WINDOW_MS,
  idempotencyKeyProblem,
  requestHash,
} from '../../domain/idempotency.js';
import { reversalDateProblem, validateEntry } from '../../domain/validation.js';
import type {
  EntryFilter,
  ImportBatch,
  ImportOptions,
  JournalOps,
  PostOptions,
  ReverseOptions,
} from '../port.js';
import type { SqliteChart } from './chart.js';
import type { Db } from './db.js';
import { EntryReader } from './entries.js';
import { indexTailIfLong } from './glIndex.js';
import { GroupCommit } from './groupCommit.js';
import { rebuildRunning } from './rebuild.js';
import { EntryWriter, runOn, writerStart, type Inserted, type RunWrite } from './writer.js';

/** Imports of at least this many bytes (or of unknown size) write on a thread of their own. */
const THREAD_MIN_BYTES = 1024 * 1024;

/** What is posted and read back: entries, reversals, batch imports. */
export class SqliteJournal implements JournalOps {
  /** Posts and reversals requested together share a transaction (see GroupCommit). */
  private readonly commits: GroupCommit;
  private readonly reader: EntryReader;

  constructor(
    private readonly db: Db,
    private readonly chart: SqliteChart,
    commits: GroupCommit,
  ) {
    this.commits = commits;
    this.reader = new EntryReader(db);
  }

  async post(body: unknown, options: PostOptions): Promise<JournalEntry> {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyRefused(keyProblem);
    if (options.dryRun) return this.db.read(() => this.postHere(body, options));
    return this.commits.run(() => this.postHere(body, options));
  }

  /** Posts inside the caller's transaction (a write one, or a read one for a dry run). */
  private postHere(body: unknown, options: PostOptions): JournalEntry {
    const hash = requestHash('POST /v1/journal-entries', body);
    const ctx = this.gate(options.idempotencyKey, hash);
    const { entry, problems } = validateEntry(body, ctx);
    if (!entry) throw entryInvalid(problems);
    const source = options.source ?? 'manual_api';
    if (options.dryRun) return this.answer(entry, source, null, null);
    const inserted = this.writeOne(entry, { source, fingerprint: null, originalSeq: null });
    this.recordKey(options.idempotencyKey, hash, inserted.id);
    return this.answer(entry, source, inserted, null);
  }

  async reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry> {
    const keyProblem = idempotencyKeyProblem(options.idempotencyKey);
    if (keyProblem) throw errors.idempotencyKeyRefused(keyProblem);
    if (options.dryRun) return this.db.read(() => this.reverseHere(idOrNumber, options));
    return this.commits.run(() => this.reverseHere(idOrNumber, options));
  }

  private reverseHere(idOrNumber: string, options: ReverseOptions): JournalEntry {
    const original = this.reader.find(idOrNumber);
    const endpoint = `POST /v1/journal-entries/${original.id}/reverse`;
    const hash = requestHash(endpoint, { entry_date: options.entryDate ?? null });
    const ctx = this.gate(options.idempotencyKey, hash);
    if (original.reversed_by) {
      const by = this.jeNumbersOf(original.reversed_by.split(','));
      const message = `${original.je_number} is already reversed by ${by.join(', ')}`;
      throw entryInvalid([{ path: 'id', reason: 'already_reversed', message }]);
    }
    const date = options.entryDate ?? original.entry_date;
    const tooEarly = reversalDateProblem(original, date);
    if (tooEarly) throw entryInvalid([tooEarly]);
    const { entry, problems } = validateEntry(this.mirror(original.seq, date, original), ctx);
    if (!entry) throw entryInvalid(problems);
    const link = { id: original.id, date: original.entry_date };
    if (options.dryRun) return this.answer(entry, 'manual_api', null, link);
    const inserted = this.writeOne(entry, {
      source: 'manual_api',
      fingerprint: null,
      originalSeq: original.seq,
    });
    this.db
      .prep(`UPDATE journal_entries SET status = 'reversed', updated_at = ? WHERE seq = ?`)
      .run(this.db.stamp(), original.seq);
    this.recordKey(options.idempotencyKey, hash, inserted.id);
    return this.answer(entry, 'manual_api', inserted, link);
  }

  /** The body of the entry that reverses a stored one: its lines on the other side. */
  private mirror(
    seq: number,
    date: string,
    o: { je_number: string; currency: string; is_adjusting: number },
  ) {
    const lines = this.db
      .prep(
        `SELECT a.external_id, l.line_type, l.amount_atoms, l.memo, c.counterparty_type, c.external_id AS cp
         FROM journal_lines l JOIN accounts a ON a.key = l.account_key
         LEFT JOIN counterparties c ON c.id = l.counterparty_id WHERE l.entry_seq = ? ORDER BY l.line_no`,
      )
      .all(seq) as {
      external_id: string;
      line_type: string;
      amount_atoms: number;
      memo: string | null;
      counterparty_type: string | null;
      cp: string | null;
    }[];
    return {
      entry_date: date,
      currency: o.currency,
      memo: `Reversal of ${o.je_number}`,
      is_adjusting: o.is_adjusting === 1,
      lines: lines.map((l) => ({
        gl_account_id: l.external_id,
        line_type: l.line_type === 'debit' ? 'credit' : 'debit',
        amount_atoms: l.amount_atoms,
        ...(l.memo !== null ? { memo: l.memo } : {}),
        ...(l.counterparty_type !== null
          ? { counterparty_type: l.counterparty_type, counterparty_external_id: l.cp }
          : {}),
      })),
    };
  }

  private jeNumbersOf(ids: string[]): string[] {
    const stmt = this.db.prep(`SELECT je_number FROM journal_entries WHERE id = ?`).pluck();
    return ids.map((id) => (stmt.get(id) as string | undefined) ?? id);
  }

  /** The checks every write of an entry runs first, in the order decisions.md gives. */
  private gate(idempotencyKey: string, hash: string): ValidationContext {
    const ctx = this.chart.validationContext();
    const entity = this.db.entity();
    if (!entity.books_start) throw errors.noBooksStart();
    if (rebuildRunning(entity)) throw errors.rebuilding(1);
    const used = this.db
      .prep(
        `SELECT k.request_hash, k.journal_entry_id, k.created_at_ms, e.je_number
         FROM idempotency_keys k LEFT JOIN journal_entries e ON e.id = k.journal_entry_id WHERE k.key = ?`,
      )
      .get(idempotencyKey) as
      | {
          request_hash: string;
          journal_entry_id: string;
          created_at_ms: number;
          je_number: string | null;
        }
      | undefined;
    if (used && this.db.now().getTime() - used.created_at_ms < IDEMPOTENCY_WINDOW_MS) {
      const same = used.request_hash === hash;
      const existing = {
        id: used.journal_entry_id,
        je_number: used.je_number ?? used.journal_entry_id,
      };
      throw errors.idempotencyKeyUsed(existing, same);
    }
    return ctx;
  }

  private recordKey(key: string, hash: string, id: string): void {
    this.db
      .prep(
        `INSERT INTO idempotency_keys (key, request_hash, journal_entry_id, created_at_ms) VALUES (?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash,
           journal_entry_id = excluded.journal_entry_id, created_at_ms = excluded.created_at_ms`,
      )
      .run(key, hash, id, this.db.now().getTime());
  }

  /** Writes one valid entry inside a write transaction. */
  private writeOne(
    entry: ValidEntry,
    meta: { source: string; fingerprint: null; originalSeq: number | null },
  ): Inserted {
    const writer = this.writer();
    const inserted = writer.write(entry, meta);
    writer.flush();
    indexTailIfLong(this.db, inserted.seq, entry.lines.length);
    return inserted;
  }

  /** A writer of entries on this connection (or a thread's); call inside a write transaction. */
  writer(run: RunWrite = runOn(this.db)): EntryWriter {
    return new EntryWriter(run, writerStart(this.db), this.db.now);
  }

  /**
   * The entry as answered: as stored when `inserted` is given (the same fields `je show` reads back),
   * or as it would post (id empty, status draft) for a dry run.
   */
  private answer(
    entry: ValidEntry,
    source: string,
    inserted: Inserted | null,
    original: { id: string; date: string } | null,
  ): JournalEntry {
    const ts = inserted?.ts ?? this.db.stamp();
    const jeNumber =
      inserted?.je_number ?? entry.je_number ?? writerStart(this.db).numbering.peek();
    return journalEntryOf(
      {
        id: inserted?.id ?? '',
        seq: inserted?.seq ?? null,
        je_number: jeNumber,
        entry_date: entry.entry_date,
        currency: entry.currency,
        memo: entry.memo,
        source,
        status: inserted ? 'posted' : 'draft',
        is_adjusting: entry.is_adjusting,
        manual_entry_reason: entry.manual_entry_reason,
        total_atoms: entry.total_atoms,
        created_at: ts,
        updated_at: ts,
        original,
        reversed_by: [],
      },
      linesOfValid(entry),
    );
  }

  async get(idOrNumber: string): Promise<JournalEntry> {
    return this.reader.get(idOrNumber);
  }

  async *list(filter: EntryFilter): AsyncGenerator<JournalEntry> {
    yield* this.reader.list(filter);
  }

  /**
   * Starts an all-or-nothing import: one IMMEDIATE transaction, begun when the first entry is ready
   * to be written and held while the caller streams the rest in (on a writer thread for a large
   * batch, so that SQLite works while the next entries are parsed); nothing is visible to others
   * until commit, and a killed process leaves none of it.
   */
  async beginImport(options: ImportOptions): Promise<ImportBatch> {
    const entity = this.db.entity();
    if (!entity.books_start) throw errors.noBooksStart();
    if (rebuildRunning(entity)) throw errors.rebuilding(1);
    const large = options.sizeHint === null || (options.sizeHint ?? 0) >= THREAD_MIN_BYTES;
    // Loaded for imports only: reports and posts need neither the writer thread nor the batch.
    const [{ writesHere, writesOnThread }, { ImportBatch: SqliteImportBatch }] = await Promise.all([
      import('./batchWrites.js'),
      import('./importBatch.js'),
    ]);
    const open = async () => {
      const gone = this.db.stillHere();
      if (gone) throw gone;
      const thread = large ? await writesOnThread(this.db.location) : null;
      const writes = thread ?? writesHere(this.db.sqlite, (sql) => this.db.prep(sql));
      // The rebuild mark is read again under the lock: a rebuild may have begun since.
      if (rebuildRunning(this.db.entity())) {
        await writes.rollback();
        throw errors.rebuilding(1);
      }
      return writes;
    };
    return new SqliteImportBatch(
      this.db,
      (run) => this.writer(run),
      open,
      this.chart.validationContext(),
      options,
    );
  }
}
