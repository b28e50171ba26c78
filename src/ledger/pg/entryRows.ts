import { ADD_TOTALS, addTagTotals, addTotals } from './totalsSql.js';
import { addTagTotalsOfEntries } from '../sql/tagTotals.js';
import { Scope } from '../sql/dialect.js';
import type { RowTarget } from '../journal/entryRows.js';
import { prepared, type Query } from './db.js';
import { arrayLiteral } from './execute.js';
import { numbered } from './tables.js';

/** The type of each column an EntryWriter writes, for the arrays a statement takes them in. */
const TYPES: Record<string, string> = {
  entity_id: 'text',
  // audit_events (sql/auditTables.ts AUDIT_COLUMNS)
  at: 'text',
  actor: 'text',
  via: 'text',
  action: 'text',
  objects: 'text',
  summary: 'text',
  entries: 'int8',
  record: 'text',
  amended: 'text',
  hash: 'text',
  seq: 'int8',
  id: 'text',
  je_number: 'text',
  je_seq: 'int8',
  je_seq_uncounted: 'int8',
  entry_date: 'text',
  currency: 'text',
  memo: 'text',
  source: 'text',
  status: 'text',
  is_adjusting: 'int4',
  manual_entry_reason: 'text',
  total_atoms: 'int8',
  line_count: 'int4',
  original_seq: 'int8',
  fingerprint: 'text',
  created_at: 'text',
  updated_at: 'text',
  entry_seq: 'int8',
  line_no: 'int4',
  account_key: 'int4',
  line_type: 'text',
  amount_atoms: 'int8',
  counterparty_id: 'text',
  fx_currency: 'text',
  fx_amount_atoms: 'int8',
  fx_rate: 'text',
  system: 'text',
  tags: 'text',
};

/**
 * Rows as one array per column (one statement, one parse, however many rows), each column written
 * as an array literal here: node-postgres's own writing of arrays, element by element, was a tenth
 * of a database import's time in the client.
 */
function columnsOf(values: unknown[], width: number, rows: number): string[] {
  const out = new Array<string>(width);
  for (let c = 0; c < width; c++) out[c] = arrayLiteral(rows, (r) => values[r * width + c]);
  return out;
}

const statements = new Map<string, string>();
/**
 * `INSERT … SELECT FROM unnest($at::t[], …)`: the rows of a table as arrays, one per column, the
 * arrays numbered from `at`.
 */
function unnestInsert(table: string, columns: readonly string[], at = 1): string {
  const key = `${table}(${columns.join()})${at}`;
  let sql = statements.get(key);
  if (sql === undefined) {
    const arrays = columns.map((c, i) => `$${at + i}::${TYPES[c]}[]`).join(', ');
    const list = columns.map((c) => (c === 'is_adjusting' ? `${c} <> 0` : c)).join(', ');
    sql = `INSERT INTO ${table} (${columns.join(', ')})
      SELECT ${list} FROM unnest(${arrays}) AS x(${columns.join(', ')})`;
    statements.set(key, sql);
  }
  return sql;
}

/** Rows per statement of a database's import: large, as each statement is a round trip. */
const ROWS_PER_ARRAY = 2000;

/**
 * The statements of one entry's write as one (data-modifying WITH clauses, which PostgreSQL runs
 * all of, in one round trip, as one prepared statement per shape): a posting under its entity's
 * lock spent most of its time on round trips, a dozen per entry.
 */
export class OneStatement {
  private readonly parts: string[] = [];
  private readonly params: unknown[] = [];

  /** Adds a statement whose parameters are numbered from `at`. */
  add(sql: (at: number) => string, params: unknown[]): void {
    this.parts.push(sql(this.params.length + 1));
    this.params.push(...params);
  }

  /** The rows of an entry as an EntryWriter writes them, added here rather than run. */
  target(entityId: string): RowTarget {
    const unsupported = () => {
      throw new Error('one entry’s write neither renumbers nor changes memos');
    };
    return {
      scope: { column: 'entity_id', value: entityId },
      perStatement: ROWS_PER_ARRAY,
      insert: (table, columns, values, rows) =>
        this.add((at) => unnestInsert(table, columns, at), columnsOf(values, columns.length, rows)),
      renumber: unsupported,
      setMemo: unsupported,
      addTotals: (rows) => this.add(addTotals, columnsOf(rows.flat(), 7, rows.length)),
      tagTotals: {
        rows: (rows) => this.add(addTagTotals, columnsOf(rows.flat(), 9, rows.length)),
      },
    };
  }

  async run(q: Query): Promise<void> {
    const last = this.parts.length - 1;
    if (last < 0) return;
    const withs = this.parts.slice(0, last).map((p, i) => `w${i} AS (${p})`);
    const sql = withs.length ? `WITH ${withs.join(',\n')}\n${this.parts[last]}` : this.parts[0]!;
    await q(prepared(sql), this.params);
  }
}

/** An entity's tables as an EntryWriter writes them, on one connection. */
export const entityRows = (q: Query, entityId: string): RowTarget => ({
  scope: { column: 'entity_id', value: entityId },
  perStatement: ROWS_PER_ARRAY,
  insert: (table, columns, values, rows) =>
    q(unnestInsert(table, columns), columnsOf(values, columns.length, rows)),
  renumber: (from, to) =>
    q(
      `UPDATE journal_entries SET je_number = $3, je_seq = $4, je_seq_uncounted = $5
       WHERE entity_id = $1 AND je_number = $2`,
      [entityId, from, to.je_number, to.counted?.toString(), to.uncounted?.toString()],
    ),
  setMemo: (jeNumber, memo) =>
    q(`UPDATE journal_entries SET memo = $3 WHERE entity_id = $1 AND je_number = $2`, [
      entityId,
      jeNumber,
      memo,
    ]),
  addTotals: (rows) => q(ADD_TOTALS, columnsOf(rows.flat(), 7, rows.length)),
  tagTotals: {
    since: (after, through) =>
      q(numbered(addTagTotalsOfEntries(new Scope(entityId))), [after, through]),
  },
});
