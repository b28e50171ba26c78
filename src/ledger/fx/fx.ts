import { fxAccountsOf } from '../../domain/accounts.js';
import { dayAfter, isIsoDate, LAST_DATE } from '../../domain/dates.js';
import { BooksError, entryInvalid, refusal } from '../../domain/errors.js';
import { fxExposure, revaluationBody, type FxExposure } from '../../domain/fxExposure.js';
import { currencyExponent } from '../../domain/money.js';
import { checkRateRows, sameRate, type RateRow, type RatesImported } from '../../domain/rates.js';
import { isObj } from '../../domain/rules.js';
import type { JournalStore, ReadTx, WriteTx } from '../journal/store.js';
import type { JournalFromStore } from '../journal/journal.js';
import type { ForeignBalance, FxOps, Revaluation } from './port.js';
import { toJsonInteger } from '../../domain/money.js';
import type { FxReadTx, FxWriteTx } from './store.js';

/** A store as foreign currencies use it. */
export type FxStore = JournalStore<ReadTx & FxReadTx, WriteTx & FxWriteTx>;

/** Foreign currencies on every store: the rate table, exposure, revaluation. */
export class FxFromStore implements FxOps {
  constructor(
    private readonly store: FxStore,
    private readonly journal: Pick<JournalFromStore, 'postWithin'>,
  ) {}

  async balances(a: { as_of?: unknown; counterparty?: unknown }) {
    const text = typeof a.as_of === 'string' ? a.as_of : '';
    // TYPE:ID: the lines naming that counterparty only (a general ledger filtered by it).
    const who = typeof a.counterparty === 'string' ? a.counterparty : null;
    const dates = text.split(',').map((d) => d.trim());
    for (const d of dates) dateParameter('as_of', d);
    if (new Set(dates).size > 400)
      throw refusal('invalid_parameters', [
        { path: 'as_of', reason: 'too_many_dates', message: 'as_of names at most 400 dates' },
      ]);
    const byDate = await this.store.read((tx) => tx.fx.balances(dates));
    const data = dates.map((asOf) => {
      const by = new Map<string, ForeignBalance & { sum: bigint }>();
      for (const r of byDate.get(asOf) ?? []) {
        if (who !== null && `${r.counterparty_type}:${r.counterparty_external_id}` !== who)
          continue;
        const had = by.get(r.account_id);
        if (had) had.sum += r.foreign;
        else
          by.set(r.account_id, {
            account_id: r.account_id,
            gl_account_id: r.external_id,
            foreign_currency: r.currency,
            foreign_balance_atoms: 0,
            sum: r.foreign,
          });
      }
      const accounts = [...by.values()]
        .sort((x, y) => (x.gl_account_id < y.gl_account_id ? -1 : 1))
        .map(({ sum, ...b }) => ({ ...b, foreign_balance_atoms: toJsonInteger(sum) }));
      return { as_of: asOf, accounts };
    });
    return { object: 'list' as const, data };
  }

  /**
   * What `books check` says of revaluations (docs/currency.md, "Checks"): at each date a
   * revaluation posted on, every balance it valued is worth its carrying value; one that is not was
   * moved since (a back-dated entry, a replaced rate: named, not an error, for the next run to post).
   */
  async revaluationNotes(): Promise<{ notes: string[]; count: number }> {
    return this.store.read(async (tx) => {
      const notes: string[] = [];
      const dates = await tx.fx.revaluationDates();
      for (const d of dates) {
        const e = await this.exposureIn(tx, d);
        for (const r of e.rows)
          if (r.unrealized_atoms !== null && r.unrealized_atoms !== 0) {
            const who = r.counterparty_external_id
              ? ` ${r.counterparty_type}:${r.counterparty_external_id}`
              : '';
            notes.push(
              `${d}: ${r.gl_account_id}${who} is ${String(r.unrealized_atoms)} atoms from its value at ` +
                "the date's rate: an entry or a rate changed since it was revalued; " +
                `books fx revalue --as-of ${d} posts it`,
            );
          }
      }
      return { notes, count: dates.length };
    });
  }

