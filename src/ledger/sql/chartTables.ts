import { recordChange } from './auditTables.js';
import { whoNow } from '../runtime/actor.js';
import { glAccountOf, type Counterparty, type GlAccount } from '../../domain/accounts.js';
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
import { exponentOf } from '../../domain/money.js';
import type { ImportCounts } from '../books/port.js';
import { newId } from '../ids.js';
import { flag, wholeOf, type Scope, type Session, type Tables } from './dialect.js';

/** The chart as the API lists it, parents named by id, numbered accounts first. */
export function accountsSql(s: Scope): string {
  return `SELECT a.id, a.external_id, a.account_number, a.name, a.account_type, p.id AS parent_id,
            a.is_postable, a.is_active, a.currency, a.monetary, a.cash_flow, a.created_at, a.updated_at
     FROM accounts a LEFT JOIN accounts p ON ${s.joined('p', 'a')}p.key = a.parent_key
     WHERE ${s.of('a')}TRUE
     ORDER BY a.account_number IS NULL, a.account_number, a.external_id`;
}

/** An account row of accountsSql as the API says it. */
export const glAccount = (r: Record<string, unknown>): GlAccount =>
  glAccountOf({
    ...(r as Omit<GlAccount, 'object' | 'account_kind'>),
    is_postable: flag(r.is_postable),
    is_active: flag(r.is_active),
    monetary: r.monetary === null || r.monetary === undefined ? null : flag(r.monetary),
  });

/**
 * The chart of accounts and the counterparties as every store keeps them: listed, checked as a
 * whole and imported. What a store reads on its hot path (the look-ups of a post) is its own.
 */
export class ChartTables {
  constructor(private readonly tables: Tables) {}

  accounts(): Promise<GlAccount[]> {
    return this.tables.once(async ({ sql, scope }) =>
      (await sql.all<Record<string, unknown>>(accountsSql(scope), [])).map(glAccount),
    );
  }

  counterparties(): Promise<Counterparty[]> {
    return this.tables.once(async ({ sql, scope }) => {
      const rows = await sql.all<Record<string, unknown>>(
        `SELECT id, counterparty_type, external_id, name, is_active, created_at, updated_at
         FROM counterparties c WHERE ${scope.of('c')}TRUE ORDER BY counterparty_type, external_id`,
        [],
      );
      return rows.map((r) => ({
        ...(r as Omit<Counterparty, 'object' | 'is_active'>),
        object: 'counterparty',
        is_active: flag(r.is_active),
      }));
    });
  }

  async importAccounts(load: () => Promise<ChartFile>): Promise<ImportCounts> {
    const file = await load();
    const who = whoNow();
    return this.tables.write(async (s, entity) => {
      // Checked under the write lock, as the chart the file leaves behind when it is applied.
      const { rows, problems } = checkChart(
        file.records,
        await chartShapes(s),
        exponentOf(entity.currency),
        entity.currency,
      );
      if (problems.length > 0) throw chartRefused(file.name, problems);
      const counts = await this.upsertAccounts(s, rows);
      if (counts.created + counts.updated > 0)
        await recordChange(
          s,
          who,
          'chart.imported',
          [file.name],
          `chart of accounts from ${file.name}: ${counts.created} created, ${counts.updated} updated`,
        );
      return counts;
    });
  }

  /** Creates the new accounts and updates the changed ones; an account the file leaves as it is stays untouched. */
  private async upsertAccounts({ sql, scope }: Session, rows: ChartRow[]): Promise<ImportCounts> {
    const ts = this.tables.stamp();
    const stored = new Map(
      (
        await sql.all<Record<string, unknown>>(
          `SELECT a.external_id, a.account_number, a.name, a.account_type, p.external_id AS parent_external_id,
                  a.is_postable, a.is_active, a.currency, a.monetary, a.cash_flow
           FROM accounts a LEFT JOIN accounts p ON ${scope.joined('p', 'a')}p.key = a.parent_key
           WHERE ${scope.of('a')}TRUE`,
          [],
        )
      ).map((a) => [
        a.external_id as string,
        {
          ...a,
          is_postable: flag(a.is_postable),
          is_active: flag(a.is_active),
          monetary: a.monetary === null ? null : flag(a.monetary),
          cash_flow: a.cash_flow ?? null,
        } as StoredChartRow,
      ]),
    );
    const changed = changedRows(rows, stored);
    const ofAccount = `${scope.of('accounts')}external_id = ?`;
    // Numbers may move between accounts within one file: clear them first so UNIQUE holds midway.
    for (const r of changed)
      if (stored.has(r.external_id))
        await sql.run(`UPDATE accounts SET account_number = NULL WHERE ${ofAccount}`, [
          r.external_id,
        ]);
    const [last] = await sql.all<{ key: number }>(
      `SELECT COALESCE(MAX(key), 0) AS key FROM accounts WHERE ${scope.of('accounts')}TRUE`,
      [],
    );
    let key = last!.key;
    for (const r of changed) {
      const flags = [r.account_type, +r.is_postable, +r.is_active, r.currency];
      const monetary = r.monetary === null ? null : +r.monetary;
      if (!stored.has(r.external_id))
        await sql.insert('accounts', scope.columns(ACCOUNT_COLUMNS), [
          scope.row([
            ++key,
            newId('acct'),
            r.external_id,
            r.account_number,
            r.name,
            ...flags,
            ts,
            ts,
            monetary,
            r.cash_flow,
          ]),
        ]);
      else
        await sql.run(
          `UPDATE accounts SET account_number = ?, name = ?, account_type = ?, is_postable = ?,
             is_active = ?, currency = ?, updated_at = ?, monetary = ?, cash_flow = ? WHERE ${ofAccount}`,
          [r.account_number, r.name, ...flags, ts, monetary, r.cash_flow, r.external_id],
        );
    }
    for (const r of changed)
      await sql.run(
        `UPDATE accounts SET parent_key = (SELECT p.key FROM accounts p WHERE ${scope.of('p')}p.external_id = ?)
         WHERE ${ofAccount}`,
        [r.parent_external_id, r.external_id],
      );
    const created = changed.filter((r) => !stored.has(r.external_id)).length;
    return { created, updated: changed.length - created, unchanged: rows.length - changed.length };
  }

