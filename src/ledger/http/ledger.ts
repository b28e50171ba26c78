import { auditCursor, MAX_AUDIT_LIMIT } from '../../server/auditPage.js';
import { GENESIS, pagedEvents, type AuditEvent } from '../../domain/audit.js';
import type { AuditFilter, AuditOps } from '../audit/port.js';
import type { Counterparty, Entity, EntityRecord, GlAccount } from '../../domain/accounts.js';
import { tagParams, type TagSummary } from '../../domain/tags.js';
import type { FxOps } from '../fx/port.js';
import type { GlAccountHead, GlEvent, GlLine } from '../../domain/generalLedger.js';
import { FINGERPRINT_HEADER, SOURCE_HEADER, type JournalEntry } from '../../domain/entry.js';
import { errors, isBooksError } from '../../domain/errors.js';
import { idempotencyKeyProblem } from '../../domain/idempotency.js';
import type { ReportQuery } from '../../domain/periods.js';
import type { GeneralLedgerQuery } from '../../domain/reportQueries.js';
import type {
  ChartOps,
  AgingQueryArgs,
  BudgetOps,
  EntityOps,
  ImportBatch,
  ImportOptions,
  JournalOps,
  KeyOps,
  Ledger,
  MaintenanceOps,
  PostOptions,
  ReconcileOps,
  RecurringOps,
  ReportOps,
  ReverseOptions,
} from '../port.js';
import { ApiClient, type ClientOptions } from './client.js';
import { RemoteImportBatch } from './importBatch.js';
import { OP_ROUTES, type OpRoute } from '../compose/opsApi.js';

import { receiptService, Receipts } from './receipts.js';

/** A page of the general ledger as the API answers it. */
interface GlPage {
  accounts: (GlAccountHead & {
    lines: GlLine[];
    closing?: number | bigint | null;
    debit_total?: number | bigint;
    credit_total?: number | bigint;
  })[];
  next_cursor: string | null;
}

const periodParams = (q: ReportQuery) =>
  tagParams(
    new URLSearchParams({
      start_date: q.start_date,
      end_date: q.end_date,
      period_type: q.period_type,
      ...(q.compare?.length ? { compare: q.compare.join(',') } : {}),
    }),
    q,
  );

/** An aging's query as the API names it (lists comma-separated). */
const agingParams = (q: AgingQueryArgs) => {
  const p = new URLSearchParams({ type: q.type, as_of: q.as_of });
  const list = (v: string | number[] | string[]) => (Array.isArray(v) ? v.join(',') : v);
  if (q.buckets !== undefined) p.set('buckets', list(q.buckets));
  if (q.due_days !== undefined) p.set('due_days', String(q.due_days));
  if (q.counterparty !== undefined) p.set('counterparty', q.counterparty);
  const accounts = typeof q.accounts === 'string' ? [q.accounts] : (q.accounts ?? []);
  for (const a of accounts) p.append('account', a);
  return p;
};

export interface HttpOptions extends ClientOptions {
  /** The service's functional currency (the API does not publish the entity). */
  currency: string;
  /** Where the receipt store is found (BOOKS_RECEIPTS, XDG_DATA_HOME, HOME). */
  env?: Record<string, string | undefined>;
}

/**
 * The remote ledger: the accounting API over HTTP. It offers what the API offers (posting, reversal,
 * the chart, the balance sheet, and batch imports built on posting); every other operation says it is
 * not offered by the profile. The API publishes no entity: the profile's currency stands for it, and
 * the First Month of Books and lock date are the service's to check.
 */
export class HttpLedger implements Ledger {
  readonly capabilities = {
    atomicImport: false,
    dryRun: false,
    waitsHere: false,
    listsEntries: false,
  };
  readonly location: string;
  readonly entity: EntityOps;
  readonly chart: ChartOps;
  readonly journal: JournalOps;
  readonly reports: ReportOps;
  readonly keys: KeyOps;
  readonly maintenance: MaintenanceOps;
  readonly reconcile: ReconcileOps;
  readonly budgets: BudgetOps;
  readonly fx: FxOps;
  readonly audit: AuditOps;
  readonly recurring: RecurringOps;
  private readonly client: ApiClient;
  private receipts: Receipts | null = null;

