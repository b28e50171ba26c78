import {
  glAccountOf,
  type AccountType,
  type Counterparty,
  type GlAccount,
} from '../../domain/accounts.js';
import {
  changedRows,
  chartRefused,
  checkChart,
  counterpartyChange,
  type StoredChartRow,
  type ChartFile,
  type ChartRow,
  type ChartShape,
  type CounterpartyRow,
} from '../../domain/chart.js';
import type { AccountRef, CounterpartyRef, ValidationContext } from '../../domain/entry.js';
import type { Facts } from '../store.js';
import { closeMatches, describeAccount } from '../../domain/input.js';
import { exponentOf } from '../../domain/money.js';
import type { ReportAccount } from '../../domain/statement.js';
import type { ChartOps, ImportCounts } from '../port.js';
import type { Db } from './db.js';
import { newId } from './writer.js';

type Flags = { is_postable: number; is_active: number };

/** The chart of accounts and the counterparties of a ledger file. */
export class SqliteChart implements ChartOps {
  constructor(private readonly db: Db) {}

  async accounts(): Promise<GlAccount[]> {
    return this.accountsSync();
  }

  private accountsSync(): GlAccount[] {
    const rows = this.db
      .prep(
        `SELECT a.id, a.external_id, a.account_number, a.name, a.account_type, p.id AS parent_id,
                a.is_postable, a.is_active, a.currency, a.created_at, a.updated_at
         FROM accounts a LEFT JOIN accounts p ON p.key = a.parent_key
         ORDER BY a.account_number IS NULL, a.account_number, a.external_id`,
      )
      .all() as (Omit<GlAccount, 'is_postable' | 'is_active' | 'object' | 'account_kind'> &
      Flags)[];
    return rows.map((r) =>
      glAccountOf({ ...r, is_postable: r.is_postable === 1, is_active: r.is_active === 1 }),
    );
  }

  async counterparties(): Promise<Counterparty[]> {
    const rows = this.db
      .prep(
        `SELECT id, counterparty_type, external_id, name, is_active, created_at, updated_at
         FROM counterparties ORDER BY counterparty_type, external_id`,
      )
      .all() as (Omit<Counterparty, 'is_active' | 'object'> & { is_active: number })[];
    return rows.map((r) => ({ ...r, object: 'counterparty', is_active: r.is_active === 1 }));
  }

  /** The chart's tree as the whole-chart checks read it, with what each account holds. */
  shapes(): ChartShape[] {
    const rows = this.db
      .prep(
        `SELECT a.external_id, a.account_number, a.account_type, p.external_id AS parent_external_id,
                a.is_postable, a.currency, t.lines, t.balance, c.cleared
         FROM accounts a LEFT JOIN accounts p ON p.key = a.parent_key
         LEFT JOIN (SELECT account_key, SUM(line_count) AS lines, SUM(net_atoms) AS balance
                    FROM account_month_totals GROUP BY account_key) t ON t.account_key = a.key
         LEFT JOIN (SELECT account_key, COUNT(*) AS cleared FROM line_marks GROUP BY account_key) c
           ON c.account_key = a.key`,
      )
      .safeIntegers(true)
      .all() as (Omit<ChartShape, 'posted' | 'is_postable' | 'cleared'> & {
      is_postable: bigint;
      lines: bigint | null;
      balance: bigint | null;
      cleared: bigint | null;
    })[];
    return rows.map(({ lines, balance, is_postable, cleared, ...shape }) => ({
      ...shape,
      is_postable: is_postable === 1n,
      posted: { lines: Number(lines ?? 0n), balance: balance ?? 0n },
      cleared: Number(cleared ?? 0n),
    }));
  }

  /** The chart as reports read it. */
  reportAccounts(): ReportAccount[] {
    const rows = this.db
      .prep(
        `SELECT key, id, external_id, account_number, name, account_type, parent_key, is_postable FROM accounts`,
      )
      .all() as (Omit<ReportAccount, 'is_postable'> & { is_postable: number })[];
    return rows.map((a) => ({ ...a, is_postable: a.is_postable === 1 }));
  }

  async importAccounts(load: () => Promise<ChartFile>): Promise<ImportCounts> {
    const file = await load();
    return this.db.write(() => {
      // Checked under the write lock, as the chart the file leaves behind when it is applied.
      const { currency } = this.db.entity();
      const { rows, problems } = checkChart(
        file.records,
        this.shapes(),
        exponentOf(currency),
        currency,
      );
      if (problems.length > 0) throw chartRefused(file.name, problems);
      return this.upsertAccounts(rows);
    });
  }

