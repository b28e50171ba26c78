import {
  arrayOf,
  bool,
  date,
  dateOrNull,
  int,
  obj,
  query,
  ref,
  str,
  strOrNull,
  type Schema,
} from './openapiSchemas.js';

/** The OpenAPI parts of the close's plans (docs/close.md): aging, budgets, recurring entries. */

const atoms = int;
const intOrNull: Schema = { type: ['integer', 'null'] };
const cells: Schema = { type: 'object', additionalProperties: atoms };

const template = obj({
  name: str,
  every: { enum: ['month', 'quarter', 'year', 'week'] },
  day: intOrNull,
  start_date: date,
  end_date: { type: ['string', 'null'] },
  entry: { type: 'object' },
  created_at: str,
});

export const PLAN_SCHEMAS: Record<string, Schema> = {
  Comparison: obj({
    period: str,
    against: str,
    kind: { enum: ['previous-period', 'previous-year', 'budget'] },
  }),
  Aging: obj({
    as_of: date,
    type: { enum: ['receivable', 'payable'] },
    reporting_currency: str,
    buckets: arrayOf(obj({ id: str, min_days: intOrNull, max_days: intOrNull })),
    rows: arrayOf(
      obj({
        counterparty_type: strOrNull,
        counterparty_external_id: strOrNull,
        name: str,
        amounts: cells,
        unapplied: atoms,
        total: atoms,
        items: arrayOf(
          obj({
            entry_id: str,
            je_number: str,
            entry_date: date,
            due_date: dateOrNull,
            days: int,
            bucket: str,
            account_id: str,
            memo: strOrNull,
            original_atoms: atoms,
            open_atoms: atoms,
          }),
        ),
      }),
    ),
    totals: obj({ amounts: cells, unapplied: atoms, total: atoms }),
  }),
  ImportCounts: obj({ created: int, updated: int, unchanged: int }),
  BudgetList: arrayOf(obj({ gl_account_id: str, period: str, amount_atoms: atoms })),
  RecurringEntry: template,
  RecurringEntryList: arrayOf(ref('RecurringEntry')),
  RecurringRun: obj({
    through: date,
    dry_run: bool,
    posted: arrayOf(obj({ name: str, date, je_number: strOrNull, entry_id: strOrNull })),
    skipped: arrayOf(obj({ name: str, date, reason: str })),
    already_posted: int,
  }),
};

export const PLAN_REQUESTS: Record<string, Schema> = {
  BudgetImportRequest: {
    type: 'object',
    required: ['rows'],
    properties: {
      rows: arrayOf({
        type: 'object',
        required: ['gl_account_id', 'period', 'amount_atoms'],
        properties: { row: int, gl_account_id: str, period: str, amount_atoms: atoms },
      }),
    },
  },
  RecurringEntryRequest: {
    type: 'object',
    required: ['name', 'every', 'start_date', 'entry'],
    properties: {
      name: str,
      every: { enum: ['month', 'quarter', 'year', 'week'] },
      day: intOrNull,
      start_date: date,
      end_date: { type: ['string', 'null'] },
      entry: { type: 'object', description: 'a JournalEntryRequest without entry_date' },
    },
  },
  RecurringRemoveRequest: { type: 'object', required: ['name'], properties: { name: str } },
  RecurringRunRequest: {
    type: 'object',
    required: ['through'],
    properties: { through: date, dry_run: bool },
  },
};

export const PLAN_OPERATIONS: Record<
  string,
  { parameters?: unknown[]; body?: string; status: number; schema: string }
> = {
  'GET /v1/reports/aging': {
    parameters: [
      query('type', { enum: ['receivable', 'payable'] }, 'receivables or payables', true),
      query('as_of', date, 'the date the items are aged at', true),
      query('buckets', str, 'day limits, comma-separated (default 30,60,90)'),
      query('due_days', int, 'age from the entry date plus these days, with a current column'),
      query('counterparty', str, 'TYPE:ID: one counterparty'),
      {
        ...query(
          'account',
          arrayOf(str),
          'accounts (default every receivable, resp. payable, one)',
        ),
        style: 'form',
        explode: true,
      },
    ],
    status: 200,
    schema: 'Aging',
  },
  'POST /v1/budgets': { body: 'BudgetImportRequest', status: 200, schema: 'ImportCounts' },
  'GET /v1/budgets': { status: 200, schema: 'BudgetList' },
  'POST /v1/recurring-entries': {
    body: 'RecurringEntryRequest',
    status: 200,
    schema: 'RecurringEntry',
  },
  'GET /v1/recurring-entries': { status: 200, schema: 'RecurringEntryList' },
  'POST /v1/recurring-entries/remove': {
    body: 'RecurringRemoveRequest',
    status: 200,
    schema: 'RecurringEntry',
  },
  'POST /v1/recurring-entries/run': {
    body: 'RecurringRunRequest',
    status: 200,
    schema: 'RecurringRun',
  },
};
