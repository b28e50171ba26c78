import type { IncomingMessage } from 'node:http';
import { BooksError, entryInvalid, errors, type Problem, refusal } from '../domain/errors.js';
import { ENTRY_SOURCES, FINGERPRINT_HEADER, SOURCE_HEADER } from '../domain/entry.js';
import { idempotencyKeyProblem } from '../domain/idempotency.js';
import type { Permission } from '../domain/keys.js';
import type { Who } from '../domain/audit.js';
import { checkReportQuery, type ReportQuery } from '../domain/periods.js';
import {
  checkGeneralLedgerQuery,
  checkTrialBalanceQuery,
  type GeneralLedgerQuery,
  type TrialBalanceQuery,
} from '../domain/reportQueries.js';
import type { AgingQueryArgs, Ledger } from '../ledger/port.js';
import { generalLedgerPage, MAX_GL_LIMIT } from './generalLedgerPage.js';
import { openApi } from './openapi.js';
import { auditPage } from './auditPage.js';
import { opRoutes } from './opRoutes.js';

export const POST_PERMISSION: Permission = 'customer_api:post_journal_entries';
export const READ_PERMISSION: Permission = 'customer_api:read';

/** What a route's handler is given: the matched request, its body when it takes one, the ledger. */
export interface Call {
  req: IncomingMessage;
  url: URL;
  params: string[];
  ledger: Ledger;
  /** The request's JSON body, read (at most 2 MiB) and parsed exactly. */
  body: () => Promise<unknown>;
  /** Who asks, for the audit trail: the key and the route. */
  who: Who;
  /** The id of a key granted from the store's memory, for the write to read again (checksKey). */
  keyToVerify?: string;
}

export interface Reply {
  status: number;
  body: unknown;
}

export interface Route {
  method: 'GET' | 'POST';
  /** The path, with `{id}` for a segment. */
  path: string;
  pattern: RegExp;
  /** The permission a key needs; null for a route open to all (the API's description). */
  permission: Permission | null;
  summary: string;
  /**
   * The handler gives `who` to the ledger itself: no async context is entered around it (see
   * ledger/runtime/actor.ts). Posting is served that way, as the hottest path.
   */
  givesActor?: true;
  /**
   * The handler's write reads the request's API key again (Call.keyToVerify), so its grant may come
   * from the store's memory rather than a reading of its own.
   */
  checksKey?: true;
  handle: (call: Call) => Promise<Reply>;
}

