import { randomUUID } from 'node:crypto';
import type { Counterparty, Entity, GlAccount } from '../../domain/accounts.js';
import { BooksError, isBooksError } from '../../domain/errors.js';
import { parseJsonBody, toJson } from '../../domain/json.js';
import { contextFromChart } from '../../domain/validation.js';
import { BatchCheck } from '../journal/batchCheck.js';
import type { ValidationContext } from '../../domain/entry.js';
import type { BatchResult, ImportBatch, ImportEntry, ImportOptions, JournalOps } from '../port.js';
import type { PendingReceipt, Receipts } from './receipts.js';

/** Within this time of sending, a request is sent again to learn its answer (the service keeps a key an hour). */
const ASK_WITHIN_MS = 50 * 60 * 1000;

/**
 * A batch import to a remote service. The API posts one entry at a time, so all-or-nothing is not
 * possible; instead every entry is validated against the service's chart before the first posts,
 * each entry posts under its fingerprint as idempotency key, and the receipt store remembers what
 * was sent and what posted: a re-run after a failure or a kill settles what is uncertain first, and
 * then posts exactly the rest.
 */
export class RemoteImportBatch implements ImportBatch {
  private readonly queue: { body: unknown; fingerprint: string; row: number }[] = [];
  private readonly check = new BatchCheck();
  private readonly ctx: ValidationContext;

  constructor(
    private readonly journal: Pick<JournalOps, 'post'>,
    private readonly location: string,
    /** Whose receipts (receipts.ts receiptService): the service and the key it posts with. */
    private readonly service: string,
    entity: Entity,
    accounts: GlAccount[],
    counterparties: Counterparty[] | null,
    private readonly receipts: Receipts,
    private readonly options: ImportOptions,
  ) {
    this.ctx = this.check.context(contextFromChart(entity, accounts, counterparties));
    this.file = options.file ?? 'input';
  }

  private readonly file: string;
  /** Fingerprints that the settling of an earlier run's requests posted in this run. */
  private readonly postedNow = new Set<string>();

  async add(chunk: ImportEntry[]): Promise<BatchResult[]> {
    return chunk.map((e) => this.one(e.body, e.fingerprint, e.hasRowProblems, e.row));
  }

  private one(
    body: unknown,
    fingerprint: string,
    hasRowProblems: boolean,
    row: number,
  ): BatchResult {
    if (!this.options.allowDuplicates && this.receipts.has(this.service, fingerprint))
      return { status: 'skipped' };
    const checked = this.check.entry(body, hasRowProblems, this.ctx);
    if ('problems' in checked) return { status: 'invalid', problems: checked.problems };
    this.queue.push({ body, fingerprint, row });
    return { status: 'would_post' };
  }

  async commit(): Promise<{ alreadyPosted: number[] }> {
    const alreadyPosted: number[] = [];
    if (this.check.failed || this.options.dryRun) return { alreadyPosted };
    if (!this.options.allowDuplicates) await this.settle();
    let posted = 0;
    // Entries with the file's own numbers go first: the service numbers the others after them,
    // passing over those numbers, as a local import gives them the file's numbers too.
    const numbered = (e: { body: unknown }) =>
      typeof (e.body as { je_number?: unknown }).je_number === 'string' ? 0 : 1;
    const order = [...this.queue].sort((a, b) => numbered(a) - numbered(b));
    for (const { body, fingerprint, row } of order) {
      // Settled just now: posted by the earlier run, or by its request sent again.
      if (!this.options.allowDuplicates && this.receipts.has(this.service, fingerprint)) {
        if (this.postedNow.has(fingerprint)) posted++;
        else alreadyPosted.push(row);
        continue;
      }
      const outcome = await this.send(body, fingerprint, row);
      if (outcome === 'already') alreadyPosted.push(row);
      else if (outcome === 'posted') posted++;
      else throw this.stopped(outcome, row, posted);
    }
    return { alreadyPosted };
  }

