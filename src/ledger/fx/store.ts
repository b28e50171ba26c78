import type { ExchangeRate } from '../../domain/rates.js';

/** What foreign currencies read of a store, inside one of its transactions. */
export interface FxReads {
  /** The rates kept, by currency then date, within the filter. */
  rates(filter: { currency?: string; start?: string; end?: string }): Promise<ExchangeRate[]>;
}

/** What they write, inside a write transaction that holds the entity's lock. */
export interface FxWrites extends FxReads {
  /** Adds rates; those of `replacing` (by date and currency) are removed first. */
  setRates(rates: ExchangeRate[], replacing: ExchangeRate[]): Promise<void>;
}

/** Transactions with the rate table. */
export interface FxReadTx {
  fx: FxReads;
}
export interface FxWriteTx {
  fx: FxWrites;
}
