import { MAX_GL_LIMIT } from './generalLedgerPage.js';
import type { Route } from './routes.js';

/**
 * The OpenAPI 3.1 description of `books serve`, served at GET /v1/openapi.json. Paths come from the
 * route table (method, path, summary, permission); this file adds what each takes and answers, as
 * JSON Schema 2020-12. A test holds every answer the contract suite sees to it.
 */

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const strOrNull: Schema = { type: ['string', 'null'] };
const int: Schema = { type: 'integer' };
const atomsOrNull: Schema = { type: ['integer', 'null'] };
const date: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const bool: Schema = { type: 'boolean' };
const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
const mapOf = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });

/** An object whose properties are all present and no other. */
function obj(properties: Record<string, Schema>, optional: string[] = []): Schema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', properties, required, additionalProperties: false };
}

const period = obj({ id: str, label: str, start_date: date, end_date: date });

const node = (amounts: string, own: string, self: string): Schema =>
  obj({
    account_id: strOrNull,
    account_number: strOrNull,
    name: str,
    is_postable: bool,
    account_kind: str,
    [amounts]: mapOf(atomsOrNull),
    [own]: mapOf(atomsOrNull),
    transaction_counts: mapOf(int),
    children: arrayOf(ref(self)),
  });

const line = obj({
  id: str,
  object: { const: 'journal_entry_line' },
  created_at: str,
  updated_at: str,
  is_deleted: bool,
  journal_entry_id: str,
  account_id: str,
  account_number: strOrNull,
  account_name: str,
  account_type: str,
  line_type: { enum: ['debit', 'credit'] },
  amount_atoms: int,
  memo: strOrNull,
  counterparty_type: strOrNull,
  counterparty_external_id: strOrNull,
  counterparty_name: strOrNull,
});

const journalEntry = obj({
  id: str,
  object: { const: 'journal_entry' },
  created_at: str,
  updated_at: str,
  is_deleted: bool,
  je_number: str,
  entry_date: date,
  memo: strOrNull,
  source: str,
  total_debit_atoms: int,
  total_credit_atoms: int,
  currency: str,
  lines: arrayOf(ref('JournalEntryLine')),
  status: str,
  manual_entry_reason: strOrNull,
  policy_key: strOrNull,
  tags: mapOf(str),
  attachments: arrayOf(obj({ url: str, filename: str, content_type: str })),
  is_adjusting: bool,
  entry_type_label: str,
  counterparty_name: strOrNull,
  source_description: strOrNull,
  source_svc_object: {
    oneOf: [
      { type: 'null' },
      obj({ object_type: str, object_external_id: str, display_number: str }),
    ],
  },
  original_journal_entry_id: strOrNull,
  original_journal_entry_date: { oneOf: [{ type: 'null' }, date] },
  reversed_by_journal_entry_ids: arrayOf(str),
});

const glLine = obj({
  entry_id: str,
  je_number: str,
  entry_date: date,
  memo: strOrNull,
  line_memo: strOrNull,
  counterparty_type: strOrNull,
  counterparty_external_id: strOrNull,
  counterparty_name: strOrNull,
  debit: atomsOrNull,
  credit: atomsOrNull,
  balance: int,
});

const glBlock = obj(
  {
    account_id: str,
    account_number: strOrNull,
    name: str,
    account_type: str,
    opening: atomsOrNull,
    lines: arrayOf(ref('GeneralLedgerLine')),
    closing: int,
    debit_total: int,
    credit_total: int,
  },
  ['closing', 'debit_total', 'credit_total'],
);

const glAccount = obj({
  id: str,
  object: { const: 'gl_account' },
  external_id: str,
  account_number: strOrNull,
  name: str,
  account_type: str,
  parent_id: strOrNull,
  is_postable: bool,
  is_active: bool,
  account_kind: str,
  currency: strOrNull,
  created_at: str,
  updated_at: str,
});

const problem: Schema = {
  type: 'object',
  properties: {
    type: str,
    title: str,
    status: int,
    code: str,
    detail: str,
    retryable: bool,
    errors: arrayOf(obj({ path: str, reason: str, message: str })),
  },
  required: ['type', 'title', 'status', 'code', 'detail', 'retryable', 'errors'],
};

