import type { CheckedLine } from '../../domain/reconcile.js';
import type {
  LineMark,
  ReconReads,
  ReconWrites,
  ReconciliationRow,
  Sql,
  StatementLineRow,
} from '../reconcileStore.js';

const LINE_COLUMNS = `id, account_key, ordinal, line_date, amount_atoms, description, reference, bank_id,
  state, reconciliation_id`;
const MARK_COLUMNS = `entry_seq, line_no, account_key, entry_date, net_atoms, cleared_date,
  statement_line_id, reconciliation_id`;
/** Rows per INSERT: far below either store's limit of parameters. */
const CHUNK = 400;

const num = (v: unknown): number => Number(v);
const markOf = (r: LineMark): LineMark => ({
  ...r,
  entry_seq: num(r.entry_seq),
  line_no: num(r.line_no),
  account_key: num(r.account_key),
  net_atoms: num(r.net_atoms),
});
const lineOf = (r: StatementLineRow): StatementLineRow => ({
  ...r,
  account_key: num(r.account_key),
  ordinal: num(r.ordinal),
  amount_atoms: num(r.amount_atoms),
});
const recOf = (r: ReconciliationRow): ReconciliationRow => ({
  ...r,
  account_key: num(r.account_key),
  statement_balance_atoms: num(r.statement_balance_atoms),
  line_count: num(r.line_count),
});

/**
 * Reconciliation's tables, in the same statements on every store (each table keyed by entity first).
 * Only what reads the journal itself (`journalLines`, `strayMarks`) is the store's own.
 */
export class ReconTables implements ReconWrites {
  constructor(
    private readonly sql: Sql,
    private readonly entity: string,
    private readonly journal: Pick<ReconReads, 'journalLines' | 'strayMarks'>,
  ) {}

  journalLines(refs: { seq: number; line_no: number }[]) {
    return this.journal.journalLines(refs);
  }

  strayMarks() {
    return this.journal.strayMarks();
  }

  async statementLines(key: number, ids?: string[]): Promise<StatementLineRow[]> {
    const rows: StatementLineRow[] = [];
    const where = `entity_id = ? AND account_key = ?`;
    const order = `ORDER BY line_date, ordinal`;
    if (ids === undefined)
      rows.push(
        ...(await this.sql.all<StatementLineRow>(
          `SELECT ${LINE_COLUMNS} FROM statement_lines WHERE ${where} ${order}`,
          [this.entity, key],
        )),
      );
    else
      for (const part of chunks(ids))
        rows.push(
          ...(await this.sql.all<StatementLineRow>(
            `SELECT ${LINE_COLUMNS} FROM statement_lines WHERE ${where} AND id IN (${marks(part)}) ${order}`,
            [this.entity, key, ...part],
          )),
        );
    return rows.map(lineOf);
  }

  async identitiesTaken(key: number, identities: string[]): Promise<Set<string>> {
    const taken = new Set<string>();
    for (const part of chunks(identities))
      for (const r of await this.sql.all<{ identity: string }>(
        `SELECT identity FROM statement_lines WHERE entity_id = ? AND account_key = ?
         AND identity IN (${marks(part)})`,
        [this.entity, key, ...part],
      ))
        taken.add(r.identity);
    return taken;
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
    for (const part of chunks(q.lines ?? []))
      out.push(
        ...(await this.sql.all<LineMark>(
          `SELECT ${MARK_COLUMNS} FROM line_marks WHERE entity_id = ? AND (${part
            .map(() => '(entry_seq = ? AND line_no = ?)')
            .join(' OR ')})`,
          [this.entity, ...part.flatMap((l) => [l.seq, l.line_no])],
        )),
      );
    for (const part of chunks(q.statementLines ?? []))
      out.push(
        ...(await this.sql.all<LineMark>(
          `SELECT ${MARK_COLUMNS} FROM line_marks WHERE entity_id = ? AND statement_line_id IN (${marks(part)})
           ORDER BY entry_seq, line_no`,
          [this.entity, ...part],
        )),
      );
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
    return r ? { date: r.date, balance_atoms: num(r.balance_atoms) } : null;
  }

  async reconciledSums(): Promise<(ReconciliationRow & { reconciled: bigint })[]> {
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
    const ids: string[] = [];
    let ordinal = num(top?.n ?? 0);
    for (const part of chunks(lines))
      await this.sql.run(
        `INSERT INTO statement_lines (entity_id, id, account_key, ordinal, line_date, amount_atoms,
           description, reference, bank_id, identity, state, imported_at)
         VALUES ${part.map(() => `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'unmatched', ?)`).join(', ')}`,
        part.flatMap((l) => [
          this.entity,
          ids[ids.push(`stl_${++ordinal}`) - 1],
          key,
          ordinal,
          l.date,
          l.amount_atoms,
          l.description,
          l.reference,
          l.bank_id,
          l.identity,
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

  async setState(ids: string[], state: StatementLineRow['state']): Promise<void> {
    for (const part of chunks(ids))
      await this.sql.run(
        `UPDATE statement_lines SET state = ? WHERE entity_id = ? AND id IN (${marks(part)})`,
        [state, this.entity, ...part],
      );
  }

  async addMarks(rows: LineMark[]): Promise<void> {
    for (const part of chunks(rows))
      await this.sql.run(
        `INSERT INTO line_marks (entity_id, ${MARK_COLUMNS})
         VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        part.flatMap((m) => [
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
    for (const part of chunks(lines))
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

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

const marks = (items: unknown[]): string => items.map(() => '?').join(', ');