  constructor(private readonly options: HttpOptions) {
    this.client = new ApiClient(options);
    this.location = this.client.location;
    const no = (operation: string) => () =>
      Promise.reject(errors.notOffered(operation, this.location));
    this.entity = {
      get: () => this.entityOf(),
      record: () => this.remote<EntityRecord>('/v1/entity', 'entity show'),
      setBooksStart: no('books-start'),
      closeThrough: no('close'),
    };
    this.chart = {
      accounts: () => this.accounts(),
      counterparties: async () =>
        (await this.remote<{ data: Counterparty[] }>('/v1/counterparties', 'counterparties list'))
          .data,
      importAccounts: no('accounts import'),
      importCounterparties: no('counterparties import'),
    };
    this.journal = {
      post: (body, o) => this.post(body, o),
      reverse: (id, o) => this.reverse(id, o),
      get: (id) => this.getEntry(id),
      list: () => ({ [Symbol.asyncIterator]: () => ({ next: no('je list') }) }),
      beginImport: (o) => this.beginImport(o),
    };
    this.reports = {
      balanceSheet: (q) => this.report('balance-sheet', periodParams(q)),
      incomeStatement: (q) => this.report('income-statement', periodParams(q)),
      cashFlow: (q) => this.report('cash-flow-statement', periodParams(q)),
      trialBalance: (q) =>
        this.report(
          'trial-balance',
          tagParams(new URLSearchParams({ as_of: q.as_of, adjustments: q.adjustments }), q),
        ),
      generalLedger: (q) => this.generalLedger(q),
      cursorKey: no('a general ledger cursor'),
      aging: (q) => this.report('aging', agingParams(q)),
      tags: async () => (await this.remote<{ data: TagSummary[] }>('/v1/tags', 'tags list')).data,
    };
    this.keys = {
      create: no('keys create'),
      list: no('keys list'),
      revoke: no('keys revoke'),
      authenticate: no('serve'),
    };
    // An undo names the reconciliation it means (books reconcile undo reads it first).
    this.reconcile = remoteOps(this.client, 'reconcile') as unknown as ReconcileOps;
    this.budgets = remoteOps(this.client, 'budgets') as unknown as BudgetOps;
    this.recurring = remoteOps(this.client, 'recurring') as unknown as RecurringOps;
    this.fx = remoteOps(this.client, 'fx') as unknown as FxOps;
    // The service keeps the trail: it is listed page by page; its entries are not, so it is not verified here.
    const page = async (f: AuditFilter, after: number, limit: number) => {
      const q = new URLSearchParams({ limit: String(Math.min(limit, MAX_AUDIT_LIMIT)) });
      const cursor = auditCursor(after);
      if (cursor) q.set('cursor', cursor);
      for (const [k, v] of Object.entries(f)) if (typeof v === 'string') q.set(k, v);
      const path = `/v1/audit-events?${q.toString()}`;
      return (await this.remote<{ data: AuditEvent[] }>(path, 'audit list')).data;
    };
    this.audit = {
      list: (f) => pagedEvents((after) => page(f, after, 1000), 1000),
      page,
      verify: no('audit verify'),
      head: async () => {
        let last = { seq: 0, hash: GENESIS };
        for await (const e of pagedEvents((after) => page({}, after, 1000), 1000))
          last = { seq: e.seq, hash: e.hash };
        return last;
      },
      writerOf: async (id) => (await page({ object: id }, 0, 1))[0] ?? null,
    };
    this.maintenance = {
      check: no('check'),
      rebuild: no('rebuild'),
      verifyFile: no('serve'),
      dump: () => ({ [Symbol.asyncIterator]: () => ({ next: no('dump') }) }),
      restore: no('restore'),
    };
  }

  private entityRead: Promise<Entity> | null = null;

  /**
   * The service's entity, read once (GET /v1/entity). A service that does not publish it gets the
   * profile's currency, a calendar fiscal year and its address for a name; its First Month of Books
   * and lock date are then its own to check.
   */
  private entityOf(): Promise<Entity> {
    this.entityRead ??= this.remote<EntityRecord>('/v1/entity', 'entity show').then(
      ({ id, name, currency, books_start, fiscal_year_start_month, lock_date }) => ({
        ...{ id, name, currency, books_start, fiscal_year_start_month, lock_date },
      }),
      (e: unknown) => {
        if (!isBooksError(e) || e.code !== 'usage') throw e;
        return {
          id: '',
          name: this.location,
          currency: this.options.currency,
          books_start: null,
          fiscal_year_start_month: 1,
          lock_date: null,
        };
      },
    );
    return this.entityRead;
  }

  /** A GET of the service; a service without the route does not offer the operation (exit 2). */
  private async remote<T>(path: string, operation: string): Promise<T> {
    try {
      return (await this.client.request('GET', path)) as T;
    } catch (e) {
      if (isBooksError(e) && e.code === 'not_found')
        throw errors.notOffered(operation, this.location);
      throw e;
    }
  }

  private async accounts(): Promise<GlAccount[]> {
    return ((await this.client.request('GET', '/v1/gl-accounts')) as { data: GlAccount[] }).data;
  }