export const SCHEMAS: Record<string, Schema> = {
  Problem: problem,
  JournalEntryLine: line,
  JournalEntry: journalEntry,
  BalanceSheetNode: node('balances', 'own_balances', 'BalanceSheetNode'),
  BalanceSheet: obj({
    periods: arrayOf(period),
    reporting_currency: str,
    sections: arrayOf(
      obj({
        account_type: { enum: ['assets', 'liabilities', 'equity'] },
        label: str,
        balances: mapOf(atomsOrNull),
        children: arrayOf(ref('BalanceSheetNode')),
      }),
    ),
  }),
  IncomeStatementNode: node('amounts', 'own_amounts', 'IncomeStatementNode'),
  IncomeStatement: obj({
    periods: arrayOf(period),
    reporting_currency: str,
    sections: arrayOf(
      obj({
        account_type: str,
        label: str,
        amounts: mapOf(atomsOrNull),
        children: arrayOf(ref('IncomeStatementNode')),
      }),
    ),
    summary: arrayOf(
      obj({
        account_kind: {
          enum: ['gross_profit', 'net_operating_income', 'net_other_income', 'net_income'],
        },
        label: str,
        amounts: mapOf(atomsOrNull),
      }),
    ),
  }),
  TrialBalance: obj({
    as_of: date,
    reporting_currency: str,
    fiscal_year_start: date,
    columns: arrayOf(str),
    rows: arrayOf({
      type: 'object',
      properties: {
        account_id: strOrNull,
        account_number: strOrNull,
        name: str,
        account_type: strOrNull,
        account_kind: { enum: ['regular', 'retained_earnings'] },
      },
      required: ['account_id', 'account_number', 'name', 'account_type', 'account_kind'],
      // The amount columns are those `columns` names: debit and credit, or the worksheet's six.
      additionalProperties: atomsOrNull,
    }),
    totals: mapOf(int),
  }),
  GeneralLedgerLine: glLine,
  GeneralLedgerPage: obj({
    object: { const: 'general_ledger_page' },
    start_date: date,
    end_date: date,
    accounts: arrayOf(glBlock),
    next_cursor: strOrNull,
  }),
  GlAccountList: obj({ object: { const: 'list' }, data: arrayOf(glAccount) }),
};

const query = (name: string, schema: Schema, description: string, required = false) => ({
  name,
  in: 'query',
  required,
  schema,
  description,
});
const window = [
  query('start_date', date, 'first day of the window', true),
  query('end_date', date, 'last day (at most 5 years after start_date, CAPI69)', true),
];
const periodType = query(
  'period_type',
  { enum: ['monthly', 'quarterly', 'yearly'] },
  'column grouping',
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
    ],
    body: 'JournalEntryRequest',
    status: 201,
    schema: 'JournalEntry',
  },
  'POST /v1/journal-entries/{id}/reverse': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: str }, idempotencyKey],
    body: 'ReverseRequest',
    status: 201,
    schema: 'JournalEntry',
  },
  'GET /v1/reports/balance-sheet': {
    parameters: [...window, periodType],
    status: 200,
    schema: 'BalanceSheet',
  },
  'GET /v1/reports/income-statement': {
    parameters: [...window, periodType],
    status: 200,
    schema: 'IncomeStatement',
  },
  'GET /v1/reports/trial-balance': {
    parameters: [
      query('as_of', date, 'the date of the balances', true),
      query(
        'adjustments',
        { enum: ['include', 'exclude', 'worksheet'] },
        'adjusting entries: in, out, or apart',
      ),
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
  'GET /v1/openapi.json': { status: 200, schema: 'OpenApi' },
};

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
      lines: arrayOf({
        type: 'object',
        required: ['gl_account_id', 'line_type', 'amount_atoms'],
        properties: {
          gl_account_id: str,
          line_type: { enum: ['debit', 'credit'] },
          amount_atoms: { type: 'integer', minimum: 1 },
          memo: str,
          counterparty_type: { enum: ['customer', 'vendor', 'employee'] },
          counterparty_external_id: str,
        },
      }),
    },
  },
  ReverseRequest: { type: 'object', properties: { entry_date: date }, additionalProperties: false },
  OpenApi: { type: 'object', required: ['openapi', 'paths'] },
};

const ERRORS = {
  400: 'bad request',
  401: 'no valid key (CAPI11)',
  403: 'the key lacks the permission (CAPI71)',
  409: 'conflict (CAPI67, CAPI73, a repeated key)',
  503: 'unavailable; retry after Retry-After',
};

/** The description of these routes. */
export function openApi(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const op = OPERATIONS[`${r.method} ${r.path}`]!;
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
      schemas: { ...SCHEMAS, ...REQUESTS },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}
