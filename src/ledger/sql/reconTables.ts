import type { CheckedLine } from '../../domain/reconcile.js';
import { storedAtoms } from '../../domain/money.js';
import { reconDamage } from './reconChecks.js';
import type {
  LineMark,
  ReconReads,
  ReconWrites,
  ReconciliationRow,
  StatementLineRow,
  StoredSource,
} from '../reconcile/store.js';
import type { Column, Sql } from './dialect.js';
import type { StatementLayout } from '../../domain/statementLayout.js';

const LINE_COLUMNS = `id, account_key, ordinal, line_date, amount_atoms, description, reference, bank_id,
  state, reconciliation_id`;
const MARK_COLUMNS = `entry_seq, line_no, account_key, entry_date, net_atoms, cleared_date,
  statement_line_id, reconciliation_id`;
/** Lines named by place per statement: each is an OR of its own, and SQLite's parser nests them. */
const PAIRS = 400;

const text = (name: string): Column => ({ name, type: 'text' });
const int = (name: string): Column => ({ name, type: 'int8' });
/** The columns a statement line and a cleared line are inserted with (an import's, a restore's). */
export const LINE_INSERT: readonly Column[] = [
  text('entity_id'),
  text('id'),
  int('account_key'),
  int('ordinal'),
  text('line_date'),
  int('amount_atoms'),
  text('description'),
  text('reference'),
  text('bank_id'),
  text('identity'),
  text('state'),
  text('reconciliation_id'),
  text('imported_at'),
];
export const MARK_INSERT: readonly Column[] = [
  text('entity_id'),
  int('entry_seq'),
  int('line_no'),
  int('account_key'),
  text('entry_date'),
  int('net_atoms'),
  text('cleared_date'),
  text('statement_line_id'),
  text('reconciliation_id'),
];

const num = (v: unknown): number => Number(v);
const markOf = (r: LineMark): LineMark => ({
  ...r,
  entry_seq: num(r.entry_seq),
  line_no: num(r.line_no),
  account_key: num(r.account_key),
  net_atoms: storedAtoms(r.net_atoms),
});
const lineOf = (r: StatementLineRow): StatementLineRow => ({
  ...r,
  account_key: num(r.account_key),
  ordinal: num(r.ordinal),
  amount_atoms: storedAtoms(r.amount_atoms),
});
const recOf = (r: ReconciliationRow): ReconciliationRow => ({
  ...r,
  account_key: num(r.account_key),
  statement_balance_atoms: storedAtoms(r.statement_balance_atoms),
  line_count: num(r.line_count),
});

/**
 * Reconciliation's tables, in the same statements on every store (each table keyed by entity first).
 * Only what reads the journal itself (`journalLines`, `strayMarks`, `reversalLinks`) is the
 * store's own.
 */
export class ReconTables implements ReconWrites {
  constructor(
    private readonly sql: Sql,
    private readonly entity: string,
    private readonly journal: Pick<ReconReads, 'journalLines' | 'strayMarks' | 'reversalLinks'>,
  ) {}

  journalLines(refs: { seq: number; line_no: number }[]) {
    return this.journal.journalLines(refs);
  }

  strayMarks() {
    return this.journal.strayMarks();
  }

  reversalLinks(seqs: number[]) {
    return seqs.length ? this.journal.reversalLinks(seqs) : Promise.resolve([]);
  }

  damage() {
    return reconDamage(this.sql, this.entity);
  }

  async statementLines(key: number, ids?: string[]): Promise<StatementLineRow[]> {
    // No line's id holds a NUL: such an id names none (PostgreSQL's text cannot even be asked it).
    if (ids) ids = ids.filter((id) => !id.includes('\u0000'));
    if (ids?.length === 0) return [];
    const where = `entity_id = ? AND account_key = ?`;
    const any = ids === undefined ? null : this.sql.anyOf('id', ids);
    const rows = await this.sql.all<StatementLineRow>(
      `SELECT ${LINE_COLUMNS} FROM statement_lines WHERE ${where} ${any ? `AND ${any.sql}` : ''}
       ORDER BY line_date, ordinal`,
      any ? [this.entity, key, any.param] : [this.entity, key],
    );
    return rows.map(lineOf);
  }

  async identitiesTaken(key: number, identities: string[]): Promise<Set<string>> {
    const any = this.sql.anyOf('identity', identities);
    const rows = await this.sql.all<{ identity: string }>(
      `SELECT identity FROM statement_lines WHERE entity_id = ? AND account_key = ? AND ${any.sql}`,
      [this.entity, key, any.param],
    );
    return new Set(rows.map((r) => r.identity));
  }

