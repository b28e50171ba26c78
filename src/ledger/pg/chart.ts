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
  type ChartFile,
  type ChartRow,
  type ChartShape,
  type CounterpartyRow,
  type StoredChartRow,
} from '../../domain/chart.js';
import type { AccountRef, CounterpartyRef } from '../../domain/entry.js';
import { closeMatches, describeAccount } from '../../domain/input.js';
import { exponentOf } from '../../domain/money.js';
import type { ReportAccount } from '../../domain/statement.js';
import type { ChartOps, ImportCounts } from '../port.js';
import type { Facts, Wants } from '../store.js';
import { newId } from '../sqlite/writer.js';
import type { PgDb, Query } from './db.js';
import type { PgEntities } from './entity.js';

const GL_ACCOUNT = `a.id, a.external_id, a.account_number, a.name, a.account_type, p.id AS parent_id,
  a.is_postable, a.is_active, a.currency, a.created_at, a.updated_at`;

const REF = `key, id, external_id, account_number, name, account_type, is_active, is_postable, currency`;

/** The chart of accounts and the counterparties of one entity in a database. */
export class PgChart implements ChartOps {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    private readonly entities: PgEntities,
  ) {}

  async accounts(q: Query = this.db.query): Promise<GlAccount[]> {
    const rows = await q<Omit<GlAccount, 'object' | 'account_kind'>>(
      `SELECT ${GL_ACCOUNT} FROM accounts a
       LEFT JOIN accounts p ON p.entity_id = a.entity_id AND p.key = a.parent_key
       WHERE a.entity_id = $1
       ORDER BY a.account_number IS NULL, a.account_number, a.external_id`,
      [this.entityId],
    );
    return rows.map(glAccountOf);
  }

  async counterparties(): Promise<Counterparty[]> {
    const rows = await this.db.query<Omit<Counterparty, 'object'>>(
      `SELECT id, counterparty_type, external_id, name, is_active, created_at, updated_at
       FROM counterparties WHERE entity_id = $1
       ORDER BY counterparty_type, external_id`,
      [this.entityId],
    );
    return rows.map((r) => ({ ...r, object: 'counterparty' }));
  }

  /** The chart's tree as the whole-chart checks read it, with what each account holds. */
  async shapes(q: Query = this.db.query): Promise<ChartShape[]> {
    const rows = await q<
      Omit<ChartShape, 'posted' | 'cleared'> & {
        lines: bigint | null;
        balance: bigint | null;
        cleared: number | null;
      }
    >(
      `SELECT a.external_id, a.account_number, a.account_type, p.external_id AS parent_external_id,
              a.is_postable, a.currency, t.lines, t.balance, c.cleared
       FROM accounts a LEFT JOIN accounts p ON p.entity_id = a.entity_id AND p.key = a.parent_key
       LEFT JOIN (SELECT account_key, SUM(line_count) AS lines, SUM(net_atoms) AS balance
                  FROM account_month_totals WHERE entity_id = $1 GROUP BY account_key) t
         ON t.account_key = a.key
       LEFT JOIN (SELECT account_key, COUNT(*)::int AS cleared FROM line_marks WHERE entity_id = $1
                  GROUP BY account_key) c ON c.account_key = a.key
       WHERE a.entity_id = $1`,
      [this.entityId],
    );
    return rows.map(({ lines, balance, cleared, ...shape }) => ({
      ...shape,
      posted: { lines: Number(lines ?? 0n), balance: balance ?? 0n },
      cleared: cleared ?? 0,
    }));
  }

  /** The chart as reports read it. */
  async reportAccounts(q: Query = this.db.query): Promise<ReportAccount[]> {
    return q<ReportAccount>(
      `SELECT key, id, external_id, account_number, name, account_type, parent_key, is_postable
       FROM accounts WHERE entity_id = $1`,
      [this.entityId],
    );
  }

  async importAccounts(load: () => Promise<ChartFile>): Promise<ImportCounts> {
    const file = await load();
    return this.entities.write(async (q, entity) => {
      // Checked under the write lock, as the chart the file leaves behind when it is applied.
      const { rows, problems } = checkChart(
        file.records,
        await this.shapes(q),
        exponentOf(entity.currency),
        entity.currency,
      );
      if (problems.length > 0) throw chartRefused(file.name, problems);
      return this.upsertAccounts(q, rows);
    });
  }

  /** Creates the new accounts and updates the changed ones; an account the file leaves as it is stays untouched. */
  private async upsertAccounts(q: Query, rows: ChartRow[]): Promise<ImportCounts> {
    const ts = this.db.stamp();
    const e = this.entityId;
    const stored = new Map(
      (
        await q<StoredChartRow>(
          `SELECT a.external_id, a.account_number, a.name, a.account_type, p.external_id AS parent_external_id,
                  a.is_postable, a.is_active, a.currency
           FROM accounts a LEFT JOIN accounts p ON p.entity_id = a.entity_id AND p.key = a.parent_key
           WHERE a.entity_id = $1`,
          [e],
        )
      ).map((a) => [a.external_id, a]),
    );
    const changed = changedRows(rows, stored);
    // Numbers may move between accounts within one file: clear them first so UNIQUE holds midway.
    const moved = changed.filter((r) => stored.has(r.external_id)).map((r) => r.external_id);
    if (moved.length)
      await q(
        `UPDATE accounts SET account_number = NULL WHERE entity_id = $1 AND external_id = ANY($2)`,
        [e, moved],
      );
    let [key] = (
      await q<{ key: number }>(
        `SELECT COALESCE(MAX(key), 0) AS key FROM accounts WHERE entity_id = $1`,
        [e],
      )
    ).map((r) => r.key);
    for (const r of changed) {
      const flags = [r.account_type, r.is_postable, r.is_active, r.currency];
      if (!stored.has(r.external_id))
        await q(
          `INSERT INTO accounts (entity_id, key, id, external_id, account_number, name, account_type,
             is_postable, is_active, currency, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
          [e, ++key!, newId('acct'), r.external_id, r.account_number, r.name, ...flags, ts],
        );
      else
        await q(
          `UPDATE accounts SET account_number = $3, name = $4, account_type = $5, is_postable = $6,
             is_active = $7, currency = $8, updated_at = $9
           WHERE entity_id = $1 AND external_id = $2`,
          [e, r.external_id, r.account_number, r.name, ...flags, ts],
        );
    }
    for (const r of changed)
      await q(
        `UPDATE accounts SET parent_key = (SELECT key FROM accounts WHERE entity_id = $1 AND external_id = $2)
         WHERE entity_id = $1 AND external_id = $3`,
        [e, r.parent_external_id, r.external_id],
      );
    const created = changed.filter((r) => !stored.has(r.external_id)).length;
    return { created, updated: changed.length - created, unchanged: rows.length - changed.length };
  }

  async importCounterparties(load: () => Promise<CounterpartyRow[]>): Promise<ImportCounts> {
    const rows = await load();
    const e = this.entityId;
    return this.entities.write(async (q) => {
      const ts = this.db.stamp();
      const had = new Map(
        (
          await q<{
            counterparty_type: string;
            external_id: string;
            name: string;
            is_active: boolean;
          }>(
            `SELECT counterparty_type, external_id, name, is_active FROM counterparties WHERE entity_id = $1`,
            [e],
          )
        ).map((c) => [`${c.counterparty_type}\u0000${c.external_id}`, c]),
      );
      const counts = { created: 0, updated: 0, unchanged: 0 };
      for (const r of rows) {
        const name = `${r.counterparty_type}\u0000${r.external_id}`;
        const change = counterpartyChange(had.get(name), r);
        counts[change]++;
        had.set(name, { ...r });
        if (change === 'created')
          await q(
            `INSERT INTO counterparties (entity_id, id, counterparty_type, external_id, name, is_active,
               created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
            [e, newId('cp'), r.counterparty_type, r.external_id, r.name, r.is_active, ts],
          );
        else if (change === 'updated')
          await q(
            `UPDATE counterparties SET name = $4, is_active = $5, updated_at = $6
             WHERE entity_id = $1 AND counterparty_type = $2 AND external_id = $3`,
            [e, r.counterparty_type, r.external_id, r.name, r.is_active, ts],
          );
      }
      return counts;
    });
  }

  /** What validation of some entries needs, fetched for what they name in one statement. */
  async facts(q: Query, wants: Wants): Promise<Facts> {
    const [row] = await q<LookupRow>(`SELECT ${lookupColumns(2)}`, [
      this.entityId,
      ...lookupParams(wants),
    ]);
    return lookupsOf(row!);
  }

  /** The accounts a reference that names none resembles, described for a message. */
  async resembling(ref: string, q?: Query): Promise<string[]> {
    return closeMatches(ref, await this.accounts(q)).map(describeAccount);
  }
}

