import type { AccountType } from '../../domain/accounts.js';
import type { AccountRef, CounterpartyRef, ValidationContext } from '../../domain/entry.js';
import { closeMatches, describeAccount } from '../../domain/input.js';
import type { ReportAccount } from '../../domain/statement.js';
import { ChartTables } from '../sql/chartTables.js';
import { FILE_ENTITY } from '../sql/dialect.js';
import type { FxHistoryLine } from '../../domain/settlement.js';
import type { ChartOps } from '../port.js';
import type { Facts } from '../journal/store.js';
import type { Db } from './db.js';
import { fileTables } from './tables.js';

type Flags = { is_postable: number; is_active: number };

/** The chart of accounts and the counterparties of a ledger file. */
export class SqliteChart extends ChartTables implements ChartOps {
  constructor(private readonly db: Db) {
    super(fileTables(db));
  }

  /** The chart as reports read it. */
  reportAccounts(): ReportAccount[] {
    const rows = this.db
      .prep(
        `SELECT key, id, external_id, account_number, name, account_type, parent_key, is_postable,
                cash_flow FROM accounts`,
      )
      .all() as (Omit<ReportAccount, 'is_postable'> & { is_postable: number })[];
    return rows.map((a) => ({ ...a, is_postable: a.is_postable === 1 }));
  }

  /**
   * What validation of entries needs, looked up as it is asked: accounts and counterparties (kept
   * between calls while the ledger is unchanged, see Db.kept, so a server reads them once), and
   * whether a JE number is taken (always asked of the ledger).
   */
  facts(): Facts {
    return this.db.kept('validation facts', () => {
      const { account, counterparty } = this.lookUps();
      const jeStmt = this.db.prep(`SELECT 1 FROM journal_entries WHERE je_number = ?`).pluck();
      const historyStmt = this.db.prep(
        `SELECT l.line_type AS side, l.fx_amount_atoms AS "foreign", l.amount_atoms AS functional,
                l.entry_seq AS seq, l.entry_date AS date,
                (SELECT e.original_seq FROM journal_entries e WHERE e.seq = l.entry_seq) AS original
         FROM journal_lines l
         WHERE l.fx_currency IS NOT NULL
           AND l.account_key = (SELECT key FROM accounts WHERE external_id = @ref OR account_number = @ref
                                ORDER BY external_id = @ref DESC LIMIT 1)
           AND l.counterparty_id = (SELECT id FROM counterparties WHERE counterparty_type = @type AND external_id = @id)
         ORDER BY l.entry_date, l.entry_seq, l.line_no`,
      );
      const rateStmt = this.db
        .prep(
          `SELECT rate FROM exchange_rates WHERE entity_id = ? AND currency = ? AND rate_date <= ?
           ORDER BY rate_date DESC LIMIT 1`,
        )
        .pluck();
      const byKey = (key: string) => {
        const cut = key.indexOf('\u0000');
        return counterparty(key.slice(0, cut), key.slice(cut + 1));
      };
      return {
        accounts: { get: account, has: (ref) => account(ref) !== undefined },
        counterparties: { get: byKey, has: (key) => byKey(key) !== undefined },
        // Numbers are always asked of the ledger: posts take them without changing what is kept.
        takenNumbers: { has: (n) => jeStmt.get(n) !== undefined },
        // So is a settlement's history, as posts change it.
        fxHistory: {
          get: (key) => {
            const [ref, type, id] = key.split('\u0000') as [string, string, string, string];
            return historyStmt.all({ ref, type, id }) as FxHistoryLine[];
          },
        },
        // So are rates: adding one does not change what is kept.
        rates: {
          get: (key) => {
            const cut = key.indexOf('\u0000');
            const r = rateStmt.get(FILE_ENTITY, key.slice(0, cut), key.slice(cut + 1));
            return r === undefined ? undefined : (r as string);
          },
        },
      };
    });
  }

  /** The accounts a reference that names none resembles, described for a message. */
  async resembling(ref: string): Promise<string[]> {
    return closeMatches(ref, await this.accounts()).map(describeAccount);
  }

  private lookUps(): Pick<ValidationContext, 'account' | 'counterparty'> {
    // By external id, else by account number: the chart keeps the two from naming different accounts.
    const columns = `key, id, external_id, account_number, name, account_type, is_active, is_postable, currency`;
    const byExternalId = this.db.prep(`SELECT ${columns} FROM accounts WHERE external_id = ?`);
    const byNumber = this.db.prep(`SELECT ${columns} FROM accounts WHERE account_number = ?`);
    const accountStmt = {
      get: (ref: string): unknown => byExternalId.get(ref) ?? byNumber.get(ref),
    };
    const cpStmt = this.db.prep(
      `SELECT id, counterparty_type, external_id, name, is_active FROM counterparties
       WHERE counterparty_type = ? AND external_id = ?`,
    );
    // Only what exists is kept: names that match nothing cannot make the maps grow.
    const accounts = new Map<string, AccountRef>();
    // By type, then external id: no key string is built per look-up.
    const cps = new Map<string, Map<string, CounterpartyRef>>();
    return {
      account(externalId) {
        const known = accounts.get(externalId);
        if (known) return known;
        const r = accountStmt.get(externalId) as
          (Omit<AccountRef, keyof Flags> & Flags) | undefined;
        if (!r) return undefined;
        const ref = {
          ...r,
          account_type: r.account_type as AccountType,
          is_active: r.is_active === 1,
          is_postable: r.is_postable === 1,
        };
        accounts.set(externalId, ref);
        return ref;
      },
      counterparty(type, externalId) {
        const known = cps.get(type)?.get(externalId);
        if (known) return known;
        const r = cpStmt.get(type, externalId) as
          (Omit<CounterpartyRef, 'is_active'> & { is_active: number }) | undefined;
        if (!r) return undefined;
        const ref = { ...r, is_active: r.is_active === 1 };
        let ofType = cps.get(type);
        if (!ofType) cps.set(type, (ofType = new Map()));
        ofType.set(externalId, ref);
        return ref;
      },
    };
  }
}
