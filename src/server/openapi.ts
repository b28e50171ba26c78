import { MAX_AUDIT_LIMIT } from './auditPage.js';
import { MAX_GL_LIMIT } from './generalLedgerPage.js';
import type { Route } from './routes.js';
import { arrayOf, bool, date, query, ref, SCHEMAS, str, type Schema } from './openapiSchemas.js';
import { RECONCILE_OPERATIONS, RECONCILE_REQUESTS, RECONCILE_SCHEMAS } from './openapiReconcile.js';
import { PLAN_OPERATIONS, PLAN_REQUESTS, PLAN_SCHEMAS } from './openapiPlans.js';
import { FX_OPERATIONS, FX_REQUESTS, FX_SCHEMAS } from './openapiFx.js';

/**
 * The OpenAPI 3.1 description of `books serve`, served at GET /v1/openapi.json. Paths come from the
 * route table (method, path, summary, permission); this file adds what each takes and answers, as
 * JSON Schema 2020-12. A test holds every answer the contract suite sees to it.
 */

const window = [
  query('start_date', date, 'first day of the window', true),
  query('end_date', date, 'last day (at most 5 years after start_date, CAPI69)', true),
];
const periodType = query(
  'period_type',
  { enum: ['monthly', 'quarterly', 'yearly'] },
  'column grouping',
);
const compare = query(
  'compare',
  str,
  'comma-separated: previous-period, previous-year, budget (columns and a comparisons list)',
);
const where = {
  ...query(
    'where',
    arrayOf(str),
    'KEY:VALUE (lines tagged so), KEY: (lines without KEY), KEY!:VALUE; repeated, all must hold',
  ),
  style: 'form',
  explode: true,
};
const columnsBy = query(
  'columns_by',
  str,
  'a tag key: a column per value over the window, (none) and total',
);
const idempotencyKey = {
  name: 'X-Idempotency-Key',
  in: 'header',
  required: true,
  schema: str,
  description: 'a key per intended post: the same key posts at most once (an hour)',
};

/** What each route takes and its success answer, by `METHOD path`. */
export const OPERATIONS: Record<
  string,
  { parameters?: unknown[]; body?: string; status: number; schema: string }
> = {
  'POST /v1/journal-entries': {
    parameters: [
      idempotencyKey,
      {
        name: 'X-Books-Source',
        in: 'header',
        required: false,
        schema: { enum: ['manual_api', 'csv_import'] },
        description:
          'csv_import for an entry of an imported file: its source says so, and its JE number ' +
          'does not steer automatic numbering (default manual_api)',
      },
      {
        name: 'X-Books-Fingerprint',
        in: 'header',
        required: false,
        schema: str,
        description:
          "an imported entry's fingerprint: refused as already posted (409 CAPI34, naming the " +
          'entry) when an entry of the ledger carries it, whichever import posted it',
      },
    ],
    body: 'JournalEntryRequest',
    status: 201,
    schema: 'JournalEntry',
  },
  'GET /v1/journal-entries/{id}': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: str }],
    status: 200,
    schema: 'JournalEntry',
  },
  'POST /v1/journal-entries/{id}/reverse': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: str }, idempotencyKey],
    body: 'ReverseRequest',
    status: 201,
    schema: 'JournalEntry',
  },
  'GET /v1/reports/balance-sheet': {
    parameters: [...window, periodType, compare, where],
    status: 200,
    schema: 'BalanceSheet',
  },
  'GET /v1/reports/income-statement': {
    parameters: [...window, periodType, compare, where, columnsBy],
    status: 200,
    schema: 'IncomeStatement',
  },
  'GET /v1/reports/cash-flow-statement': {
    parameters: [...window, periodType, compare],
    status: 200,
    schema: 'CashFlowStatement',
  },
  'GET /v1/reports/trial-balance': {
    parameters: [
      query('as_of', date, 'the date of the balances', true),
      query(
        'adjustments',
        { enum: ['include', 'exclude', 'worksheet'] },
        'adjusting entries: in, out, or apart',
      ),
      where,
      columnsBy,
    ],
    status: 200,
    schema: 'TrialBalance',
  },
  'GET /v1/reports/general-ledger': {
    parameters: [
      ...window,
      {
        ...query('account', arrayOf(str), 'accounts (external id or number) and those below them'),
        style: 'form',
        explode: true,
      },
      query('counterparty', str, 'TYPE:ID: only the lines naming this counterparty'),
      where,
      query(
        'limit',
        { type: 'integer', minimum: 1, maximum: MAX_GL_LIMIT },
        'lines per page (default 1000)',
      ),
      query('cursor', str, 'next_cursor of the page before'),
    ],
    status: 200,
    schema: 'GeneralLedgerPage',
  },
  'GET /v1/gl-accounts': { status: 200, schema: 'GlAccountList' },
  'GET /v1/audit-events': {
    parameters: [
      query('since', date, 'events on or after this day (UTC)'),
      query('until', date, 'events on or before this day (UTC)'),
      query('actor', str, "one actor's events (key:ID NAME, cli:USER)"),
      query('action', str, 'one kind of event (entry.posted, lock_date.set…)'),
      query('object', str, 'events naming this id or number'),
      query(
        'limit',
        { type: 'integer', minimum: 1, maximum: MAX_AUDIT_LIMIT },
        'events per page (default 100)',
      ),
      query('cursor', str, 'next_cursor of the page before'),
    ],
    status: 200,
    schema: 'AuditEventPage',
  },
  'GET /v1/tags': { status: 200, schema: 'TagList' },
  'GET /v1/counterparties': { status: 200, schema: 'CounterpartyList' },
  'GET /v1/entity': { status: 200, schema: 'Entity' },
  'GET /v1/openapi.json': { status: 200, schema: 'OpenApi' },
};