  /**
   * Posts one entry under its fingerprint as idempotency key, recorded as pending before it is sent
   * and as posted when the answer comes. A CAPI34 duplicate means an earlier run posted it.
   */
  private async send(
    body: unknown,
    fingerprint: string,
    row: number,
  ): Promise<'posted' | 'already' | BooksError> {
    // With --allow-duplicates, an entry this machine has posted before goes again as a duplicate (no
    // fingerprint, no receipt); any other keeps its fingerprint and receipt, as a local import keeps
    // them, so that a later run without the flag skips it.
    const keep = !this.options.allowDuplicates || !this.receipts.has(this.service, fingerprint);
    const key = keep ? fingerprint : randomUUID();
    if (keep)
      this.receipts.sending(this.service, {
        fingerprint,
        body: toJson(body, 0),
        sentAtMs: Date.now(),
        file: this.file,
        row,
      });
    try {
      const entry = await this.journal.post(body, {
        idempotencyKey: key,
        source: 'csv_import',
        ...(keep ? { fingerprint } : {}),
      });
      if (keep) this.receipts.record(this.service, fingerprint, entry.id);
      return 'posted';
    } catch (e) {
      const err = isBooksError(e) ? e : new BooksError('unavailable', String(e));
      if (
        keep &&
        err.code === 'CAPI34' &&
        err.errors.some((p) => p.reason === 'duplicate_idempotency_key')
      ) {
        this.receipts.record(
          this.service,
          fingerprint,
          (err.details.existing_journal_entry_id as string | undefined) ?? null,
        );
        // Posted already (the service knows its fingerprint): asked for again, as a duplicate.
        if (this.options.allowDuplicates) return this.send(body, fingerprint, row);
        return 'already';
      }
      // Refused: nothing posted. Unanswered (the service unreachable): it stays pending, to settle.
      if (keep && err.code !== 'unavailable') this.receipts.forget(this.service, fingerprint);
      return err;
    }
  }

  private stopped(err: BooksError, row: number, posted: number): BooksError {
    const before = `${posted} entr${posted === 1 ? 'y' : 'ies'} of this file posted before it`;
    return new BooksError(
      err.code,
      `row ${row}: ${err.message}; ${before}, and a re-run posts the rest`,
      err.errors.map((p) => ({ ...p, file: this.file, row })),
      { ...err.details, posted },
    );
  }

  /**
   * Settles what an earlier run sent without learning the answer (it was killed, or the network
   * failed), before anything else posts. Within the service's hour the request is sent again under
   * the same key: the service then says whether it posted. Past the hour the service cannot tell,
   * and books does not guess: the rows are named, and --settle says what to take them as.
   */
  private async settle(): Promise<void> {
    const uncertain: PendingReceipt[] = [];
    for (const p of this.receipts.pending(this.service)) {
      if (Date.now() - p.sentAtMs < ASK_WITHIN_MS) {
        const parsed = parseJsonBody(p.body);
        const outcome = await this.send(parsed.ok ? parsed.value : p.body, p.fingerprint, p.row);
        if (outcome instanceof BooksError && outcome.code === 'unavailable') throw outcome;
        if (outcome === 'posted') this.postedNow.add(p.fingerprint);
      } else if (this.options.settle === 'posted')
        this.receipts.record(this.service, p.fingerprint, null);
      else if (this.options.settle === 'unposted')
        this.receipts.forget(this.service, p.fingerprint);
      else uncertain.push(p);
    }
    if (uncertain.length === 0) return;
    const rows = uncertain.map((p) => `${p.file}:${p.row}`);
    throw new BooksError(
      'usage',
      `${uncertain.length} entr${uncertain.length === 1 ? 'y was' : 'ies were'} sent to ${this.location} ` +
        'by an earlier ' +
        'import whose answer never came, over an hour ago: the service no longer says whether they posted. ' +
        'Look for them in its journal, then run the import again with --settle posted (they did) or ' +
        '--settle unposted (they did not); nothing was posted',
      uncertain.map((p) => ({
        file: p.file,
        row: p.row,
        path: '',
        reason: 'uncertain_post',
        message: `sent ${new Date(p.sentAtMs).toISOString()}, no answer recorded`,
      })),
      { uncertain_rows: rows },
    );
  }

  async rollback(): Promise<void> {
    this.queue.length = 0;
  }
}
