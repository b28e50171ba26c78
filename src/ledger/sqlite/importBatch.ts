import type Database from 'better-sqlite3';
import type { ValidationContext } from '../../domain/entry.js';
import { BatchCheck } from '../batchCheck.js';
import type { BatchResult, ImportBatch as ImportBatchPort } from '../port.js';
import type { BatchWrites } from './batchWrites.js';
import type { Db } from './db.js';
import type { EntryWriter, RunWrite } from './writer.js';

/**
 * One all-or-nothing import into the local ledger, inside the IMMEDIATE transaction that
 * the journal's beginImport opened (on its connection or a writer thread's): entries are validated
 * and written as they come while the batch is clean; the first invalid entry stops the writing
 * (validation goes on, to list every problem), and commit makes the batch visible only when nothing
 * was wrong. Look-ups read the ledger as committed, which the write lock keeps as it was when the
 * batch began; the batch's own entries never need them (fingerprints and numbers within the file
 * are checked in memory).
 */
export class ImportBatch implements ImportBatchPort {
  private readonly check: BatchCheck;
  private readonly writer: EntryWriter;
  private done = false;
  private readonly fingerprintsOn: Database.Statement;
  private fpDate: string | null = null;
  private fpSet = new Set<string>();

  constructor(
    db: Db,
    writer: (run: RunWrite) => EntryWriter,
    private readonly writes: BatchWrites,
    ctx: ValidationContext,
    private readonly options: { dryRun: boolean; allowDuplicates: boolean },
  ) {
    this.check = new BatchCheck(ctx);
    this.writer = writer(writes.run);
    this.fingerprintsOn = db
      .prep(`SELECT fingerprint FROM journal_entries WHERE fingerprint >= ? AND fingerprint < ?`)
      .pluck();
  }

  /** Validates one entry and, while the batch is clean and not a dry run, writes it. */
  add(body: unknown, fingerprint: string, hasRowProblems: boolean): BatchResult {
    const fpTaken = this.fingerprintTaken(fingerprint);
    if (fpTaken && !this.options.allowDuplicates) return { status: 'skipped' };
    const checked = this.check.entry(body, hasRowProblems);
    if ('problems' in checked) return { status: 'invalid', problems: checked.problems };
    if (this.check.failed || this.options.dryRun) return { status: 'would_post' };
    // A duplicate posted on purpose (--allow-duplicates) carries no fingerprint: the first one keeps it.
    this.writer.write(checked.entry, {
      source: 'csv_import',
      fingerprint: fpTaken ? null : fingerprint,
      originalSeq: null,
    });
    return { status: 'posted' };
  }

  /**
   * Fingerprints start with the entry's date: the ledger's fingerprints of one date are read at once,
   * so a date-ordered file asks once per date instead of once per entry.
   */
  private fingerprintTaken(fp: string): boolean {
    const date = fp.slice(0, fp.indexOf(':') + 1);
    if (date !== this.fpDate) {
      this.fpDate = date;
      this.fpSet = new Set(this.fingerprintsOn.all(date, `${date.slice(0, -1)};`) as string[]);
    }
    return this.fpSet.has(fp);
  }

  ready(): Promise<void> {
    return this.writes.ready();
  }

  /** Makes the batch visible (or, for a dry run or a failed batch, discards it). */
  async commit(): Promise<{ alreadyPosted: number[] }> {
    if (this.done) return { alreadyPosted: [] };
    if (this.check.failed || this.options.dryRun) {
      await this.rollback();
      return { alreadyPosted: [] };
    }
    this.done = true;
    this.writer.flush();
    await this.writes.commit();
    return { alreadyPosted: [] };
  }

  async rollback(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.writes.rollback();
  }
}
