import type { AccountType } from '../../domain/accounts.js';
import type { FxBalanceRow } from '../../domain/fxExposure.js';
import type { ExchangeRate } from '../../domain/rates.js';
import { flag, wholeOf, type Scope, type Sql } from './dialect.js';
import type { FxWrites } from '../fx/store.js';

/** The rate table, foreign balances and the entity's gain/loss accounts, in the same statements on every store. */
export class FxTables implements FxWrites {
  private readonly entity: string;

  constructor(
    private readonly sql: Sql,
    private readonly scope: Scope,
  ) {
    this.entity = scope.reconId;
  }

  rates(f: { currency?: string; start?: string; end?: string }): Promise<ExchangeRate[]> {
    return this.sql.all<ExchangeRate>(
      `SELECT rate_date AS date, currency, rate FROM exchange_rates
       WHERE entity_id = ? AND currency = COALESCE(?, currency) AND rate_date >= ? AND rate_date <= ?
       ORDER BY currency, rate_date`,
      [this.entity, f.currency ?? null, f.start ?? '0000-01-01', f.end ?? '9999-12-31'],
    );
  }

  async rateOn(currency: string, date: string): Promise<string | undefined> {
    const [r] = await this.sql.all<{ rate: string }>(
      `SELECT rate FROM exchange_rates WHERE entity_id = ? AND currency = ? AND rate_date <= ?
       ORDER BY rate_date DESC LIMIT 1`,
      [this.entity, currency, date],
    );
    return r?.rate;
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

  async revaluationDates(): Promise<string[]> {
    const rows = await this.sql.all<{ entry_date: string }>(
      `SELECT DISTINCT e.entry_date FROM journal_entries e
       WHERE ${this.scope.of('e')}e.source = 'fx_revaluation' AND e.original_seq IS NULL
       ORDER BY e.entry_date`,
      [],
    );
    return rows.map((r) => r.entry_date);
  }

  async setAccounts(realized: string | null, unrealized: string | null): Promise<void> {
    const { table, where } = this.scope.settingsRow;
    await this.sql.run(`UPDATE ${table} SET fx_realized = ?, fx_unrealized = ? WHERE ${where}`, [
      realized,
      unrealized,
    ]);
  }

  /**
   * The foreign lines summed through each date by account, counterparty and currency (debit
   * positive), in one pass over the index of foreign lines (however large the rest of the journal):
   * a pair of sums per date, grouped in the index's own order. At most 400 dates.
   */
  async balances(dates: string[]): Promise<Map<string, FxBalanceRow[]>> {
    const s = this.scope;
    const sorted = [...new Set(dates)].sort();
    const last = sorted.at(-1) ?? '0000-01-01';
    const side = (amount: string) =>
      `CASE WHEN l.line_type = 'debit' THEN l.${amount} ELSE -l.${amount} END`;
    const sums = sorted
      .map(
        (_, i) =>
          `SUM(CASE WHEN l.entry_date <= ? THEN ${side('fx_amount_atoms')} ELSE 0 END) AS f${i},
           SUM(CASE WHEN l.entry_date <= ? THEN ${side('amount_atoms')} ELSE 0 END) AS n${i}`,
      )
      .join(',\n');
    const rows = await this.sql.all<Record<string, unknown>>(
      `SELECT d.*, a.id AS account_id, a.external_id, a.account_number, a.name AS account_name, a.account_type,
              a.monetary,
              c.counterparty_type, c.external_id AS counterparty_external_id, c.name AS counterparty_name
       FROM (SELECT l.account_key, l.counterparty_id, MAX(l.fx_currency) AS currency, ${sums}
             FROM journal_lines l WHERE ${s.of('l')}l.fx_currency IS NOT NULL AND l.entry_date <= ?
             GROUP BY l.account_key, l.counterparty_id) d
       JOIN accounts a ON ${s.of('a')}a.key = d.account_key
       LEFT JOIN counterparties c ON ${s.of('c')}c.id = d.counterparty_id`,
      [...sorted.flatMap((d) => [d, d]), last],
    );
    const whole = (v: unknown) => wholeOf(v) ?? BigInt(String(v ?? 0));
    return new Map(
      sorted.map((date, i) => [
        date,
        rows.map((r) => ({
          account_key: Number(r.account_key),
          account_id: r.account_id as string,
          external_id: r.external_id as string,
          account_number: r.account_number as string | null,
          account_name: r.account_name as string,
          account_type: r.account_type as AccountType,
          monetary: r.monetary === null || r.monetary === undefined ? null : flag(r.monetary),
          currency: r.currency as string,
          counterparty_type: r.counterparty_type as string | null,
          counterparty_external_id: r.counterparty_external_id as string | null,
          counterparty_name: r.counterparty_name as string | null,
          foreign: whole(r[`f${i}`]),
          functional: whole(r[`n${i}`]),
        })),
      ]),
    );
  }
}