export const route = (r: Omit<Route, 'pattern'>): Route => ({
  ...r,
  pattern: new RegExp(`^${r.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
});

/** The idempotency key of a POST, as the header gives it; refused (CAPI34) naming the header. */
function idempotencyKey(req: IncomingMessage): string {
  // Node joins a repeated header's values with commas; two keys for one request are refused instead.
  const given = req.headersDistinct['x-idempotency-key'];
  const header = 'X-Idempotency-Key';
  if (given && given.length > 1) {
    const problem = {
      reason: 'missing_idempotency_key',
      message: `${header} is given more than once`,
    };
    throw errors.idempotencyKeyRefused(problem, header);
  }
  const problem = idempotencyKeyProblem(given?.[0], header);
  if (problem) throw errors.idempotencyKeyRefused(problem, header);
  return given![0]!;
}

/** A header given at most once (refused, naming it, when repeated), or undefined. */
function headerOnce(req: IncomingMessage, name: string): string | undefined {
  const given = req.headersDistinct[name.toLowerCase()];
  if (given && given.length > 1) {
    const message = `${name} is given more than once`;
    throw entryInvalid([{ path: name, reason: 'repeated_header', message }]);
  }
  return given?.[0];
}

/** The entry's source as the X-Books-Source header gives it (manual_api when absent). */
function entrySource(req: IncomingMessage): string {
  const given = req.headersDistinct[SOURCE_HEADER.toLowerCase()];
  if (!given) return 'manual_api';
  if (given.length === 1 && (ENTRY_SOURCES as readonly string[]).includes(given[0]!))
    return given[0]!;
  const message = `${SOURCE_HEADER} is one of ${ENTRY_SOURCES.join(', ')}, given once`;
  throw entryInvalid([{ path: SOURCE_HEADER, reason: 'invalid_source', message }]);
}

/** Query parameters, each at most once, else invalid_parameters naming them. */
export function queryOf(url: URL, names: readonly string[]): Record<string, string | undefined> {
  const q = url.searchParams;
  const twice = names.filter((name) => q.getAll(name).length > 1);
  if (twice.length) {
    const problems: Problem[] = twice.map((name) => ({
      path: name,
      reason: 'repeated_parameter',
      message: `${name} is given more than once`,
    }));
    throw new BooksError(
      'invalid_parameters',
      `${twice.join(', ')} given more than once`,
      problems,
    );
  }
  return Object.fromEntries(names.map((n) => [n, q.get(n) ?? undefined]));
}

/** A report's window and period parameters, checked as the balance sheet's are. */
/**
 * Refuses a report's filter or split that this report does not take: answering without it would
 * pass an unfiltered report for a filtered one.
 */
function notTaken(url: URL, names: string[]): void {
  const given = names.filter((n) => url.searchParams.has(n));
  if (given.length)
    throw refusal(
      'invalid_parameters',
      given.map((n) => ({
        path: n,
        reason: 'invalid_parameters',
        message: `this report does not take ${n}`,
      })),
    );
}

export function reportQuery(url: URL): ReportQuery {
  const checked = checkReportQuery({
    ...queryOf(url, ['start_date', 'end_date', 'period_type', 'compare', 'columns_by']),
    where: url.searchParams.getAll('where'),
  });
  if ('problems' in checked) throw refusal('invalid_parameters', checked.problems);
  return checked.query;
}

/** The trial balance's parameters: as_of, adjustments. */
function trialBalanceQuery(url: URL): TrialBalanceQuery {
  const checked = checkTrialBalanceQuery({
    ...queryOf(url, ['as_of', 'adjustments', 'columns_by']),
    where: url.searchParams.getAll('where'),
  });
  if ('problems' in checked) throw invalid(checked.problems);
  return checked.query;
}

/** The general ledger's parameters: the window, accounts (repeatable), a counterparty, a page's limit and cursor. */
function generalLedgerQuery(url: URL): {
  query: GeneralLedgerQuery;
  limit: number;
  cursor: string | undefined;
} {
  notTaken(url, ['columns_by']);
  const raw = queryOf(url, ['start_date', 'end_date', 'counterparty', 'limit', 'cursor']);
  const checked = checkGeneralLedgerQuery({
    ...raw,
    accounts: url.searchParams.getAll('account'),
    where: url.searchParams.getAll('where'),
  });
  const problems = 'problems' in checked ? [...checked.problems] : [];
  const limit =
    raw.limit === undefined ? 1000 : /^\d{1,5}$/.test(raw.limit) ? Number(raw.limit) : NaN;
  if (!(limit >= 1 && limit <= MAX_GL_LIMIT)) {
    problems.push({
      path: 'limit',
      reason: 'invalid_limit',
      message: `limit '${raw.limit}' is not a whole number from 1 to ${MAX_GL_LIMIT}`,
    });
  }
  if ('problems' in checked || problems.length) throw invalid(problems);
  return { query: checked.query, limit, cursor: raw.cursor };
}

const invalid = (problems: Problem[]) => refusal('invalid_parameters', problems);

/** The entry id or number of a reversal path; a malformed percent-encoding names no entry. */
function entryId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw errors.notFound(`no journal entry '${segment}'`);
  }
}

/** The reversal body: `{"entry_date": "YYYY-MM-DD"}`, the date optional. */
function reversalDate(body: unknown): string | undefined {
  const o = body as { entry_date?: unknown } | null;
  const extra = o && typeof o === 'object' ? Object.keys(o).filter((k) => k !== 'entry_date') : [];
  const date = o?.entry_date;
  if (
    o === null ||
    typeof o !== 'object' ||
    Array.isArray(o) ||
    extra.length ||
    (date !== undefined && typeof date !== 'string')
  ) {
    const message = 'the body is {"entry_date": "YYYY-MM-DD"} (entry_date optional)';
    throw entryInvalid([{ path: extra[0] ?? 'entry_date', reason: 'invalid_body', message }]);
  }
  return date;
}

/**
 * Every route of `books serve`. Checks run in the order docs/api.md gives ("Decisions"): authentication and
 * permission (before a handler runs), the idempotency key, the JSON body, then the ledger's own.
 */
export const ROUTES: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/journal-entries',
    permission: POST_PERMISSION,
    summary: 'Post a manual journal entry',
    givesActor: true,
    checksKey: true,
    handle: async ({ req, ledger, body, who, keyToVerify }) => {
      const key = idempotencyKey(req);
      const source = entrySource(req);
      const fingerprint = headerOnce(req, FINGERPRINT_HEADER);
      const options = {
        idempotencyKey: key,
        source,
        who,
        ...(fingerprint ? { fingerprint } : {}),
        ...(keyToVerify ? { keyToVerify } : {}),
      };
      return { status: 201, body: await ledger.journal.post(await body(), options) };
    },
  }),
  route({
    method: 'POST',
    path: '/v1/journal-entries/{id}/reverse',
    permission: POST_PERMISSION,
    summary: 'Reverse a journal entry: post its mirror and link the two',
    checksKey: true,
    handle: async ({ req, ledger, body, params, keyToVerify }) => {
      const key = idempotencyKey(req);
      const date = reversalDate(await body());
      const entry = await ledger.journal.reverse(entryId(params[0]!), {
        idempotencyKey: key,
        ...(date ? { entryDate: date } : {}),
        ...(keyToVerify ? { keyToVerify } : {}),
      });
      return { status: 201, body: entry };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/journal-entries/{id}',
    permission: READ_PERMISSION,
    summary: 'One journal entry, by id or JE number',
    handle: async ({ ledger, params }) => ({
      status: 200,
      body: await ledger.journal.get(entryId(params[0]!)),
    }),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/balance-sheet',
    permission: READ_PERMISSION,
    summary: 'The balance sheet, one column per period',
    handle: async ({ url, ledger }) => ({
      status: 200,
      body: await ledger.reports.balanceSheet(reportQuery(url)),
    }),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/income-statement',
    permission: READ_PERMISSION,
    summary: 'The income statement: activity within each period',
    handle: async ({ url, ledger }) => ({
      status: 200,
      body: await ledger.reports.incomeStatement(reportQuery(url)),
    }),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/cash-flow-statement',
    permission: READ_PERMISSION,
    summary: 'The cash-flow statement (indirect method), one column per period',
    handle: async ({ url, ledger }) => ({
      status: 200,
      body: await ledger.reports.cashFlow(reportQuery(url)),
    }),
  }),
  route({
    method: 'GET',
    path: '/v1/tags',
    permission: READ_PERMISSION,
    summary: 'The tag keys the journal carries, with their values and lines',
    handle: async ({ url, ledger }) => {
      notTaken(url, ['where', 'columns_by']);
      return { status: 200, body: { object: 'list', data: await ledger.reports.tags() } };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/reports/trial-balance',
    permission: READ_PERMISSION,
    summary: 'The trial balance as of a date',
    handle: async ({ url, ledger }) => ({
      status: 200,
      body: await ledger.reports.trialBalance(trialBalanceQuery(url)),
    }),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/aging',
    permission: READ_PERMISSION,
    summary: 'Aged receivables or payables: open items per counterparty, by age',
    handle: async ({ url, ledger }) => {
      notTaken(url, ['where', 'columns_by']);
      const q = queryOf(url, ['type', 'as_of', 'buckets', 'due_days', 'counterparty']);
      const args = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined));
      // Accounts as the general ledger takes them: `account` repeated, one each.
      const accounts = url.searchParams.getAll('account');
      const query = { ...args, ...(accounts.length ? { accounts } : {}) };
      // The ledger checks the query (and that its counterparty is one of the ledger's).
      return { status: 200, body: await ledger.reports.aging(query as AgingQueryArgs) };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/reports/general-ledger',
    permission: READ_PERMISSION,
    summary: 'The general ledger, a page of lines at a time',
    handle: async ({ url, ledger }) => {
      const { query, limit, cursor } = generalLedgerQuery(url);
      return { status: 200, body: await generalLedgerPage(ledger.reports, query, limit, cursor) };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/audit-events',
    permission: READ_PERMISSION,
    summary: 'The audit trail, oldest first, a page at a time',
    handle: async ({ url, ledger }) => {
      const names = ['since', 'until', 'actor', 'action', 'object', 'limit', 'cursor'];
      return { status: 200, body: await auditPage(ledger.audit, queryOf(url, names)) };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/gl-accounts',
    permission: READ_PERMISSION,
    summary: 'The chart of accounts',
    handle: async ({ ledger }) => ({
      status: 200,
      body: { object: 'list', data: await ledger.chart.accounts() },
    }),
  }),
  route({
    method: 'GET',
    path: '/v1/counterparties',
    permission: READ_PERMISSION,
    summary: 'Customers, vendors and employees',
    handle: async ({ ledger }) => ({
      status: 200,
      body: { object: 'list', data: await ledger.chart.counterparties() },
    }),
  }),
  route({
    method: 'GET',
    path: '/v1/entity',
    permission: READ_PERMISSION,
    summary: "The key's entity: currency, fiscal year, First Month of Books, lock date, counts",
    handle: async ({ ledger }) => ({ status: 200, body: await ledger.entity.record() }),
  }),
  ...opRoutes(route),
  route({
    method: 'GET',
    path: '/v1/openapi.json',
    permission: null,
    summary: 'This description of the API (OpenAPI 3.1)',
    handle: async () => ({ status: 200, body: openApi(ROUTES) }),
  }),
];
