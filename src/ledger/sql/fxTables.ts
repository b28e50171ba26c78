import type { ExchangeRate } from '../../domain/rates.js';
import type { Sql } from './dialect.js';
import type { FxWrites } from '../fx/store.js';

/** The rate table, in the same statements on every store. */
export class FxTables implements FxWrites {
  constructor(
    private readonly sql: Sql,
    private readonly entity: string,
  ) {}

  rates(f: { currency?: string; start?: string; end?: string }): Promise<ExchangeRate[]> {
    return this.sql.all<ExchangeRate>(
      `SELECT rate_date AS date, currency, rate FROM exchange_rates
       WHERE entity_id = ? AND currency = COALESCE(?, currency) AND rate_date >= ? AND rate_date <= ?
       ORDER BY currency, rate_date`,
      [this.entity, f.currency ?? null, f.start ?? '0000-01-01', f.end ?? '9999-12-31'],
    );
  }

  async setRates(rates: ExchangeRate[], replacing: ExchangeRate[]): Promise<void> {
    for (const r of replacing)
      await this.sql.run(
        `DELETE FROM exchange_rates WHERE entity_id = ? AND currency = ? AND rate_date = ?`,
        [this.entity, r.currency, r.date],
      );
    // Many rows a statement (a central bank's history is thousands).
    await this.sql.insert(
      'exchange_rates',
      ['entity_id', 'currency', 'rate_date', 'rate'].map((name) => ({
        name,
        type: 'text' as const,
      })),
      rates.map((r) => [this.entity, r.currency, r.date, r.rate]),
    );
  }
}