  async exposure(a: { as_of?: unknown }): Promise<FxExposure> {
    const asOf = dateParameter('as_of', a.as_of);
    return this.store.read((tx) => this.exposureIn(tx, asOf));
  }

  private async exposureIn(tx: ReadTx & FxReadTx, asOf: string): Promise<FxExposure> {
    const entity = (await tx.facts({ bodies: [], fingerprint: null })).entity;
    const balances = (await tx.fx.balances([asOf])).get(asOf)!;
    const rates = new Map<string, string | undefined>();
    for (const c of new Set(balances.map((b) => b.currency)))
      rates.set(c, await tx.fx.rateOn(c, asOf));
    return fxExposure(balances, (c) => rates.get(c), asOf, entity.currency);
  }

  async revalue(a: { as_of?: unknown; dry_run?: unknown }): Promise<Revaluation> {
    const asOf = dateParameter('as_of', a.as_of);
    if (a.dry_run !== undefined && typeof a.dry_run !== 'boolean')
      throw refusal('invalid_parameters', [
        { path: 'dry_run', reason: 'invalid_parameter', message: 'dry_run is true or false' },
      ]);
    const dryRun = a.dry_run === true;
    if (asOf === LAST_DATE)
      throw refusal('invalid_parameters', [
        { path: 'as_of', reason: 'invalid_date', message: `${asOf} has no next day to reverse on` },
      ]);
    const go = async (tx: (ReadTx | WriteTx) & FxReadTx): Promise<Revaluation> => {
      const exposure = await this.exposureIn(tx, asOf);
      // The date's revaluations so far: the first, then any that an entry posted on or before the
      // date after it made necessary (it moved a balance the first had valued).
      const before: string[] = [];
      for (;;) {
        const n = before.length + 1;
        const fingerprint = `fx-revaluation:${asOf}${n > 1 ? `:${n}` : ''}`;
        const found = (await tx.facts({ bodies: [], fingerprint })).fingerprinted;
        if (!found) break;
        before.push(found.je_number);
      }
      const out = {
        as_of: asOf,
        dry_run: dryRun,
        entry: null,
        je_number: null,
        exposure,
        revalued_before: before,
      };
      const differs = exposure.rows.some((r) => r.unrealized_atoms !== 0);
      if (before.length && !differs)
        return { ...out, status: 'already_revalued', je_number: before.at(-1)! };
      if (exposure.missing_rates.length)
        throw entryInvalid([
          {
            path: 'as_of',
            reason: 'fx_rate_missing',
            message: `no ${exposure.missing_rates.join(', ')} rate on or before ${asOf}: add one (books rates add)`,
          },
        ]);
      const entity = (await tx.facts({ bodies: [], fingerprint: null })).entity;
      const body = revaluationBody(exposure, fxAccountsOf(entity).unrealized, dayAfter(asOf));
      if (!body) return { ...out, status: 'nothing' };
      const n = before.length + 1;
      const entry = await this.journal.postWithin(tx, body, {
        idempotencyKey: `fx-revaluation-${asOf}${n > 1 ? `-${n}` : ''}`,
        source: 'fx_revaluation',
        fingerprint: `fx-revaluation:${asOf}${n > 1 ? `:${n}` : ''}`,
      });
      if ('event' in tx)
        tx.event.name(
          'fx.revalued',
          [entry.id, entry.je_number],
          `foreign balances revalued as of ${asOf}: ${entry.je_number}`,
        );
      return {
        ...out,
        status: dryRun ? 'would_post' : 'posted',
        entry,
        je_number: dryRun ? null : entry.je_number,
      };
    };
    return dryRun ? this.store.read(go) : this.store.write(go);
  }