  /** Creates the new accounts and updates the changed ones; an account the file leaves as it is stays untouched. */
  private upsertAccounts(rows: ChartRow[]): ImportCounts {
    const ts = this.db.stamp();
    const stored = new Map(
      (
        this.db
          .prep(
            `SELECT a.external_id, a.account_number, a.name, a.account_type, p.external_id AS parent_external_id,
                    a.is_postable = 1 AS is_postable, a.is_active = 1 AS is_active, a.currency
             FROM accounts a LEFT JOIN accounts p ON p.key = a.parent_key`,
          )
          .all() as (Omit<StoredChartRow, 'is_postable' | 'is_active'> & Flags)[]
      ).map((a) => [
        a.external_id,
        { ...a, is_postable: a.is_postable === 1, is_active: a.is_active === 1 },
      ]),
    );
    const changed = changedRows(rows, stored);
    const insert = this.db.prep(
      `INSERT INTO accounts (id, external_id, account_number, name, account_type, is_postable, is_active,
                             currency, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const clearNumber = this.db.prep(
      `UPDATE accounts SET account_number = NULL WHERE external_id = ?`,
    );
    const set = this.db.prep(
      `UPDATE accounts SET account_number = ?, name = ?, account_type = ?, is_postable = ?, is_active = ?,
                           currency = ?, updated_at = ?
       WHERE external_id = ?`,
    );
    const setParent = this.db.prep(
      `UPDATE accounts SET parent_key = (SELECT key FROM accounts WHERE external_id = ?) WHERE external_id = ?`,
    );
    // Numbers may move between accounts within one file: clear them first so UNIQUE holds midway.
    for (const r of changed) if (stored.has(r.external_id)) clearNumber.run(r.external_id);
    for (const r of changed) {
      const flags = [r.account_type, +r.is_postable, +r.is_active, r.currency] as const;
      if (!stored.has(r.external_id))
        insert.run(newId('acct'), r.external_id, r.account_number, r.name, ...flags, ts, ts);
      else set.run(r.account_number, r.name, ...flags, ts, r.external_id);
    }
    for (const r of changed) setParent.run(r.parent_external_id, r.external_id);
    const created = changed.filter((r) => !stored.has(r.external_id)).length;
    return { created, updated: changed.length - created, unchanged: rows.length - changed.length };
  }

  async importCounterparties(load: () => Promise<CounterpartyRow[]>): Promise<ImportCounts> {
    const rows = await load();
    return this.db.write(() => {
      const ts = this.db.stamp();
      const upd = this.db.prep(
        `UPDATE counterparties SET name = ?, is_active = ?, updated_at = ?
         WHERE counterparty_type = ? AND external_id = ?`,
      );
      const ins = this.db.prep(
        `INSERT INTO counterparties (id, counterparty_type, external_id, name, is_active, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      const find = this.db.prep(
        `SELECT name, is_active FROM counterparties WHERE counterparty_type = ? AND external_id = ?`,
      );
      const counts = { created: 0, updated: 0, unchanged: 0 };
      for (const r of rows) {
        const had = find.get(r.counterparty_type, r.external_id) as
          { name: string; is_active: number } | undefined;
        const change = counterpartyChange(had && { ...had, is_active: had.is_active === 1 }, r);
        counts[change]++;
        if (change === 'created')
          ins.run(newId('cp'), r.counterparty_type, r.external_id, r.name, +r.is_active, ts, ts);
        else if (change === 'updated')
          upd.run(r.name, +r.is_active, ts, r.counterparty_type, r.external_id);
      }
      return counts;
    });
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
      const byKey = (key: string) => {
        const cut = key.indexOf('\u0000');
        return counterparty(key.slice(0, cut), key.slice(cut + 1));
      };
      return {
        accounts: { get: account, has: (ref) => account(ref) !== undefined },
        counterparties: { get: byKey, has: (key) => byKey(key) !== undefined },
        // Numbers are always asked of the ledger: posts take them without changing what is kept.
        takenNumbers: { has: (n) => jeStmt.get(n) !== undefined },
      };
    });
  }

  /** The accounts a reference that names none resembles, described for a message. */
  resembling(ref: string): string[] {
    return closeMatches(ref, this.accountsSync()).map(describeAccount);
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
