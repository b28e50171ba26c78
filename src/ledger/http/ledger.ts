import type { Entity, GlAccount } from '../../domain/accounts.js';
import type { BalanceSheet } from '../../domain/balanceSheet.js';
import type { JournalEntry } from '../../domain/entry.js';
import { errors } from '../../domain/errors.js';
import { idempotencyKeyProblem } from '../../domain/idempotency.js';
import type { ReportQuery } from '../../domain/periods.js';
import type {
  ChartOps,
  EntityOps,
  ImportBatch,
  ImportOptions,
  JournalOps,
  KeyOps,
  Ledger,
  MaintenanceOps,
  PostOptions,
  ReportOps,
  ReverseOptions,
} from '../port.js';
import { ApiClient, type ClientOptions } from './client.js';
import { RemoteImportBatch } from './importBatch.js';
import { Receipts } from '../sqlite/receipts.js';

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
  readonly kind = 'remote' as const;
  readonly location: string;
  readonly entity: EntityOps;
  readonly chart: ChartOps;
  readonly journal: JournalOps;
  readonly reports: ReportOps;
  readonly keys: KeyOps;
  readonly maintenance: MaintenanceOps;
  private readonly client: ApiClient;
  private receipts: Receipts | null = null;

  constructor(private readonly options: HttpOptions) {
    this.client = new ApiClient(options);
    this.location = this.client.location;
    const no = (operation: string) => () =>
      Promise.reject(errors.notOffered(operation, this.location));
    const entity: Entity = {
      id: '',
      name: this.location,
      currency: options.currency,
      books_start: null,
      fiscal_year_start_month: 1,
      lock_date: null,
    };
    this.entity = {
      get: async () => entity,
      setBooksStart: no('books-start'),
      closeThrough: no('close'),
    };
    this.chart = {
      accounts: () => this.accounts(),
      counterparties: no('counterparties list'),
      importAccounts: no('accounts import'),
      importCounterparties: no('counterparties import'),
    };
    this.journal = {
      post: (body, o) => this.post(body, o),
      reverse: (id, o) => this.reverse(id, o),
      get: no('je show'),
      list: () => ({ [Symbol.asyncIterator]: () => ({ next: no('je list') }) }),
      beginImport: (o) => this.beginImport(o),
    };
    this.reports = { balanceSheet: (q) => this.balanceSheet(q) };
    this.keys = {
      create: no('keys create'),
      list: no('keys list'),
      revoke: no('keys revoke'),
      authenticate: no('serve'),
    };
    this.maintenance = { check: no('check'), rebuild: no('rebuild'), verifyFile: no('serve') };
  }

  private async accounts(): Promise<GlAccount[]> {
    return ((await this.client.request('GET', '/v1/gl-accounts')) as { data: GlAccount[] }).data;
  }

  private async post(body: unknown, options: PostOptions): Promise<JournalEntry> {
    if (options.dryRun)
      throw errors.usage('--dry-run is not offered by a remote profile: the API has no dry run');
    this.checkKey(options.idempotencyKey);
    return (await this.client.request(
      'POST',
      '/v1/journal-entries',
      body,
      options.idempotencyKey,
    )) as JournalEntry;
  }

  private async reverse(idOrNumber: string, options: ReverseOptions): Promise<JournalEntry> {
    if (options.dryRun)
      throw errors.usage('--dry-run is not offered by a remote profile: the API has no dry run');
    this.checkKey(options.idempotencyKey);
    const body = options.entryDate ? { entry_date: options.entryDate } : {};
    const path = `/v1/journal-entries/${encodeURIComponent(idOrNumber)}/reverse`;
    return (await this.client.request('POST', path, body, options.idempotencyKey)) as JournalEntry;
  }

  /** A key that a header cannot carry unchanged is refused here, as the local ledger refuses it. */
  private checkKey(key: string): void {
    const problem = idempotencyKeyProblem(key);
    if (problem) throw errors.idempotencyKeyRefused(problem);
  }

  private async balanceSheet(q: ReportQuery): Promise<BalanceSheet> {
    const params = new URLSearchParams({
      start_date: q.start_date,
      end_date: q.end_date,
      period_type: q.period_type,
    });
    return (await this.client.request(
      'GET',
      `/v1/reports/balance-sheet?${params}`,
    )) as BalanceSheet;
  }

  private async beginImport(options: ImportOptions): Promise<ImportBatch> {
    this.receipts ??= new Receipts(this.options.env ?? process.env);
    const entity = await this.entity.get();
    return new RemoteImportBatch(
      this.journal,
      this.location,
      entity,
      await this.accounts(),
      this.receipts,
      options,
    );
  }

  async close(): Promise<void> {
    this.receipts?.close();
  }
}
