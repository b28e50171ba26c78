import type { StatementLayout } from '../../domain/statementLayout.js';
import type { DumpCounts, DumpRecord, PlanRecord, ReconRecord } from '../../domain/dump.js';
import type { RecurringTemplate } from '../../domain/recurring.js';
import { PlanTables } from './planTables.js';
import { storedAtoms } from '../../domain/money.js';
import type { Column, Sql } from './dialect.js';
import { LINE_INSERT, MARK_INSERT } from './reconTables.js';

/** Rows read per page of a dump. */
const PAGE = 5000;

const text = (name: string): Column => ({ name, type: 'text' });
const int = (name: string): Column => ({ name, type: 'int8' });

/** What a store tells a dump or restore of reconciliation about its journal. */
export interface JournalNames {
  /** The id of each account, by key. */
  accountIds: Map<number, string>;
  /** The ids of these entries, by storage sequence. */
  entryIds(seqs: number[]): Promise<Map<number, string>>;
}

/**
 * Reconciliation's records of a dump, read through the dump's own reading (`sql` on its snapshot):
 * reconciliations, closing balances, statement lines and cleared lines, a page at a time.
 */
export async function* reconRecords(
  sql: Sql,
  entity: string,
  names: JournalNames,
  counts: DumpCounts,
): AsyncGenerator<DumpRecord> {
  const account = (key: unknown) => names.accountIds.get(Number(key))!;
  for (const r of await sql.all<Record<string, unknown>>(
    `SELECT id, account_key, statement_date, statement_balance_atoms, line_count, finished_at
     FROM reconciliations WHERE entity_id = ? ORDER BY account_key, statement_date`,
    [entity],
  )) {
    counts.reconciliations = (counts.reconciliations ?? 0) + 1;
    yield {
      type: 'reconciliation',
      id: r.id as string,
      account_id: account(r.account_key),
      statement_date: r.statement_date as string,
      statement_balance_atoms: storedAtoms(r.statement_balance_atoms),
      line_count: Number(r.line_count),
      finished_at: r.finished_at as string,
    };
  }
  for (const c of await sql.all<Record<string, unknown>>(
    `SELECT account_key, closing_date, balance_atoms FROM statement_closings WHERE entity_id = ?
     ORDER BY account_key`,
    [entity],
  ))
    yield {
      type: 'statement_closing',
      account_id: account(c.account_key),
      date: c.closing_date as string,
      balance_atoms: storedAtoms(c.balance_atoms),
    };
  for (const r of await sql.all<Record<string, unknown>>(
    `SELECT account_key, layout, acctid, bankid FROM statement_sources WHERE entity_id = ?
     ORDER BY account_key`,
    [entity],
  ))
    yield {
      type: 'statement_source',
      account_id: account(r.account_key),
      layout: r.layout ? (JSON.parse(r.layout as string) as StatementLayout) : null,
      acctid: (r.acctid as string | null) ?? null,
      bankid: (r.bankid as string | null) ?? null,
    };
  yield* statementLines(sql, entity, account, counts);
  yield* clearedLines(sql, entity, account, names, counts);
  yield* planRecords(sql, entity, account, counts);
}

/** The close's plans: budget cells by account, then recurring templates (few: read at once). */
async function* planRecords(
  sql: Sql,
  entity: string,
  account: (key: unknown) => string,
  counts: DumpCounts,
): AsyncGenerator<PlanRecord> {
  const plans = new PlanTables(sql, entity);
  for (const b of await plans.budgetRows()) {
    counts.budgets = (counts.budgets ?? 0) + 1;
    yield {
      type: 'budget',
      account_id: account(b.account_key),
      period: b.period,
      amount_atoms: b.amount_atoms,
    };
  }
  for (const t of await plans.templates()) {
    counts.recurring_templates = (counts.recurring_templates ?? 0) + 1;
    yield { type: 'recurring_template', ...t };
  }
}

async function* statementLines(
  sql: Sql,
  entity: string,
  account: (key: unknown) => string,
  counts: DumpCounts,
): AsyncGenerator<ReconRecord> {
  for (let after = 0; ;) {
    const rows = await sql.all<Record<string, unknown>>(
      `SELECT id, account_key, ordinal, line_date, amount_atoms, description, reference, bank_id,
              identity, state, reconciliation_id, imported_at
       FROM statement_lines WHERE entity_id = ? AND ordinal > ? ORDER BY ordinal LIMIT ${PAGE}`,
      [entity, after],
    );
    for (const l of rows) {
      counts.statement_lines = (counts.statement_lines ?? 0) + 1;
      yield {
        type: 'statement_line',
        id: l.id as string,
        account_id: account(l.account_key),
        ordinal: Number(l.ordinal),
        date: l.line_date as string,
        amount_atoms: storedAtoms(l.amount_atoms),
        description: l.description as string | null,
        reference: l.reference as string | null,
        bank_id: l.bank_id as string | null,
        identity: l.identity as string,
        state: l.state as 'unmatched' | 'matched' | 'ignored',
        reconciliation_id: l.reconciliation_id as string | null,
        imported_at: l.imported_at as string,
      };
    }
    if (rows.length < PAGE) return;
    after = Number(rows[rows.length - 1]!.ordinal);
  }
}