/** Tags as a request gives them (docs/close.md, "Tags"). */
const tagsSchema = (whose: string): Schema => ({
  type: 'object',
  description: `tags of ${whose}: lower-case keys, 1 to 64 characters of text each, at most 10`,
  maxProperties: 10,
  propertyNames: { pattern: '^[a-z][a-z0-9_-]{0,31}$' },
  additionalProperties: { type: 'string', minLength: 1, maxLength: 64 },
});

const REQUESTS: Record<string, Schema> = {
  JournalEntryRequest: {
    type: 'object',
    required: ['entry_date', 'lines'],
    properties: {
      entry_date: date,
      je_number: str,
      memo: str,
      is_adjusting: bool,
      manual_entry_reason: str,
      auto_reverse_on: {
        ...date,
        description: 'post the reversal with the entry, on this date, linked (docs/close.md)',
      },
      tags: tagsSchema('the entry'),
      lines: arrayOf({
        type: 'object',
        required: ['gl_account_id', 'line_type'],
        properties: {
          gl_account_id: str,
          line_type: { enum: ['debit', 'credit'] },
          amount_atoms: {
            type: 'integer',
            minimum: 1,
            description:
              'the functional amount; on a foreign line it may be left to fx (rate given, or the rate table)',
          },
          memo: str,
          counterparty_type: { enum: ['customer', 'vendor', 'employee'] },
          counterparty_external_id: str,
          tags: tagsSchema("the line's own, over the entry's key by key"),
          fx: {
            type: 'object',
            description:
              'on a line of an account kept in another currency (required there, refused elsewhere): ' +
              "the amount in the account's currency and, optionally, the rate (functional units per foreign unit)",
            required: ['currency', 'amount_atoms'],
            properties: {
              currency: str,
              amount_atoms: { type: 'integer', minimum: 0 },
              rate: { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
            },
            additionalProperties: false,
          },
        },
      }),
    },
  },
  ReverseRequest: { type: 'object', properties: { entry_date: date }, additionalProperties: false },
  OpenApi: { type: 'object', required: ['openapi', 'paths'] },
};

/** What a route takes and answers, whichever table describes it. */
export const operationOf = (method: string, path: string) =>
  OPERATIONS[`${method} ${path}`] ??
  RECONCILE_OPERATIONS[`${method} ${path}`] ??
  PLAN_OPERATIONS[`${method} ${path}`] ??
  FX_OPERATIONS[`${method} ${path}`];

const ERRORS = {
  400: 'bad request',
  401: 'no valid key (CAPI11)',
  403: 'the key lacks the permission (CAPI71)',
  404: 'no such entry, account, reconciliation or recurring entry',
  409: 'conflict (CAPI67, CAPI73, a repeated key)',
  422: "refused by reconciliation's rules (reconcile_refused)",
  503: 'unavailable; retry after Retry-After',
};

/** The description of these routes. */
export function openApi(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const op = operationOf(r.method, r.path)!;
    const content = (schema: string, type = 'application/json') => ({
      content: { [type]: { schema: ref(schema) } },
    });
    const errors = Object.fromEntries(
      Object.entries(ERRORS).map(([status, description]) => [
        status,
        { description, ...content('Problem', 'application/problem+json') },
      ]),
    );
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      summary: r.summary,
      ...(r.permission
        ? { security: [{ bearer: [] }], 'x-permission': r.permission }
        : { security: [] }),
      ...(op.parameters ? { parameters: op.parameters } : {}),
      ...(op.body ? { requestBody: { required: true, ...content(op.body) } } : {}),
      responses: {
        [op.status]: { description: 'success', ...content(op.schema) },
        ...(r.permission ? errors : {}),
      },
    };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'books serve',
      version: '1',
      description: 'The accounting API over a books ledger. Amounts are integer atoms.',
    },
    paths,
    components: {
      schemas: {
        ...SCHEMAS,
        ...RECONCILE_SCHEMAS,
        ...PLAN_SCHEMAS,
        ...FX_SCHEMAS,
        ...REQUESTS,
        ...RECONCILE_REQUESTS,
        ...PLAN_REQUESTS,
        ...FX_REQUESTS,
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}
