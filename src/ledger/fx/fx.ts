import { isIsoDate } from '../../domain/dates.js';
import { BooksError } from '../../domain/errors.js';
import { currencyExponent } from '../../domain/money.js';
import { checkRateRows, sameRate, type RateRow, type RatesImported } from '../../domain/rates.js';
import { isObj } from '../../domain/rules.js';
import type { JournalStore, ReadTx, WriteTx } from '../journal/store.js';
import type { FxOps } from './port.js';
import type { FxReadTx, FxWriteTx } from './store.js';

/** A store as foreign currencies use it. */
export type FxStore = JournalStore<ReadTx & FxReadTx, WriteTx & FxWriteTx>;

const refused = (code: 'invalid_input' | 'invalid_parameters', problems: BooksError['errors']) =>
  new BooksError(code, problems.map((p) => p.message).join('; '), problems);

/** The rate table on every store. */
export class FxFromStore implements FxOps {
  constructor(private readonly store: FxStore) {}

  async importRates(a: { rows: unknown; replace?: unknown }): Promise<RatesImported> {
    if (!Array.isArray(a.rows) || !a.rows.every(isObj))
      throw refused('invalid_input', [
        {
          path: 'rows',
          reason: 'invalid_body',
          message: 'rows is a list of {date, currency, rate}',
        },
      ]);
    if (a.replace !== undefined && typeof a.replace !== 'boolean')
      throw refused('invalid_input', [
        { path: 'replace', reason: 'invalid_type', message: 'replace must be true or false' },
      ]);
    return this.store.write(async (tx) => {
      const facts = await tx.facts({ bodies: [], fingerprint: null });
      const { rates, problems } = checkRateRows(a.rows as RateRow[], facts.entity.currency);
      if (problems.length) throw refused('invalid_input', problems);
      const kept = new Map<string, string>();
      for (const currency of new Set(rates.map((r) => r.currency)))
        for (const r of await tx.fx.rates({ currency }))
          kept.set(`${r.currency} ${r.date}`, r.rate);
      const out: RatesImported = { created: 0, updated: 0, unchanged: 0, replaced: [] };
      const conflicts: BooksError['errors'] = [];
      const fresh: typeof rates = [];
      const replacing: typeof rates = [];
      for (const r of rates) {
        const was = kept.get(`${r.currency} ${r.date}`);
        if (was === undefined) {
          out.created++;
          fresh.push(r);
        } else if (sameRate(was, r.rate)) out.unchanged++;
        else if (a.replace === true) {
          out.updated++;
          out.replaced.push({ row: r.row, date: r.date, currency: r.currency, was, rate: r.rate });
          replacing.push(r);
        } else
          conflicts.push({
            path: `rows[${r.index}].rate`,
            reason: 'rate_conflict',
            message:
              `row ${r.row}: ${r.currency} on ${r.date} is ${was} in the ledger, not ${r.rate} ` +
              '(replace it with --replace)',
          });
      }
      if (conflicts.length) throw refused('invalid_input', conflicts);
      const strip = ({ date, currency, rate }: (typeof rates)[number]) => ({
        date,
        currency,
        rate,
      });
      await tx.fx.setRates([...fresh, ...replacing].map(strip), replacing.map(strip));
      return out;
    });
  }

  async listRates(a: { currency?: unknown; start?: unknown; end?: unknown } = {}) {
    const problems: BooksError['errors'] = [];
    if (
      a.currency !== undefined &&
      (typeof a.currency !== 'string' || currencyExponent(a.currency) === null)
    )
      problems.push({
        path: 'currency',
        reason: 'invalid_currency',
        message: `'${String(a.currency)}' is not an ISO 4217 currency code`,
      });
    for (const k of ['start', 'end'] as const)
      if (a[k] !== undefined && !isIsoDate(a[k]))
        problems.push({
          path: k,
          reason: 'invalid_date',
          message: `${k} '${String(a[k])}' is not a date: write YYYY-MM-DD`,
        });
    if (problems.length) throw refused('invalid_parameters', problems);
    const filter = a as { currency?: string; start?: string; end?: string };
    const data = await this.store.read((tx) => tx.fx.rates(filter));
    return { object: 'list' as const, data };
  }
}