  async marks(key: number, from: string, to: string): Promise<LineMark[]> {
    const rows = await this.sql.all<LineMark>(
      `SELECT ${MARK_COLUMNS} FROM line_marks WHERE entity_id = ? AND account_key = ?
       AND entry_date >= ? AND entry_date <= ?`,
      [this.entity, key, from, to],
    );
    return rows.map(markOf);
  }

  async marksOf(q: {
    lines?: { seq: number; line_no: number }[];
    statementLines?: string[];
  }): Promise<LineMark[]> {
    const out: LineMark[] = [];
    for (const part of chunks(q.lines ?? [], PAIRS))
      out.push(
        ...(await this.sql.all<LineMark>(
          `SELECT ${MARK_COLUMNS} FROM line_marks WHERE entity_id = ? AND (${part
            .map(() => '(entry_seq = ? AND line_no = ?)')
            .join(' OR ')})`,
          [this.entity, ...part.flatMap((l) => [l.seq, l.line_no])],
        )),
      );
    if (q.statementLines?.length) {
      const any = this.sql.anyOf('statement_line_id', q.statementLines);
      out.push(
        ...(await this.sql.all<LineMark>(
          `SELECT ${MARK_COLUMNS} FROM line_marks WHERE entity_id = ? AND ${any.sql}
           ORDER BY entry_seq, line_no`,
          [this.entity, any.param],
        )),
      );
    }
    return out.map(markOf);
  }

  async clearedThrough(key: number, date: string): Promise<{ total: bigint; after: LineMark[] }> {
    const [sum] = await this.sql.all<{ total: unknown }>(
      `SELECT SUM(net_atoms) AS total FROM line_marks WHERE entity_id = ? AND account_key = ?
       AND cleared_date <= ?`,
      [this.entity, key, date],
    );
    const after = await this.sql.all<LineMark>(
      `SELECT ${MARK_COLUMNS} FROM line_marks WHERE entity_id = ? AND account_key = ?
       AND cleared_date <= ? AND entry_date > ? ORDER BY entry_date, entry_seq, line_no`,
      [this.entity, key, date, date],
    );
    return { total: BigInt(String(sum?.total ?? 0)), after: after.map(markOf) };
  }

  async reconciliations(key: number): Promise<ReconciliationRow[]> {
    const rows = await this.sql.all<ReconciliationRow>(
      `SELECT id, account_key, statement_date, statement_balance_atoms, line_count, finished_at
       FROM reconciliations WHERE entity_id = ? AND account_key = ? ORDER BY statement_date`,
      [this.entity, key],
    );
    return rows.map(recOf);
  }

  async allMarks(): Promise<LineMark[]> {
    const rows = await this.sql.all<LineMark>(
      `SELECT ${MARK_COLUMNS} FROM line_marks WHERE entity_id = ?`,
      [this.entity],
    );
    return rows.map(markOf);
  }

  async closing(key: number): Promise<{ date: string; balance_atoms: number } | null> {
    const [r] = await this.sql.all<{ date: string; balance_atoms: unknown }>(
      `SELECT closing_date AS date, balance_atoms FROM statement_closings
       WHERE entity_id = ? AND account_key = ?`,
      [this.entity, key],
    );
    return r ? { date: r.date, balance_atoms: storedAtoms(r.balance_atoms) } : null;
  }

  async source(key: number): Promise<StoredSource> {
    const [r] = await this.sql.all<{
      layout: string | null;
      acctid: string | null;
      bankid: string | null;
    }>(
      `SELECT layout, acctid, bankid FROM statement_sources WHERE entity_id = ? AND account_key = ?`,
      [this.entity, key],
    );
    return {
      layout: r?.layout ? (JSON.parse(r.layout) as StatementLayout) : null,
      known: r?.acctid ? { acctid: r.acctid, bankid: r.bankid } : null,
    };
  }

  async reconciledSums(): Promise<(ReconciliationRow & { reconciled: bigint })[]> {
    await this.sql.wholeReads();
    const rows = await this.sql.all<ReconciliationRow & { reconciled: unknown }>(
      `SELECT r.id, r.account_key, r.statement_date, r.statement_balance_atoms, r.line_count,
              r.finished_at,
              (SELECT SUM(m.net_atoms) FROM line_marks m WHERE m.entity_id = r.entity_id
                 AND m.account_key = r.account_key AND m.reconciliation_id IS NOT NULL
                 AND m.cleared_date <= r.statement_date) AS reconciled
       FROM reconciliations r WHERE r.entity_id = ? ORDER BY r.account_key, r.statement_date`,
      [this.entity],
    );
    return rows.map((r) => ({ ...recOf(r), reconciled: BigInt(String(r.reconciled ?? 0)) }));
  }

