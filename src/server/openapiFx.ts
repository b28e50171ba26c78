import { arrayOf, bool, date, int, obj, query, type Schema } from './openapiSchemas.js';

/** The OpenAPI parts of foreign currencies (docs/currency.md): the rate table, exposure, revaluation. */

const rate: Schema = {
  type: 'string',
  pattern: '^\\d+(\\.\\d+)?$',
  description: 'functional units per one foreign unit',
};
const currency: Schema = { type: 'string', pattern: '^[A-Z]{3}$' };

export const FX_SCHEMAS: Record<string, Schema> = {
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
};
