import type { Entity, GlAccount } from '../../domain/accounts.js';
import type { BalanceSheet } from '../../domain/balanceSheet.js';
import type { JournalEntry } from '../../domain/entry.js';
import {
  BooksError,
  entryInvalid,
  errors,
  type ErrorCode,
  type Problem,
} from '../../domain/errors.js';
import type { ReportQuery } from '../../domain/periods.js';
import type { ImportBatch, ImportOptions, Ledger, PostOptions, ReverseOptions } from '../port.js';
import { RemoteImportBatch } from './importBatch.js';
import { Receipts } from './receipts.js';

export interface HttpOptions {
  baseUrl: string;
  apiKey: string | undefined;
  /** Name of the variable the key comes from, for messages (never the key). */
  apiKeyEnv: string;
  /** The service's functional currency (the API does not publish the entity). */
  currency: string;
  /** Attempts for a retryable failure (CAPI73, network): at least 1. */
  attempts?: number;
  /** First back-off; doubled each time, Retry-After wins when the server sends one. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Where the receipt store is found (BOOKS_RECEIPTS, XDG_DATA_HOME, HOME). */
  env?: Record<string, string | undefined>;
}

const KNOWN: ReadonlySet<string> = new Set([
  'CAPI11',
  'CAPI33',
  'CAPI34',
  'CAPI67',
  'CAPI69',
  'CAPI71',
  'CAPI73',
  'invalid_parameters',
  'payload_too_large',
  'not_found',
]);

/**
 * The remote ledger: the accounting API over HTTP with a bearer key. Every status and code maps to the
 * same BooksError values as the local ledger. CAPI73 and network failures are retried with bounded
 * back-off (honouring Retry-After) under the same idempotency key; a CAPI34 duplicate on a retry means
 * the first attempt posted, and is raised with `already_posted` so callers can count it as done.
 */
export class HttpLedger implements Ledger {
  readonly kind = 'remote' as const;
  readonly location: string;
  private readonly opts: Required<Omit<HttpOptions, 'apiKey'>> & { apiKey: string | undefined };

  constructor(options: HttpOptions) {
    this.location = options.baseUrl.replace(/\/+$/, '');
    this.opts = {
      attempts: 5,
      backoffMs: 250,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      env: process.env,
      ...options,
    };
  }

  async entity(): Promise<Entity> {
    return {
      id: '',
      name: this.location,
      currency: this.opts.currency,
      books_start: null,
      fiscal_year_start_month: 1,
      lock_date: null,
    };
  }

  async accounts(): Promise<GlAccount[]> {
    return ((await this.request('GET', '/v1/gl-accounts')) as { data: GlAccount[] }).data;
  }

  async post(body: unknown, options: PostOptions): Promise<JournalEntry> {
    if (options.dryRun)
      throw errors.usage('--dry-run is not offered by a remote profile: the API has no dry run');
    return (await this.request(
      'POST',
      '/v1/journal-entries',
      body,
      options.idempotencyKey,
    )) as JournalEntry;
  }

  async reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry> {
    if (options.dryRun)
      throw errors.usage('--dry-run is not offered by a remote profile: the API has no dry run');
    const body = options.entryDate ? { entry_date: options.entryDate } : {};
    return (await this.request(
      'POST',
      `/v1/journal-entries/${encodeURIComponent(idOrNumber)}/reverse`,
      body,
      options.idempotencyKey,
    )) as JournalEntry;
  }

  async balanceSheet(q: ReportQuery): Promise<BalanceSheet> {
    const params = new URLSearchParams({
      start_date: q.start_date,
      end_date: q.end_date,
      period_type: q.period_type,
    });
    return (await this.request('GET', `/v1/reports/balance-sheet?${params}`)) as BalanceSheet;
  }

  async beginImport(options: ImportOptions): Promise<ImportBatch> {
    this.receipts ??= new Receipts(this.opts.env);
    return new RemoteImportBatch(
      this,
      await this.accounts(),
      this.opts.currency,
      this.receipts,
      options,
    );
  }

  private receipts: Receipts | null = null;

  async close(): Promise<void> {
    this.receipts?.close();
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<unknown> {
    if (!this.opts.apiKey)
      throw new BooksError('CAPI11', `no API key: set ${this.opts.apiKeyEnv} for ${this.location}`);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.opts.apiKey}`,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['X-Idempotency-Key'] = idempotencyKey;
    let delay = this.opts.backoffMs;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.location + path, {
          method,
          headers,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(60_000),
        });
      } catch (e) {
        if (attempt >= this.opts.attempts) {
          throw new BooksError(
            'unavailable',
            `cannot reach ${this.location}: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}`,
          );
        }
        await this.opts.sleep(delay);
        delay *= 2;
        continue;
      }
      const text = await res.text();
      if (res.ok) return parse(text, this.location);
      const err = toError(res.status, text, this.location);
      if (
        err.code === 'CAPI34' &&
        attempt > 1 &&
        err.errors.some((p) => p.reason === 'duplicate_idempotency_key')
      ) {
        // Our own earlier attempt went through before its answer was lost.
        throw new BooksError(
          'CAPI34',
          `already posted${err.details.existing_journal_entry_id ? ` as ${String(err.details.existing_journal_entry_id)}` : ''}`,
          err.errors,
          { ...err.details, already_posted: true },
        );
      }
      const retryable =
        err.code === 'CAPI73' || res.status === 502 || res.status === 503 || res.status === 504;
      if (!retryable || attempt >= this.opts.attempts) throw err;
      const after = Number(res.headers.get('retry-after'));
      await this.opts.sleep(
        Number.isFinite(after) && after > 0 ? Math.min(after * 1000, 30_000) : delay,
      );
      delay *= 2;
    }
  }
}

function parse(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BooksError('unavailable', `${where} answered with something that is not JSON`);
  }
}

/** A problem+json answer as the BooksError the local ledger would raise. */
function toError(status: number, text: string, where: string): BooksError {
  let p: { code?: unknown; detail?: unknown; errors?: unknown } & Record<string, unknown> = {};
  try {
    p = JSON.parse(text) as typeof p;
  } catch {
    // Not problem+json (a proxy's page): judged by status alone below.
  }
  const code =
    typeof p.code === 'string' && KNOWN.has(p.code)
      ? (p.code as ErrorCode)
      : status === 401
        ? 'CAPI11'
        : status === 403
          ? 'CAPI71'
          : status === 404
            ? 'not_found'
            : status === 413
              ? 'payload_too_large'
              : 'unavailable';
  const problems = Array.isArray(p.errors) ? (p.errors as Problem[]) : [];
  const {
    type: _t,
    title: _ti,
    status: _s,
    code: _c,
    detail: _d,
    errors: _e,
    retryable,
    ...rest
  } = p;
  const details = retryable === true ? { retryable: true, ...rest } : rest;
  // Built as the local ledger builds them, so that both print the same.
  if (code === 'CAPI33' && problems.length)
    return new BooksError(code, entryInvalid(problems).message, problems, details);
  const message =
    typeof p.detail === 'string' && p.detail
      ? p.detail
      : (problems[0]?.message ?? `${where} answered ${status}`);
  return new BooksError(code, message, problems, details);
}