  async importCounterparties(load: () => Promise<CounterpartyRow[]>): Promise<ImportCounts> {
    const rows = await load();
    const who = whoNow();
    return this.tables.write(async (s) => {
      const { sql, scope } = s;
      const ts = this.tables.stamp();
      const name = (type: string, id: string) => `${type}\u0000${id}`;
      const had = new Map(
        (
          await sql.all<Record<string, unknown>>(
            `SELECT counterparty_type, external_id, name, is_active FROM counterparties c
             WHERE ${scope.of('c')}TRUE`,
            [],
          )
        ).map((c) => [
          name(c.counterparty_type as string, c.external_id as string),
          { name: c.name as string, is_active: flag(c.is_active) },
        ]),
      );
      const counts = { created: 0, updated: 0, unchanged: 0 };
      for (const r of rows) {
        const key = name(r.counterparty_type, r.external_id);
        const change = counterpartyChange(had.get(key), r);
        counts[change]++;
        had.set(key, { name: r.name, is_active: r.is_active });
        if (change === 'created')
          await sql.insert('counterparties', scope.columns(COUNTERPARTY_COLUMNS), [
            scope.row([
              newId('cp'),
              r.counterparty_type,
              r.external_id,
              r.name,
              +r.is_active,
              ts,
              ts,
            ]),
          ]);
        else if (change === 'updated')
          await sql.run(
            `UPDATE counterparties SET name = ?, is_active = ?, updated_at = ?
             WHERE ${scope.of('counterparties')}counterparty_type = ? AND external_id = ?`,
            [r.name, +r.is_active, ts, r.counterparty_type, r.external_id],
          );
      }
      if (counts.created + counts.updated > 0)
        await recordChange(
          s,
          who,
          'counterparties.imported',
          [],
          `counterparties: ${counts.created} created, ${counts.updated} updated`,
        );
      return counts;
    });
  }
}

const ACCOUNT_COLUMNS = [
  { name: 'key', type: 'int8' },
  ...['id', 'external_id', 'account_number', 'name', 'account_type'].map(text),
  { name: 'is_postable', type: 'bool' },
  { name: 'is_active', type: 'bool' },
  ...['currency', 'created_at', 'updated_at'].map(text),
  { name: 'monetary', type: 'bool' },
  text('cash_flow'),
] as const;

const COUNTERPARTY_COLUMNS = [
  ...['id', 'counterparty_type', 'external_id', 'name'].map(text),
  { name: 'is_active', type: 'bool' },
  ...['created_at', 'updated_at'].map(text),
] as const;

function text(name: string) {
  return { name, type: 'text' } as const;
}

/** The chart's tree as the whole-chart checks read it, with what each account holds. */
export async function chartShapes({ sql, scope }: Session): Promise<ChartShape[]> {
  const rows = await sql.all<Record<string, unknown>>(
    `SELECT a.external_id, a.account_number, a.account_type, p.external_id AS parent_external_id,
            a.is_postable, a.currency, t.lines, t.balance, c.cleared
     FROM accounts a LEFT JOIN accounts p ON ${scope.joined('p', 'a')}p.key = a.parent_key
     LEFT JOIN (SELECT account_key, SUM(line_count) AS lines, SUM(net_atoms) AS balance
                FROM account_month_totals t WHERE ${scope.of('t')}TRUE GROUP BY account_key) t
       ON t.account_key = a.key
     LEFT JOIN (SELECT account_key, COUNT(*) AS cleared FROM line_marks m
                WHERE m.entity_id = ? GROUP BY account_key) c ON c.account_key = a.key
     WHERE ${scope.of('a')}TRUE`,
    [scope.reconId],
  );
  return rows.map(({ lines, balance, is_postable, cleared, ...shape }) => ({
    ...(shape as Omit<ChartShape, 'posted' | 'is_postable' | 'cleared'>),
    is_postable: flag(is_postable),
    posted: { lines: Number(lines ?? 0), balance: balanceOf(balance) },
    cleared: Number(cleared ?? 0),
  }));
}

/**
 * An account's balance as its totals sum: exact, or, where a damaged file holds a fraction, the
 * whole number away from zero (what the chart's checks ask is whether it holds one; check names the
 * fraction in the totals).
 */
function balanceOf(v: unknown): bigint {
  if (v === null || v === undefined) return 0n;
  const whole = wholeOf(v);
  if (whole !== null) return whole;
  // A database's sum (numeric), or a file's past a 64-bit integer (exact_sum), comes as its digits.
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  const n = Number(v);
  return Number.isFinite(n) ? BigInt(n > 0 ? Math.ceil(n) : Math.floor(n)) : 0n;
}
