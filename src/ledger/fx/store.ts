import type { FxBalanceRow } from '../../domain/fxExposure.js';
import type { ExchangeRate } from '../../domain/rates.js';

/** What foreign currencies read of a store, inside one of its transactions. */
export interface FxReads {
  /** The rates kept, by currency then date, within the filter. */
  rates(filter: { currency?: string; start?: string; end?: string }): Promise<ExchangeRate[]>;
  /** The rate for a date: the latest on or before it. */
  rateOn(currency: string, date: string): Promise<string | undefined>;
  /** The dates revaluations were posted on (entries of source fx_revaluation). */
  revaluationDates(): Promise<string[]>;
  /** The foreign lines summed through each date by account, counterparty and currency. */
  balances(dates: string[]): Promise<Map<string, FxBalanceRow[]>>;
}

/** What they write, inside a write transaction that holds the entity's lock. */
export interface FxWrites extends FxReads {
  /** Adds rates; those of `replacing` (by date and currency) are removed first. */
  setRates(rates: ExchangeRate[], replacing: ExchangeRate[]): Promise<void>;
  /** Sets the entity's exchange gain/loss accounts (external ids; null: the standard chart's). */
  setAccounts(realized: string | null, unrealized: string | null): Promise<void>;
}

/** Transactions with the rate table. */
export interface FxReadTx {
  fx: FxReads;
}
export interface FxWriteTx {
  fx: FxWrites;
}
