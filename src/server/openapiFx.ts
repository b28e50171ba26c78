import { arrayOf, bool, date, int, obj, query, type Schema } from './openapiSchemas.js';

/** The OpenAPI parts of foreign currencies (docs/currency.md): the rate table, exposure, revaluation. */

const rate: Schema = {
  type: 'string',
  pattern: '^\\d+(\\.\\d+)?$',
  description: 'functional units per one foreign unit',
};
const currency: Schema = { type: 'string', pattern: '^[A-Z]{3}$' };

const atoms: Schema = { type: 'integer' };
const atomsOrNull: Schema = { type: ['integer', 'null'] };
const rateOrNull: Schema = { type: ['string', 'null'] };
const strOrNull: Schema = { type: ['string', 'null'] };

export const FX_SCHEMAS: Record<string, Schema> = {
  FxExposure: obj({
    object: { const: 'fx_exposure' },
    as_of: date,
    reporting_currency: currency,
    rows: arrayOf(
      obj({
        account_id: { type: 'string' },
        gl_account_id: { type: 'string' },
        account_number: strOrNull,
        account_name: { type: 'string' },
        counterparty_type: strOrNull,
        counterparty_external_id: strOrNull,
        counterparty_name: strOrNull,
        currency,
        foreign_balance_atoms: atoms,
        carrying_atoms: atoms,
        rate: rateOrNull,
        value_atoms: atomsOrNull,
        unrealized_atoms: atomsOrNull,
      }),
    ),
    currencies: arrayOf(
      obj({
        currency,
        rate: rateOrNull,
        foreign_balance_atoms: atoms,
        carrying_atoms: atoms,
        value_atoms: atomsOrNull,
        unrealized_atoms: atomsOrNull,
      }),
    ),
    totals: obj({ carrying_atoms: atoms, value_atoms: atomsOrNull, unrealized_atoms: atomsOrNull }),
    missing_rates: arrayOf(currency),
  }),
  Revaluation: obj({
    as_of: date,
    dry_run: bool,
    status: { enum: ['posted', 'would_post', 'already_revalued', 'nothing'] },
    entry: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/JournalEntry' }] },
    je_number: strOrNull,
    revalued_before: arrayOf({ type: 'string' }),
    exposure: { $ref: '#/components/schemas/FxExposure' },
  }),
  ForeignBalances: obj({
    object: { const: 'list' },
    data: arrayOf(
      obj({
        as_of: date,
        accounts: arrayOf(
          obj({
            account_id: { type: 'string' },
            gl_account_id: { type: 'string' },
            foreign_currency: currency,
            foreign_balance_atoms: atoms,
          }),
        ),
      }),
    ),
  }),
  FxAccounts: obj({ fx_realized: { type: 'string' }, fx_unrealized: { type: 'string' } }),
  ExchangeRateList: obj({
    object: { const: 'list' },
    data: arrayOf(obj({ date, currency, rate })),
  }),
  RatesImported: obj({
    created: int,
    updated: int,
    unchanged: int,
    replaced: arrayOf(obj({ row: int, date, currency, was: rate, rate })),
  }),
};

export const FX_REQUESTS: Record<string, Schema> = {
  ExchangeRatesRequest: {
    type: 'object',
    required: ['rows'],
    properties: {
      rows: arrayOf({
        type: 'object',
        required: ['date', 'currency', 'rate'],
        properties: { row: int, date, currency, rate },
      }),
      replace: bool,
    },
  },
  RevalueRequest: {
    type: 'object',
    required: ['as_of'],
    properties: { as_of: date, dry_run: bool },
    additionalProperties: false,
  },
  FxAccountsRequest: {
    type: 'object',
    properties: {
      fx_realized: {
        type: ['string', 'null'],
        description: "null: the standard chart's fx-realized",
      },
      fx_unrealized: {
        type: ['string', 'null'],
        description: "null: the standard chart's fx-unrealized",
      },
    },
    additionalProperties: false,
  },
};

export const FX_OPERATIONS: Record<
  string,
  { parameters?: unknown[]; body?: string; status: number; schema: string }
> = {
  'POST /v1/exchange-rates': { body: 'ExchangeRatesRequest', status: 200, schema: 'RatesImported' },
  'GET /v1/exchange-rates': {
    parameters: [
      query('currency', currency, 'one currency'),
      query('start', date, 'from this date'),
      query('end', date, 'through this date'),
    ],
    status: 200,
    schema: 'ExchangeRateList',
  },
  'GET /v1/fx/balances': {
    parameters: [
      query(
        'as_of',
        { type: 'string' },
        'the dates of the balances, comma-separated (YYYY-MM-DD)',
        true,
      ),
      query('counterparty', { type: 'string' }, 'TYPE:ID: the lines naming that counterparty only'),
    ],
    status: 200,
    schema: 'ForeignBalances',
  },
  'GET /v1/reports/fx-exposure': {
    parameters: [query('as_of', date, 'the date of the balances and of the closing rates', true)],
    status: 200,
    schema: 'FxExposure',
  },
  'POST /v1/fx/revalue': { body: 'RevalueRequest', status: 200, schema: 'Revaluation' },
  'POST /v1/fx/accounts': { body: 'FxAccountsRequest', status: 200, schema: 'FxAccounts' },
};