/** The look-ups' columns of one row, as JSON: what a write reads goes in one round trip. */
export interface LookupRow {
  accounts: AccountRef[] | null;
  counterparties: CounterpartyRef[] | null;
  numbers: string[] | null;
}

/**
 * The look-ups as columns of one SELECT ($1 the entity, then the four lookupParams from $at): the
 * accounts named by external id or number, the counterparties by type and external id, the JE numbers
 * taken.
 */
export function lookupColumns(at: number): string {
  const [refs, types, ids, numbers] = [`$${at}`, `$${at + 1}`, `$${at + 2}`, `$${at + 3}`];
  return `(SELECT json_agg(a) FROM (SELECT ${REF} FROM accounts WHERE entity_id = $1
      AND (external_id = ANY(${refs}::text[]) OR account_number = ANY(${refs}::text[]))) a) AS accounts,
    (SELECT json_agg(c) FROM (SELECT id, counterparty_type, external_id, name, is_active
      FROM counterparties WHERE entity_id = $1 AND (counterparty_type, external_id) IN
        (SELECT * FROM unnest(${types}::text[], ${ids}::text[]))) c) AS counterparties,
    (SELECT json_agg(v) FROM (${journalHolds('je_number', numbers)}) n) AS numbers`;
}

/**
 * Which of the values in the text[] parameter `param` an entry of entity $1 holds in `column` (a
 * column of a unique index): one probe of that index per value, as a subquery run for each value
 * (which PostgreSQL does not turn into a join). Asked as `column = ANY(param)` or with EXISTS, it
 * read every row of an entity its statistics did not know yet (an import's, into a new entity) to
 * filter or hash them: a 1M-line import spent 28 of its 40 s there.
 */
