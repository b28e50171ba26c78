import type Database from 'better-sqlite3';
import type { ValidationContext, ValidEntry } from '../../domain/entry.js';
import { BatchCheck } from '../batchCheck.js';
import type { BatchResult, ImportBatch as ImportBatchPort } from '../port.js';
import type { BatchWrites } from './batchWrites.js';
import type { Db } from './db.js';
import { BooksError } from '../../domain/errors.js';
import { normaliseJeNumber } from '../../domain/jeNumber.js';
import { indexTail } from './glIndex.js';
import type { EntryMeta, EntryWriter, RunWrite } from './writer.js';

/** After this many entries, a file whose dates jump about asks for fingerprints one by one. */
const FINGERPRINT_SAMPLE = 256;

/**
 * One all-or-nothing import into the local ledger. The write lock is held for writing only: the
 * transaction (on the ledger's connection, or a writer thread's for a large batch) is begun when the
 * first entry is ready to be written, and given back at once when an entry turns out invalid
 * (validation goes on, to list every problem, without it). Entries are validated and written as
 * they come while the batch is clean; commit makes the batch visible only when nothing was wrong.
 * The batch's own entries never need the ledger's look-ups (fingerprints and numbers within the file
 * are checked in memory); a number or fingerprint that another writer takes meanwhile is refused by
 * the unique indexes, and the import fails whole.
 */
export class ImportBatch implements ImportBatchPort {
  private readonly check: BatchCheck;
  private writes: BatchWrites | null = null;
  private writer: EntryWriter | null = null;
  /** Valid entries waiting for the write lock (at most one chunk of the file), with their rows. */
  private pending: { entry: ValidEntry; meta: EntryMeta; row: number }[] = [];
  private done = false;
  private readonly fingerprints: Fingerprints;

  constructor(
    db: Db,
    private readonly makeWriter: (run: RunWrite) => EntryWriter,
    private readonly openWrites: () => Promise<BatchWrites>,
    ctx: ValidationContext,
    private readonly options: { dryRun: boolean; allowDuplicates: boolean; file?: string },
  ) {
    this.check = new BatchCheck(ctx);
    this.fingerprints = new Fingerprints(db);
  }

  /** Validates one entry and, while the batch is clean and not a dry run, queues it to be written. */
  add(body: unknown, fingerprint: string, hasRowProblems: boolean, row: number): BatchResult {
    const fpTaken = this.fingerprints.taken(fingerprint);
    if (fpTaken && !this.options.allowDuplicates) return { status: 'skipped' };
    const checked = this.check.entry(body, hasRowProblems);
    if ('problems' in checked) return { status: 'invalid', problems: checked.problems };
    if (this.check.failed || this.options.dryRun) return { status: 'would_post' };
    // A duplicate posted on purpose (--allow-duplicates) carries no fingerprint: the first one keeps it.
    const meta = {
      source: 'csv_import',
      fingerprint: fpTaken ? null : fingerprint,
      originalSeq: null,
    };
    if (this.writer) this.writer.write(checked.entry, meta);
    else this.pending.push({ entry: checked.entry, meta, row });
    return { status: 'posted' };
  }

  /** Takes the write lock for the entries waiting, or gives it back once the batch has failed. */
  async ready(): Promise<void> {
    if (this.check.failed || this.options.dryRun) {
      this.pending = [];
      await this.release();
      return;
    }
    if (this.pending.length > 0 && !this.writes) {
      this.writes = await this.openWrites();
      const writer = (this.writer = this.makeWriter(this.writes.run));
      // An entry may not take a number the batch gave to an earlier one of its own: checked here for
      // the entries that waited for the lock, and by validation for those still to come.
      this.check.given = (n) => {
        const seq = normaliseJeNumber(n);
        return seq.ok && seq.seq !== null && writer.numbers.used(seq.seq);
      };
      for (const { entry, meta, row } of this.pending) {
        if (entry.je_number && this.check.given(entry.je_number)) {
          this.pending = [];
          await this.release();
          throw this.numberGiven(entry.je_number, row);
        }
        writer.write(entry, meta);
      }
      this.pending = [];
    }
    await this.writes?.ready();
  }

  /** The refusal of a file's number that the batch gave to an earlier entry of its own. */
  private numberGiven(number: string, row: number): BooksError {
    const file = this.options.file ?? 'the file';
    const message = `${number} is already used by another entry (this import gave it to an earlier one)`;
    return new BooksError('CAPI33', `${file}: 1 error; nothing was posted`, [
      { file, row, path: 'je_number', reason: 'duplicate_je_number', message, code: 'CAPI33' },
    ]);
  }

  /** Makes the batch visible (or, for a dry run or a failed batch, discards it). */
  async commit(): Promise<{ alreadyPosted: number[] }> {
    if (this.done) return { alreadyPosted: [] };
    await this.ready();
    this.done = true;
    if (!this.writes || this.check.failed || this.options.dryRun) {
      await this.release();
      return { alreadyPosted: [] };
    }
    this.writer!.flush();
    indexTail(this.writes.run);
    await this.writes.commit();
    return { alreadyPosted: [] };
  }

  async rollback(): Promise<void> {
    this.done = true;
    this.pending = [];
    await this.release();
  }

  private async release(): Promise<void> {
    const writes = this.writes;
    this.writes = null;
    this.writer = null;
    await writes?.rollback();
  }
}

/**
 * Which fingerprints the ledger holds already. Fingerprints start with the entry's date: a
 * date-ordered file reads the fingerprints of each date once; a file whose dates jump about would
 * read a date's fingerprints again and again, so after a sample it asks for each one alone.
 */
class Fingerprints {
  private readonly ofDate: Database.Statement;
  private readonly one: Database.Statement;
  private date: string | null = null;
  private set = new Set<string>();
  private asked = 0;
  private switches = 0;
  private oneByOne = false;

  constructor(db: Db) {
    this.ofDate = db
      .prep(`SELECT fingerprint FROM journal_entries WHERE fingerprint >= ? AND fingerprint < ?`)
      .pluck();
    this.one = db.prep(`SELECT 1 FROM journal_entries WHERE fingerprint = ?`).pluck();
  }

  taken(fp: string): boolean {
    if (this.oneByOne) return this.one.get(fp) !== undefined;
    const date = fp.slice(0, fp.indexOf(':') + 1);
    if (date !== this.date) {
      this.date = date;
      this.set = new Set(this.ofDate.all(date, `${date.slice(0, -1)};`) as string[]);
      this.switches++;
    }
    if (++this.asked === FINGERPRINT_SAMPLE && this.switches * 4 > this.asked) this.oneByOne = true;
    return this.set.has(fp);
  }
}
