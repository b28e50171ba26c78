import {
  arrayOf,
  bool,
  date,
  int,
  obj,
  ref,
  str,
  strOrNull,
  type Schema,
} from './openapiSchemas.js';

/** The OpenAPI parts of reconciliation's routes (docs/reconciliation.md): answers, requests, operations. */

const intOrNull: Schema = { type: ['integer', 'null'] };
const account = { name: 'account', in: 'query', required: true, schema: str };

const reconLine = obj({
  line_id: str,
  entry_id: str,
  je_number: str,
  entry_date: date,
  memo: strOrNull,
  line_memo: strOrNull,
  counterparty_name: strOrNull,
  amount_atoms: int,
  state: { enum: ['uncleared', 'cleared', 'reconciled'] },
  cleared_date: { type: ['string', 'null'] },
});
const statementLine = obj({
  id: str,
  account_id: str,
  date,
  amount_atoms: int,
  description: strOrNull,
  reference: strOrNull,
  bank_id: strOrNull,
  state: { enum: ['unmatched', 'matched', 'ignored'] },
  line_ids: arrayOf(str),
  reconciliation_id: strOrNull,
});
const reconciliation = obj({
  id: str,
  account_id: str,
  statement_date: date,
  statement_balance_atoms: int,
  line_count: int,
  finished_at: str,
});
const group = obj({ total: int, lines: arrayOf(ref('ReconLine')) });

export const RECONCILE_SCHEMAS: Record<string, Schema> = {
  ReconLine: reconLine,
  LineStates: {
    type: 'object',
    additionalProperties: obj({
      state: { enum: ['cleared', 'reconciled'] },
      cleared_date: date,
    }),
  },
  StatementLine: statementLine,
  Reconciliation: reconciliation,
  ReconciliationList: arrayOf(ref('Reconciliation')),
  StatementImport: obj({
    imported: int,
    skipped: int,
    start: date,
    end: date,
    closing_balance: intOrNull,
  }),
  StatementSource: {
    type: 'object',
    required: ['account_id', 'layout', 'statement_account'],
    properties: {
      account_id: str,
      layout: { oneOf: [ref('StatementLayout'), { type: 'null' }] },
      statement_account: { oneOf: [obj({ acctid: str, bankid: strOrNull }), { type: 'null' }] },
      forgotten: { oneOf: [ref('StatementLayout'), { type: 'null' }] },
    },
  },
  StatementLayout: {
    type: 'object',
    properties: {
      map: arrayOf(arrayOf(str)),
      skip_rows: int,
      no_header: bool,
      delimiter: str,
      encoding: str,
      date_format: str,
      decimal_comma: bool,
      negate: bool,
    },
  },
  MatchOutcome: obj({
    matched: arrayOf({
      type: 'object',
      required: ['statement_line_id', 'line_ids', 'days'],
      properties: {
        statement_line_id: str,
        line_ids: arrayOf(str),
        days: int,
        date,
        amount_atoms: int,
        description: strOrNull,
        ledger_lines: arrayOf(str),
      },
    }),
    unmatched_statement_lines: arrayOf(ref('StatementLine')),
    uncleared_lines: arrayOf(ref('ReconLine')),
  }),
  ClearOutcome: obj({ line_ids: arrayOf(str), state: { enum: ['cleared', 'uncleared'] } }),
  CreateOutcome: obj({
    created: arrayOf(obj({ statement_line_id: str, je_number: str, entry_id: str, line_id: str })),
    left: arrayOf(str),
  }),
  ReconcileStatus: obj({
    account_id: str,
    last_reconciliation: { oneOf: [ref('Reconciliation'), { type: 'null' }] },
    statement: { oneOf: [obj({ date, balance_atoms: int }), { type: 'null' }] },
    through: { type: ['string', 'null'] },
    cleared_balance: intOrNull,
    difference: intOrNull,
    matched: int,
    unmatched_statement_lines: arrayOf(ref('StatementLine')),
    ignored_statement_lines: arrayOf(ref('StatementLine')),
    uncleared_lines: arrayOf(ref('ReconLine')),
    reversed_pairs: arrayOf(arrayOf(ref('ReconLine'))),
  }),
  ReconciliationReport: obj({
    account_id: str,
    statement_date: date,
    status: { enum: ['finished', 'draft'] },
    statement_balance: intOrNull,
    cleared_balance: int,
    difference: intOrNull,
    book_balance: int,
    outstanding_debits: group,
    outstanding_credits: group,
    cleared_after_date: group,
    reversed_pairs: arrayOf(arrayOf(ref('ReconLine'))),
    unmatched_statement_lines: arrayOf(ref('StatementLine')),
    ignored_statement_lines: arrayOf(ref('StatementLine')),
  }),
};

