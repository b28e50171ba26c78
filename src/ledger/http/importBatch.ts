import { randomUUID } from 'node:crypto';
import type { Entity, GlAccount } from '../../domain/accounts.js';
import { BooksError, isBooksError } from '../../domain/errors.js';
import { contextFromChart } from '../../domain/validation.js';
import { BatchCheck } from '../batchCheck.js';
import type { BatchResult, ImportBatch, ImportOptions, JournalOps } from '../port.js';
import type { Receipts } from '../sqlite/receipts.js';

/**
 * A batch import to a remote service. The API posts one entry at a time, so all-or-nothing is not
 * possible; instead every entry is validated against the service's chart before the first posts,
 * each entry posts under its fingerprint as idempotency key, and the receipt store remembers what
 * posted: a re-run after a failure or a kill posts exactly the rest.
 */
export class RemoteImportBatch implements ImportBatch {
  private readonly queue: { body: unknown; fingerprint: string; row: number }[] = [];
  private readonly check: BatchCheck;

  constructor(
    private readonly journal: Pick<JournalOps, 'post'>,
    private readonly location: string,
    entity: Entity,
    accounts: GlAccount[],
    private readonly receipts: Receipts,
    private readonly options: ImportOptions,
  ) {
    this.check = new BatchCheck(contextFromChart(entity, accounts, null));
  }

  add(body: unknown, fingerprint: string, hasRowProblems: boolean, row: number): BatchResult {
    if (!this.options.allowDuplicates && this.receipts.has(this.location, fingerprint))
      return { status: 'skipped' };
    const checked = this.check.entry(body, hasRowProblems);
    if ('problems' in checked) return { status: 'invalid', problems: checked.problems };
    this.queue.push({ body, fingerprint, row });
    return { status: 'would_post' };
  }

  async commit(): Promise<{ alreadyPosted: number[] }> {
    const alreadyPosted: number[] = [];
    if (this.check.failed || this.options.dryRun) return { alreadyPosted };
    let posted = 0;
    for (const { body, fingerprint, row } of this.queue) {
      try {
        const key = this.options.allowDuplicates ? randomUUID() : fingerprint;
        const entry = await this.journal.post(body, { idempotencyKey: key, source: 'csv_import' });
        if (!this.options.allowDuplicates)
          this.receipts.record(this.location, fingerprint, entry.id);
        posted++;
      } catch (e) {
        if (isBooksError(e) && e.code === 'CAPI34' && !this.options.allowDuplicates) {
          // The key was used within the hour: an earlier run posted this entry before it could record it.
          this.receipts.record(
            this.location,
            fingerprint,
            (e.details.existing_journal_entry_id as string | undefined) ?? null,
          );
          alreadyPosted.push(row);
          continue;
        }
        const err = isBooksError(e) ? e : new BooksError('unavailable', String(e));
        throw new BooksError(
          err.code,
          `row ${row}: ${err.message}; ${posted} entr${posted === 1 ? 'y' : 'ies'} of this file posted ` +
            'before it, and a re-run posts the rest',
          err.errors.map((p) => ({ ...p, row })),
          {
            ...err.details,
            posted,
          },
        );
      }
    }
    return { alreadyPosted };
  }

  async ready(): Promise<void> {}

  async rollback(): Promise<void> {
    this.queue.length = 0;
  }
}
