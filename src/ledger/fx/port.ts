import type { JournalEntry } from '../../domain/entry.js';
import type { FxExposure } from '../../domain/fxExposure.js';
import type { ExchangeRate, RatesImported } from '../../domain/rates.js';

/** An account's balance in the currency it is kept in. */
export interface ForeignBalance {
  account_id: string;
  gl_account_id: string;
  foreign_currency: string;
  foreign_balance_atoms: number | bigint;
}

/** What a revaluation did (or would do, in a dry run). */
export interface Revaluation {
  as_of: string;
  dry_run: boolean;
  /** posted, would_post, already_revalued (an earlier run posted the date's), nothing (no difference). */
  status: 'posted' | 'would_post' | 'already_revalued' | 'nothing';
  /** The entry posted (or that would post, or that an earlier run posted); null for nothing. */
  entry: JournalEntry | null;
  /** The entry posted, or the latest an earlier run posted for the date, by JE number. */
  je_number: string | null;
  /** The date's earlier revaluations: a balance moved on or before the date since they posted. */
  revalued_before: string[];
  exposure: FxExposure;
}

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
  /**
   * Each account kept in another currency: its balance in that currency (debit positive) at each of
   * the dates `as_of` names (comma-separated), read at once.
   */
  balances(a: { as_of: string; counterparty?: string }): Promise<{
    object: 'list';
    data: { as_of: string; accounts: ForeignBalance[] }[];
  }>;
  /** Foreign balances at a date, their value at its closing rates and the unrealised gains. */
  exposure(a: { as_of: string }): Promise<FxExposure>;
  /**
   * Posts the revaluation at a date: one adjusting entry, reversed the next day, of every monetary
   * foreign balance's unrealised gain or loss. Run again for the date it posts nothing, unless an
   * entry dated on or before it has moved a balance since: then what that changed, once.
   */
  revalue(a: { as_of: string; dry_run?: boolean }): Promise<Revaluation>;
  /** Sets the entity's realised and unrealised exchange gain/loss accounts (external id or number). */
  setAccounts(a: { fx_realized?: string; fx_unrealized?: string }): Promise<{
    fx_realized: string;
    fx_unrealized: string;
  }>;
}