const body = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  required: ['account', ...required],
  properties: { account: str, ...properties },
});

export const RECONCILE_REQUESTS: Record<string, Schema> = {
  StatementImportRequest: body(
    {
      statement: {
        type: 'object',
        required: ['lines'],
        properties: {
          lines: arrayOf({
            type: 'object',
            required: ['date', 'amount_atoms'],
            properties: {
              row: int,
              date,
              amount_atoms: int,
              description: strOrNull,
              reference: strOrNull,
              bank_id: strOrNull,
              balance_atoms: intOrNull,
            },
          }),
          closing: { oneOf: [obj({ date, balance_atoms: int }), { type: 'null' }] },
        },
      },
      dry_run: bool,
      file: str,
      source: {
        type: ['object', 'null'],
        properties: {
          type: { enum: ['bank', 'credit_card', null] },
          acctid: strOrNull,
          bankid: strOrNull,
          currency: strOrNull,
        },
      },
      layout: { oneOf: [ref('StatementLayout'), { type: 'null' }] },
      ofx_account_change: bool,
    },
    ['statement'],
  ),
  MatchRequest: body({
    window_days: int,
    dry_run: bool,
    describe: bool,
    statement_line_id: str,
    line_ids: arrayOf(str),
  }),
  StatementLineRequest: body({ statement_line_id: str }, ['statement_line_id']),
  ClearRequest: body({ line_ids: arrayOf(str), unclear: bool }, ['line_ids']),
  CreateRequest: body({
    statement_line_id: str,
    offset_account: str,
    counterparty: strOrNull,
    memo: strOrNull,
    rules: arrayOf({
      type: 'object',
      required: ['pattern', 'offset_account'],
      properties: {
        row: int,
        pattern: str,
        offset_account: str,
        counterparty: strOrNull,
        memo: strOrNull,
      },
    }),
    dry_run: bool,
  }),
  FinishRequest: body({ statement_date: date, statement_balance_atoms: int }),
  UndoRequest: body({ id: str }),
  AccountRequest: body({}),
};

export const RECONCILE_OPERATIONS: Record<
  string,
  { parameters?: unknown[]; body?: string; status: number; schema: string }
> = {
  'POST /v1/reconciliation/statement-lines': {
    body: 'StatementImportRequest',
    status: 200,
    schema: 'StatementImport',
  },
  'GET /v1/reconciliation/layout': {
    parameters: [account],
    status: 200,
    schema: 'StatementSource',
  },
  'POST /v1/reconciliation/layout/forget': {
    body: 'AccountRequest',
    status: 200,
    schema: 'StatementSource',
  },
  'POST /v1/reconciliation/match': { body: 'MatchRequest', status: 200, schema: 'MatchOutcome' },
  'POST /v1/reconciliation/unmatch': {
    body: 'StatementLineRequest',
    status: 200,
    schema: 'StatementLine',
  },
  'POST /v1/reconciliation/clear': { body: 'ClearRequest', status: 200, schema: 'ClearOutcome' },
  'POST /v1/reconciliation/ignore': {
    body: 'StatementLineRequest',
    status: 200,
    schema: 'StatementLine',
  },
  'POST /v1/reconciliation/create': { body: 'CreateRequest', status: 200, schema: 'CreateOutcome' },
  'POST /v1/reconciliation/finish': {
    body: 'FinishRequest',
    status: 200,
    schema: 'Reconciliation',
  },
  'POST /v1/reconciliation/undo': { body: 'UndoRequest', status: 200, schema: 'Reconciliation' },
  'GET /v1/reconciliations': {
    parameters: [account],
    status: 200,
    schema: 'ReconciliationList',
  },
  'GET /v1/reconciliation/status': {
    parameters: [account],
    status: 200,
    schema: 'ReconcileStatus',
  },
  'GET /v1/reconciliation/line-states': {
    parameters: [
      {
        name: 'line_ids',
        in: 'query',
        required: false,
        schema: str,
        description: 'line ids, comma-separated (default: every cleared line)',
      },
    ],
    status: 200,
    schema: 'LineStates',
  },
  'GET /v1/reports/reconciliation': {
    parameters: [
      account,
      {
        name: 'statement_date',
        in: 'query',
        required: false,
        schema: date,
        description: 'the statement date (default: the latest finished reconciliation)',
      },
    ],
    status: 200,
    schema: 'ReconciliationReport',
  },
};