  private async post(body: unknown, options: PostOptions): Promise<JournalEntry> {
    if (options.dryRun)
      throw errors.usage('--dry-run is not offered by a remote profile: the API has no dry run');
    this.checkKey(options.idempotencyKey);
    // An import says so: its entries are csv_import, and their numbers do not steer numbering.
    const source: Record<string, string> =
      options.source === 'csv_import' ? { [SOURCE_HEADER]: 'csv_import' } : {};
    if (options.fingerprint) source[FINGERPRINT_HEADER] = options.fingerprint;
    return (await this.client.request(
      'POST',
      '/v1/journal-entries',
      body,
      options.idempotencyKey,
      source,
    )) as JournalEntry;
  }

  private async reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry> {
    if (options.dryRun)
      throw errors.usage('--dry-run is not offered by a remote profile: the API has no dry run');
    this.checkKey(options.idempotencyKey);
    const body = options.entryDate ? { entry_date: options.entryDate } : {};
    const path = `/v1/journal-entries/${segment(idOrNumber)}/reverse`;
    return (await this.client.request('POST', path, body, options.idempotencyKey)) as JournalEntry;
  }

  private async getEntry(idOrNumber: string): Promise<JournalEntry> {
    return (await this.client.request(
      'GET',
      `/v1/journal-entries/${segment(idOrNumber)}`,
    )) as JournalEntry;
  }

  /** A key that a header cannot carry unchanged is refused here, as the local ledger refuses it. */
  private checkKey(key: string): void {
    const problem = idempotencyKeyProblem(key);
    if (problem) throw errors.idempotencyKeyRefused(problem);
  }

  /** A report of the service; a service without its route does not offer it (exit 2). */
  private report<T>(name: string, params: URLSearchParams): Promise<T> {
    return this.remote<T>(`/v1/reports/${name}?${params}`, `report ${name}`);
  }

  /** The general ledger, page after page of the service's, as one stream. */
  private async *generalLedger(q: GeneralLedgerQuery): AsyncGenerator<GlEvent> {
    const params = new URLSearchParams({
      start_date: q.start_date,
      end_date: q.end_date,
      limit: '10000',
    });
    for (const a of q.accounts) params.append('account', a);
    if (q.counterparty)
      params.set('counterparty', `${q.counterparty.type}:${q.counterparty.external_id}`);
    tagParams(params, q);
    // The position of a line is the service's to keep (its cursor); the stream carries none.
    const at = { key: 0, date: '', seq: 0, line_no: 0, balance: 0n, debits: 0n, credits: 0n };
    let open: string | null = null;
    for (;;) {
      const page: GlPage = await this.report('general-ledger', params);
      for (const block of page.accounts) {
        const { lines, closing, debit_total, credit_total, ...head } = block;
        if (open !== head.account_id) yield { kind: 'account', account: head, key: 0 };
        open = head.account_id;
        for (const line of lines) yield { kind: 'line', line, at };
        if (closing !== undefined && closing !== null) {
          yield { kind: 'end', closing, debit_total: debit_total!, credit_total: credit_total! };
          open = null;
        }
      }
      if (!page.next_cursor) return;
      params.set('cursor', page.next_cursor);
    }
  }

  private async beginImport(options: ImportOptions): Promise<ImportBatch> {
    this.receipts ??= new Receipts(this.options.env ?? process.env);
    const entity = await this.entity.get();
    // A service that lists its counterparties has them checked here too, before anything posts.
    const counterparties = await this.chart.counterparties().catch((e: unknown) => {
      if (isBooksError(e) && e.code === 'usage') return null;
      throw e;
    });
    return new RemoteImportBatch(
      this.journal,
      this.location,
      receiptService(this.location, this.options.apiKey),
      entity,
      await this.accounts(),
      counterparties,
      this.receipts,
      options,
    );
  }

  async close(): Promise<void> {
    this.receipts?.close();
  }
}

/** An id or JE number as one path segment: `.` and `..` too (URLs would resolve them away). */
function segment(idOrNumber: string): string {
  return encodeURIComponent(idOrNumber).replace(/\./g, '%2E');
}

/** A concern's operations over the API: each a request of the route table. */
export function remoteOps(
  client: ApiClient,
  concern: OpRoute['concern'],
): Record<string, (args?: Record<string, unknown>) => Promise<unknown>> {
  const ops: Record<string, (args?: Record<string, unknown>) => Promise<unknown>> = {};
  for (const r of OP_ROUTES.filter((x) => x.concern === concern))
    ops[r.op] = (args: Record<string, unknown> = {}) => {
      if (r.method === 'POST') return client.request('POST', r.path, args);
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(args)) if (v !== undefined) q.set(k, String(v));
      const query = q.size ? `?${q}` : '';
      return client.request('GET', `${r.path}${query}`);
    };
  return ops;
}
