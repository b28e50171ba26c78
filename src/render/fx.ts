import type { FxExposure } from '../domain/fxExposure.js';
import { atomsToDecimal, exponentOf, formatAmount } from '../domain/money.js';
import { csvLine } from './csv.js';
import { grid } from './table.js';

const FX_CSV_COLUMNS = [
  'gl_account_id',
  'account_number',
  'account_name',
  'counterparty_type',
  'counterparty_external_id',
  'currency',
  'foreign_balance',
  'carrying',
  'rate',
  'value',
  'unrealized',
];

const amount = (v: number | bigint | null, exponent: number, plain: boolean) =>
  v === null ? '' : plain ? atomsToDecimal(v, exponent) : formatAmount(v, exponent);

/** `books report fx` as a table: a row per account (and counterparty), totals per currency and all. */
export function fxTable(e: FxExposure, title: string): string {
  const f = exponentOf(e.reporting_currency);
  const rows = e.rows.map((r) => [
    `${r.account_number ?? r.gl_account_id} ${r.account_name}`,
    r.counterparty_external_id ? `${r.counterparty_type}:${r.counterparty_external_id}` : '',
    r.currency,
    amount(r.foreign_balance_atoms, exponentOf(r.currency), false),
    amount(r.carrying_atoms, f, false),
    r.rate ?? 'no rate',
    amount(r.value_atoms, f, false),
    amount(r.unrealized_atoms, f, false),
  ]);
  for (const c of e.currencies)
    rows.push([
      `Total ${c.currency}`,
      '',
      c.currency,
      amount(c.foreign_balance_atoms, exponentOf(c.currency), false),
      amount(c.carrying_atoms, f, false),
      c.rate ?? 'no rate',
      amount(c.value_atoms, f, false),
      amount(c.unrealized_atoms, f, false),
    ]);
  rows.push([
    'Total',
    '',
    '',
    '',
    amount(e.totals.carrying_atoms, f, false),
    '',
    amount(e.totals.value_atoms, f, false),
    amount(e.totals.unrealized_atoms, f, false),
  ]);
  const head = `${title}\nForeign currency exposure\nAs of ${e.as_of} · ${e.reporting_currency}\n\n`;
  if (!e.rows.length) return `${head}No foreign balances.\n`;
  const table = grid(
    [
      'Account',
      'Counterparty',
      'Currency',
      'Foreign balance',
      'Carrying',
      'Rate',
      'Value',
      'Unrealized',
    ],
    rows,
    ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'right'],
  );
  const missing = e.missing_rates.length
    ? `\nNo rate on or before ${e.as_of} for ${e.missing_rates.join(', ')}: add one (books rates add).\n`
    : '';
  return `${head}${table}\n${missing}`;
}

/** `books report fx --format csv`: one row per account (and counterparty), plain decimals. */
export function fxCsv(e: FxExposure, atoms: boolean): string {
  const f = exponentOf(e.reporting_currency);
  const cell = (v: number | bigint | null, exponent: number) =>
    v === null ? '' : atoms ? String(v) : atomsToDecimal(v, exponent);
  const rows = e.rows.map((r) =>
    csvLine([
      r.gl_account_id,
      r.account_number ?? '',
      r.account_name,
      r.counterparty_type ?? '',
      r.counterparty_external_id ?? '',
      r.currency,
      cell(r.foreign_balance_atoms, exponentOf(r.currency)),
      cell(r.carrying_atoms, f),
      r.rate ?? '',
      cell(r.value_atoms, f),
      cell(r.unrealized_atoms, f),
    ]),
  );
  return [csvLine(FX_CSV_COLUMNS), ...rows].join('\n') + '\n';
}