export function journalHolds(column: 'fingerprint' | 'je_number', param: string): string {
  return `SELECT v FROM unnest(${param}::text[]) v
    WHERE (SELECT true FROM journal_entries j WHERE j.entity_id = $1 AND j.${column} = v)`;
}

/** The parameters lookupColumns reads. */
export function lookupParams(wants: Wants): unknown[] {
  return [[...wants.accounts], ...splitParties(wants.counterparties), [...wants.jeNumbers]];
}

/** The look-ups of a LookupRow. */
export function lookupsOf(row: LookupRow): Facts {
  const accounts = row.accounts ?? [];
  // By external id first, else by account number, as the chart keeps the two from naming two accounts.
  const byRef = new Map<string, AccountRef>();
  for (const a of accounts) if (a.account_number !== null) byRef.set(a.account_number, a);
  for (const a of accounts)
    byRef.set(a.external_id, { ...a, account_type: a.account_type as AccountType });
  const byParty = new Map(
    (row.counterparties ?? []).map((c) => [`${c.counterparty_type}\u0000${c.external_id}`, c]),
  );
  const numbers = new Set(row.numbers ?? []);
  return {
    accounts: { get: (r) => byRef.get(r), has: (r) => byRef.has(r) },
    counterparties: { get: (k) => byParty.get(k), has: (k) => byParty.has(k) },
    takenNumbers: { has: (n) => numbers.has(n) },
  };
}

/** `type\u0000external_id` names as two lists (PostgreSQL's text holds no NUL). */
function splitParties(names: Set<string>): [string[], string[]] {
  const types: string[] = [];
  const ids: string[] = [];
  for (const n of names) {
    const cut = n.indexOf('\u0000');
    types.push(n.slice(0, cut));
    ids.push(n.slice(cut + 1));
  }
  return [types, ids];
}