  async setAccounts(a: { fx_realized?: unknown; fx_unrealized?: unknown }) {
    const unknown = Object.keys(a).filter((k) => k !== 'fx_realized' && k !== 'fx_unrealized');
    if (unknown.length)
      throw refusal(
        'invalid_parameters',
        unknown.map((k) => ({ path: k, reason: 'unknown_field', message: `unknown field '${k}'` })),
      );
    return this.store.write(async (tx) => {
      const facts = await tx.facts({
        bodies: [
          {
            lines: [a.fx_realized, a.fx_unrealized]
              .filter((r) => typeof r === 'string')
              .map((r) => ({ gl_account_id: (r as string).trim() })),
          },
        ],
        fingerprint: null,
      });
      const entity = facts.entity;
      const problems: BooksError['errors'] = [];
      const pick = (
        field: 'fx_realized' | 'fx_unrealized',
        fallback: string | null | undefined,
      ) => {
        const v = a[field];
        if (v === undefined) return fallback ?? null;
        // null: back to the standard chart's account.
        if (v === null) return null;
        const ref = typeof v === 'string' ? v.trim() : '';
        const account = ref ? facts.lookups.accounts.get(ref) : undefined;
        if (!account)
          problems.push({
            path: field,
            reason: 'unknown_account',
            message: `no account '${String(v)}'`,
          });
        else if (!account.is_postable || !account.is_active)
          problems.push({
            path: field,
            reason: 'unpostable_account',
            message: `'${ref}' is not an active account that takes lines`,
          });
        else if (account.currency !== null && account.currency !== entity.currency)
          problems.push({
            path: field,
            reason: 'currency_conflict',
            message: `'${ref}' is kept in ${account.currency}: gains and losses are in ${entity.currency}`,
          });
        else return account.external_id;
        return null;
      };
      const realized = pick('fx_realized', entity.fx_realized);
      const unrealized = pick('fx_unrealized', entity.fx_unrealized);
      if (problems.length) throw refusal('invalid_parameters', problems);
      await tx.fx.setAccounts(realized, unrealized);
      // The accounts in effect now: a setting left unset (null) is the standard chart's.
      const now = fxAccountsOf({ fx_realized: realized, fx_unrealized: unrealized });
      tx.event.name(
        'fx.accounts_set',
        [now.realized, now.unrealized],
        `exchange gains and losses go to ${now.realized} (realised) and ${now.unrealized} (unrealised)`,
      );
      return { fx_realized: now.realized, fx_unrealized: now.unrealized };
    });
  }

  async importRates(a: { rows: unknown; replace?: unknown }): Promise<RatesImported> {
    if (!Array.isArray(a.rows) || !a.rows.every(isObj))
      throw refusal('invalid_input', [
        {
          path: 'rows',
          reason: 'invalid_body',
          message: 'rows is a list of {date, currency, rate}',
        },
      ]);
    if (a.replace !== undefined && typeof a.replace !== 'boolean')
      throw refusal('invalid_input', [
        { path: 'replace', reason: 'invalid_type', message: 'replace must be true or false' },
      ]);
    return this.store.write(async (tx) => {
      const facts = await tx.facts({ bodies: [], fingerprint: null });
      const { rates, problems } = checkRateRows(a.rows as RateRow[], facts.entity.currency);
      if (problems.length) throw refusal('invalid_input', problems);
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
      if (conflicts.length) throw refusal('invalid_input', conflicts);
      const strip = ({ date, currency, rate }: (typeof rates)[number]) => ({
        date,
        currency,
        rate,
      });
      await tx.fx.setRates([...fresh, ...replacing].map(strip), replacing.map(strip));
      if (out.created + out.updated > 0)
        tx.event.name(
          'rates.imported',
          [...new Set(rates.map((r) => r.currency))],
          `exchange rates: ${out.created} created, ${out.updated} replaced, ${out.unchanged} unchanged`,
        );
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
    if (problems.length) throw refusal('invalid_parameters', problems);
    const filter = a as { currency?: string; start?: string; end?: string };
    const data = await this.store.read((tx) => tx.fx.rates(filter));
    return { object: 'list' as const, data };
  }
}

/** A date parameter, refused by name when it is not one. */
function dateParameter(name: string, v: unknown): string {
  if (isIsoDate(v)) return v;
  throw refusal('invalid_parameters', [
    {
      path: name,
      reason: 'invalid_date',
      message: `${name} '${String(v ?? '')}' is not a date (YYYY-MM-DD)`,
    },
  ]);
}
