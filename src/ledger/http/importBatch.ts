import { randomUUID } from 'node:crypto';
import type { GlAccount } from '../../domain/accounts.js';
import type { ValidationContext } from '../../domain/entry.js';
import { BatchCheck } from '../batchCheck.js';
import { BooksError, isBooksError } from '../../domain/errors.js';
import type { BatchResult, ImportBatch, ImportOptions, Ledger } from '../port.js';
import type { Receipts } from './receipts.js';

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
    private readonly ledger: Ledger,
    accounts: GlAccount[],
    currency: string,
    private readonly receipts: Receipts,
    private readonly options: ImportOptions,
  ) {
    const byExt = new Map(accounts.map((a) => [a.external_id, { ...a, key: 0 }]));
    const ctx: ValidationContext = {
      entity: {
        id: '',
        name: ledger.location,
        currency,
        books_start: null,
        fiscal_year_start_month: 1,
        lock_date: null,
      },
      account: (id) => byExt.get(id),
      // The API lists no counterparties: the service checks them when the entry posts.
      counterparty: (type, externalId) => ({
        id: '',
        counterparty_type: type,
        external_id: externalId,
        name: externalId,
        is_active: true,
      }),
      // The service's numbers are checked when the entry posts; those of the file are checked here.
      jeNumberTaken: () => false,
    };
    this.check = new BatchCheck(ctx);
  }

  add(body: unknown, fingerprint: string, hasRowProblems: boolean, row: number): BatchResult {
    if (!this.options.allowDuplicates && this.receipts.has(this.ledger.location, fingerprint))
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
        const entry = await this.ledger.post(body, { idempotencyKey: key, source: 'csv_import' });
        if (!this.options.allowDuplicates)
          this.receipts.record(this.ledger.location, fingerprint, entry.id);
        posted++;
      } catch (e) {
        if (isBooksError(e) && e.code === 'CAPI34' && !this.options.allowDuplicates) {
          // The key was used within the hour: an earlier run posted this entry before it could record it.
          this.receipts.record(
            this.ledger.location,
            fingerprint,
            (e.details.existing_journal_entry_id as string | undefined) ?? null,
          );
          alreadyPosted.push(row);
          continue;
        }
        const err = isBooksError(e) ? e : new BooksError('unavailable', String(e));
        throw new BooksError(
          err.code,
          `row ${row}: ${err.message}; ${posted} entr${posted === 1 ? 'y' : 'ies'} of this file posted before it, and a re-run posts the rest`,
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
