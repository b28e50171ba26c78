import type { ExchangeRate, RatesImported } from '../../domain/rates.js';

/** Foreign currencies on the port (docs/currency.md): the rate table. */
export interface FxOps {
  /**
   * Adds rates by date and currency. A row the same as the rate kept changes nothing; one that differs
   * is refused (by row) unless `replace`, which replaces it and says so. Refused whole on a problem.
   */
  importRates(a: {
    rows: { row?: number; date: string; currency: string; rate: string }[];
    replace?: boolean;
  }): Promise<RatesImported>;
  /** The rates kept, by currency then date; of one currency, within dates, when asked. */
  listRates(a?: {
    currency?: string;
    start?: string;
    end?: string;
  }): Promise<{ object: 'list'; data: ExchangeRate[] }>;
}
