import type { AccountType } from './accounts.js';
import { convert, parseRate } from './fx.js';
import { toJsonInteger } from './money.js';

/**
 * Foreign balances at a date and what they are worth at its closing rates (docs/currency.md,
 * "Revaluation"): `books report fx` shows it, `books fx revalue` posts its differences. A pure
 * function of the balances and the rates.
 */

/** Accounts revalued at period end; fixed assets, inventory, prepaid expenses and equity are not. */
export const MONETARY_TYPES: ReadonlySet<AccountType> = new Set([
  'bank',
  'accounts_receivable',
  'accounts_payable',
  'credit_card',
  'other_current_liability',
  'long_term_liability',
  'other_current_asset',
  'other_asset',
]);

/** Receivables and payables are revalued per counterparty. */
const BY_COUNTERPARTY: ReadonlySet<AccountType> = new Set([
  'accounts_receivable',
  'accounts_payable',
]);

/** The foreign lines of an account (and counterparty) summed through the date, as a store reads them. */
export interface FxBalanceRow {
  account_key: number;
  account_id: string;
  external_id: string;
  account_number: string | null;
  account_name: string;
  account_type: AccountType;
  /** The chart's word on revaluing it; null: as its type says. */
  monetary: boolean | null;
  currency: string;
  counterparty_type: string | null;
  counterparty_external_id: string | null;
  counterparty_name: string | null;
  /** Debits minus credits, in the account's currency. */
  foreign: bigint;
  /** Debits minus credits, functional: the carrying balance. */
  functional: bigint;
}

export interface ExposureRow {
  account_id: string;
  gl_account_id: string;
  account_number: string | null;
  account_name: string;
  counterparty_type: string | null;
  counterparty_external_id: string | null;
  counterparty_name: string | null;
  currency: string;
  /** Debit positive, as the trial balance's net. */
  foreign_balance_atoms: number | bigint;
  carrying_atoms: number | bigint;
  /** The closing rate (the latest on or before the date); null when the table has none. */
  rate: string | null;
  value_atoms: number | bigint | null;
  unrealized_atoms: number | bigint | null;
}

export interface CurrencyTotal {
  currency: string;
  rate: string | null;
  foreign_balance_atoms: number | bigint;
  carrying_atoms: number | bigint;
  value_atoms: number | bigint | null;
  unrealized_atoms: number | bigint | null;
}

export interface FxExposure {
  object: 'fx_exposure';
  as_of: string;
  reporting_currency: string;
  rows: ExposureRow[];
  currencies: CurrencyTotal[];
  totals: {
    carrying_atoms: number | bigint;
    value_atoms: number | bigint | null;
    unrealized_atoms: number | bigint | null;
  };
  /** Currencies with a balance and no rate on or before the date. */
  missing_rates: string[];
}

/** A row's worth, exactly: the value at the rate of the foreign balance and its difference. */
interface Exact {
  row: FxBalanceRow;
  rate: string | null;
  value: bigint | null;
}

/**
 * The exposure at `asOf`: per monetary foreign account (per counterparty on receivables and
 * payables) its foreign and carrying balances, the closing rate, the value at it and the unrealised
 * gain or loss (value minus carrying); totals per currency and overall. Rows with neither balance
 * are left out.
 */
