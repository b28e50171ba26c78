import { storedAtoms } from '../../domain/money.js';
import type { RecurringTemplate } from '../../domain/recurring.js';
import type { Sql } from './dialect.js';
import type { PlanWrites } from '../plans/store.js';
import type { BudgetCellRow } from '../reports/reports.js';

/** What the close's plans read of a store inside one of its transactions: budgets and templates. */
/** The tables of budgets and recurring templates, in the same statements on every store. */
export class PlanTables implements PlanWrites {
  constructor(
    private readonly sql: Sql,
    private readonly entity: string,
  ) {}

  async budgetRows(): Promise<BudgetCellRow[]> {
    const rows = await this.sql.all<BudgetCellRow>(
      `SELECT account_key, period, amount_atoms FROM budgets WHERE entity_id = ?
       ORDER BY account_key, period`,
      [this.entity],
    );
    return rows.map((r) => ({
      account_key: Number(r.account_key),
      period: r.period,
      amount_atoms: storedAtoms(r.amount_atoms),
    }));
  }

  async setBudgets(rows: BudgetCellRow[]): Promise<void> {
    for (const r of rows) {
      await this.sql.run(
        `INSERT INTO budgets (entity_id, account_key, period, amount_atoms) VALUES (?, ?, ?, ?)
         ON CONFLICT (entity_id, account_key, period) DO UPDATE SET amount_atoms = excluded.amount_atoms`,
        [this.entity, r.account_key, r.period, r.amount_atoms],
      );
    }
  }

  async templates(): Promise<RecurringTemplate[]> {
    const rows = await this.sql.all<Omit<RecurringTemplate, 'entry'> & { entry: string }>(
      `SELECT name, every, day, start_date, end_date, entry, created_at FROM recurring_templates
       WHERE entity_id = ? ORDER BY name`,
      [this.entity],
    );
    return rows.map((r) => ({
      ...r,
      day: r.day === null ? null : Number(r.day),
      entry: JSON.parse(r.entry) as Record<string, unknown>,
    }));
  }

  async addTemplate(t: RecurringTemplate): Promise<void> {
    await this.sql.run(
      `INSERT INTO recurring_templates (entity_id, name, every, day, start_date, end_date, entry, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        this.entity,
        t.name,
        t.every,
        t.day,
        t.start_date,
        t.end_date,
        JSON.stringify(t.entry),
        t.created_at,
      ],
    );
  }

  async removeTemplate(name: string): Promise<boolean> {
    const had = await this.sql.all<{ name: string }>(
      `SELECT name FROM recurring_templates WHERE entity_id = ? AND name = ?`,
      [this.entity, name],
    );
    if (!had.length) return false;
    await this.sql.run(`DELETE FROM recurring_templates WHERE entity_id = ? AND name = ?`, [
      this.entity,
      name,
    ]);
    return true;
  }
}