  async addStatementLines(key: number, lines: CheckedLine[], at: string): Promise<string[]> {
    // Ids are numbered through the entity (stl_1, stl_2, ...), short enough to type; a write holds
    // the entity's lock, so no two imports take one number.
    const [top] = await this.sql.all<{ n: unknown }>(
      `SELECT MAX(ordinal) AS n FROM statement_lines WHERE entity_id = ?`,
      [this.entity],
    );
    const first = num(top?.n ?? 0) + 1;
    const ids = lines.map((_, i) => `stl_${first + i}`);
    await this.sql.insert(
      'statement_lines',
      LINE_INSERT,
      lines.map((l, i) => [
        this.entity,
        ids[i],
        key,
        first + i,
        l.date,
        l.amount_atoms,
        l.description,
        l.reference,
        l.bank_id,
        l.identity,
        'unmatched',
        null,
        at,
      ]),
    );
    return ids;
  }

  async setClosing(key: number, c: { date: string; balance_atoms: number }): Promise<void> {
    await this.sql.run(`DELETE FROM statement_closings WHERE entity_id = ? AND account_key = ?`, [
      this.entity,
      key,
    ]);
    await this.sql.run(
      `INSERT INTO statement_closings (entity_id, account_key, closing_date, balance_atoms)
       VALUES (?, ?, ?, ?)`,
      [this.entity, key, c.date, c.balance_atoms],
    );
  }

  async setSource(key: number, s: StoredSource): Promise<void> {
    await this.sql.run(`DELETE FROM statement_sources WHERE entity_id = ? AND account_key = ?`, [
      this.entity,
      key,
    ]);
    if (s.layout || s.known)
      await this.sql.run(
        `INSERT INTO statement_sources (entity_id, account_key, layout, acctid, bankid)
         VALUES (?, ?, ?, ?, ?)`,
        [
          this.entity,
          key,
          s.layout ? JSON.stringify(s.layout) : null,
          s.known?.acctid ?? null,
          s.known?.bankid ?? null,
        ],
      );
  }

  async setState(ids: string[], state: StatementLineRow['state']): Promise<void> {
    if (ids.length === 0) return;
    const any = this.sql.anyOf('id', ids);
    await this.sql.run(`UPDATE statement_lines SET state = ? WHERE entity_id = ? AND ${any.sql}`, [
      state,
      this.entity,
      any.param,
    ]);
  }

  async addMarks(rows: LineMark[]): Promise<void> {
    await this.sql.insert(
      'line_marks',
      MARK_INSERT,
      rows.map((m) => [
        this.entity,
        m.entry_seq,
        m.line_no,
        m.account_key,
        m.entry_date,
        m.net_atoms,
        m.cleared_date,
        m.statement_line_id,
        m.reconciliation_id,
      ]),
    );
  }

  async removeMarks(lines: { seq: number; line_no: number }[]): Promise<void> {
    for (const part of chunks(lines, PAIRS))
      await this.sql.run(
        `DELETE FROM line_marks WHERE entity_id = ? AND (${part
          .map(() => '(entry_seq = ? AND line_no = ?)')
          .join(' OR ')})`,
        [this.entity, ...part.flatMap((l) => [l.seq, l.line_no])],
      );
  }

  async finish(r: ReconciliationRow): Promise<number> {
    const scope = [this.entity, r.account_key, r.statement_date];
    const [count] = await this.sql.all<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM line_marks WHERE entity_id = ? AND account_key = ?
       AND cleared_date <= ? AND reconciliation_id IS NULL`,
      scope,
    );
    const taken = num(count?.n ?? 0);
    await this.sql.run(
      `INSERT INTO reconciliations (entity_id, id, account_key, statement_date,
         statement_balance_atoms, line_count, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [
        this.entity,
        r.id,
        r.account_key,
        r.statement_date,
        r.statement_balance_atoms,
        taken,
        r.finished_at,
      ],
    );
    for (const table of ['line_marks', 'statement_lines'])
      await this.sql.run(
        `UPDATE ${table} SET reconciliation_id = ? WHERE entity_id = ? AND account_key = ?
         AND ${table === 'line_marks' ? 'cleared_date' : 'line_date'} <= ?
         AND reconciliation_id IS NULL`,
        [r.id, ...scope],
      );
    return taken;
  }

  async undo(r: ReconciliationRow): Promise<void> {
    for (const table of ['line_marks', 'statement_lines'])
      await this.sql.run(
        `UPDATE ${table} SET reconciliation_id = NULL WHERE entity_id = ? AND reconciliation_id = ?`,
        [this.entity, r.id],
      );
    await this.sql.run(`DELETE FROM reconciliations WHERE entity_id = ? AND id = ?`, [
      this.entity,
      r.id,
    ]);
  }
}

/** Items in parts of at most `size`. */
function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