export function fxExposure(
  balances: readonly FxBalanceRow[],
  rateOf: (currency: string) => string | undefined,
  asOf: string,
  functional: string,
): FxExposure {
  const exact = merged(balances)
    .filter(
      (r) =>
        (r.monetary ?? MONETARY_TYPES.has(r.account_type)) &&
        (r.foreign !== 0n || r.functional !== 0n),
    )
    .map((row): Exact => {
      const rate = rateOf(row.currency) ?? null;
      const parsed = rate === null ? null : parseRate(rate);
      const magnitude = row.foreign < 0n ? -row.foreign : row.foreign;
      const value =
        parsed && parsed.ok
          ? (row.foreign < 0n ? -1n : 1n) *
            convert(magnitude, parsed.rate, row.currency, functional)
          : null;
      return { row, rate, value };
    });
  const j = toJsonInteger;
  const rows = exact.map(({ row, rate, value }) => ({
    account_id: row.account_id,
    gl_account_id: row.external_id,
    account_number: row.account_number,
    account_name: row.account_name,
    counterparty_type: row.counterparty_type,
    counterparty_external_id: row.counterparty_external_id,
    counterparty_name: row.counterparty_name,
    currency: row.currency,
    foreign_balance_atoms: j(row.foreign),
    carrying_atoms: j(row.functional),
    rate,
    value_atoms: value === null ? null : j(value),
    unrealized_atoms: value === null ? null : j(value - row.functional),
  }));
  const byCurrency = new Map<string, Exact[]>();
  for (const e of exact) {
    const list = byCurrency.get(e.row.currency) ?? [];
    list.push(e);
    byCurrency.set(e.row.currency, list);
  }
  const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
  const currencies = [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, list]): CurrencyTotal => {
      const known = list.every((e) => e.value !== null);
      const carrying = sum(list.map((e) => e.row.functional));
      const value = known ? sum(list.map((e) => e.value!)) : null;
      return {
        currency,
        rate: list[0]!.rate,
        foreign_balance_atoms: j(sum(list.map((e) => e.row.foreign))),
        carrying_atoms: j(carrying),
        value_atoms: value === null ? null : j(value),
        unrealized_atoms: value === null ? null : j(value - carrying),
      };
    });
  const known = exact.every((e) => e.value !== null);
  const carrying = sum(exact.map((e) => e.row.functional));
  const value = known ? sum(exact.map((e) => e.value!)) : null;
  return {
    object: 'fx_exposure',
    as_of: asOf,
    reporting_currency: functional,
    rows,
    currencies,
    totals: {
      carrying_atoms: j(carrying),
      value_atoms: value === null ? null : j(value),
      unrealized_atoms: value === null ? null : j(value - carrying),
    },
    missing_rates: currencies.filter((c) => c.rate === null).map((c) => c.currency),
  };
}

/** Rows of an account that is not revalued per counterparty, made one; the others as they are. */
function merged(balances: readonly FxBalanceRow[]): FxBalanceRow[] {
  const out = new Map<string, FxBalanceRow>();
  for (const b of balances) {
    const per = BY_COUNTERPARTY.has(b.account_type);
    const key = per
      ? `${b.account_key}\u0000${b.counterparty_type}\u0000${b.counterparty_external_id}`
      : `${b.account_key}`;
    const had = out.get(key);
    if (!had)
      out.set(
        key,
        per
          ? { ...b }
          : {
              ...b,
              counterparty_type: null,
              counterparty_external_id: null,
              counterparty_name: null,
            },
      );
    else {
      had.foreign += b.foreign;
      had.functional += b.functional;
    }
  }
  return [...out.values()].sort((a, b) =>
    a.external_id === b.external_id
      ? (a.counterparty_external_id ?? '') < (b.counterparty_external_id ?? '')
        ? -1
        : 1
      : a.external_id < b.external_id
        ? -1
        : 1,
  );
}

/**
 * The revaluation entry's request body at `asOf` (docs/currency.md): a line per row whose value
 * differs from its carrying balance, for the difference, functional only (its foreign amount 0),
 * balanced on the unrealised gain/loss account; adjusting, reversed on the next day. Null when no
 * row differs.
 */
export function revaluationBody(
  e: FxExposure,
  unrealized: string,
  reverseOn: string,
): Record<string, unknown> | null {
  const lines: Record<string, unknown>[] = [];
  let net = 0n;
  for (const r of e.rows) {
    const diff = BigInt(r.unrealized_atoms!);
    if (diff === 0n) continue;
    net += diff;
    lines.push({
      gl_account_id: r.gl_account_id,
      line_type: diff > 0n ? 'debit' : 'credit',
      amount_atoms: Number(diff > 0n ? diff : -diff),
      fx: { currency: r.currency, amount_atoms: 0 },
      ...(r.counterparty_type
        ? {
            counterparty_type: r.counterparty_type,
            counterparty_external_id: r.counterparty_external_id,
          }
        : {}),
    });
  }
  if (!lines.length) return null;
  if (net !== 0n)
    lines.push({
      gl_account_id: unrealized,
      line_type: net > 0n ? 'credit' : 'debit',
      amount_atoms: Number(net > 0n ? net : -net),
    });
  return {
    entry_date: e.as_of,
    memo: `Revaluation of foreign balances at ${e.as_of}`,
    is_adjusting: true,
    auto_reverse_on: reverseOn,
    lines,
  };
}