async function* clearedLines(
  sql: Sql,
  entity: string,
  account: (key: unknown) => string,
  names: JournalNames,
  counts: DumpCounts,
): AsyncGenerator<ReconRecord> {
  for (let seq = 0, no = 0; ;) {
    const rows = await sql.all<Record<string, unknown>>(
      `SELECT entry_seq, line_no, account_key, entry_date, net_atoms, cleared_date, statement_line_id,
              reconciliation_id
       FROM line_marks WHERE entity_id = ? AND (entry_seq > ? OR (entry_seq = ? AND line_no > ?))
       ORDER BY entry_seq, line_no LIMIT ${PAGE}`,
      [entity, seq, seq, no],
    );
    const ids = await names.entryIds([...new Set(rows.map((m) => Number(m.entry_seq)))]);
    for (const m of rows) {
      counts.cleared_lines = (counts.cleared_lines ?? 0) + 1;
      yield {
        type: 'cleared_line',
        entry_id: ids.get(Number(m.entry_seq))!,
        line_no: Number(m.line_no),
        account_id: account(m.account_key),
        entry_date: m.entry_date as string,
        net_atoms: storedAtoms(m.net_atoms),
        cleared_date: m.cleared_date as string,
        statement_line_id: m.statement_line_id as string | null,
        reconciliation_id: m.reconciliation_id as string | null,
      };
    }
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1]!;
    [seq, no] = [Number(last.entry_seq), Number(last.line_no)];
  }
}

/**
 * Reconciliation's records of a dump being restored: kept as they come (they follow every entry),
 * then written in bulk once the journal is in, with the keys and sequence numbers it was given.
 */
export class ReconRestore {
  private readonly rows: Record<ReconRecord['type'] | 'budget', unknown[][]> = {
    reconciliation: [],
    statement_closing: [],
    statement_source: [],
    statement_line: [],
    cleared_line: [],
    budget: [],
  };
  private readonly templates: RecurringTemplate[] = [];

  constructor(
    private readonly sql: Sql,
    private readonly entity: string,
  ) {}

  /** Keeps a record, with what names the journal left for `finish` to resolve. */
  add(r: ReconRecord | PlanRecord): void {
    const e = this.entity;
    switch (r.type) {
      case 'budget':
        return void this.rows.budget.push([r.account_id, r.period, r.amount_atoms]);
      case 'recurring_template': {
        const { type: _t, ...t } = r;
        return void this.templates.push(t);
      }
      case 'reconciliation':
        return void this.rows.reconciliation.push([
          e,
          r.id,
          r.account_id,
          r.statement_date,
          r.statement_balance_atoms,
          r.line_count,
          r.finished_at,
        ]);
      case 'statement_closing':
        return void this.rows.statement_closing.push([e, r.account_id, r.date, r.balance_atoms]);
      case 'statement_source':
        return void this.rows.statement_source.push([
          e,
          r.account_id,
          r.layout ? JSON.stringify(r.layout) : null,
          r.acctid,
          r.bankid,
        ]);
      case 'statement_line':
        return void this.rows.statement_line.push([
          e,
          r.id,
          r.account_id,
          r.ordinal,
          r.date,
          r.amount_atoms,
          r.description,
          r.reference,
          r.bank_id,
          r.identity,
          r.state,
          r.reconciliation_id,
          r.imported_at,
        ]);
      case 'cleared_line':
        return void this.rows.cleared_line.push([
          e,
          r.entry_id,
          r.line_no,
          r.account_id,
          r.entry_date,
          r.net_atoms,
          r.cleared_date,
          r.statement_line_id,
          r.reconciliation_id,
        ]);
    }
  }

  /** Writes what was kept: accounts by key, entries by their new sequence numbers. */
  async finish(accountKey: (id: string) => number, entrySeq: (id: string) => number) {
    const key = (rows: unknown[][], at: number) =>
      rows.map((r) => r.map((v, i) => (i === at ? accountKey(v as string) : v)));
    const { reconciliation, statement_closing, statement_source, statement_line, cleared_line } =
      this.rows;
    await this.sql.insert('reconciliations', RECONCILIATION, key(reconciliation, 2));
    await this.sql.insert('statement_closings', CLOSING, key(statement_closing, 1));
    await this.sql.insert('statement_sources', SOURCE, key(statement_source, 1));
    await this.sql.insert('statement_lines', LINE_INSERT, key(statement_line, 2));
    await this.sql.insert(
      'line_marks',
      MARK_INSERT,
      key(cleared_line, 3).map((r) => [r[0], entrySeq(r[1] as string), ...r.slice(2)]),
    );
    const plans = new PlanTables(this.sql, this.entity);
    await plans.setBudgets(
      this.rows.budget.map(([account, period, amount]) => ({
        account_key: accountKey(account as string),
        period: period as string,
        amount_atoms: amount as number,
      })),
    );
    for (const t of this.templates) await plans.addTemplate(t);
  }
}

const RECONCILIATION = [
  text('entity_id'),
  text('id'),
  int('account_key'),
  text('statement_date'),
  int('statement_balance_atoms'),
  int('line_count'),
  text('finished_at'),
];
const SOURCE = [
  text('entity_id'),
  int('account_key'),
  text('layout'),
  text('acctid'),
  text('bankid'),
];
const CLOSING = [text('entity_id'), int('account_key'), text('closing_date'), int('balance_atoms')];
