import type { EntityState } from '../journal/store.js';

/** A connection's statements, as both stores run them: `?` parameters, rows as objects. */
export interface Sql {
  /**
   * Rows as objects. Integers are numbers while exact as one, else bigints, and a sum may come as a
   * bigint either way (PostgreSQL's SUM of bigint is numeric): never a float. Booleans are what the
   * store keeps (true/false, or 1/0 in a file).
   */
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  run(sql: string, params: unknown[]): Promise<void>;
  /**
   * `column IN (values)` as the store takes many values best (one parameter: a JSON array, a
   * PostgreSQL array), for a statement's ten thousand lines: its SQL, and the parameter.
   */
  anyOf(
    column: string,
    values: string[] | number[],
    type?: 'text' | 'int8',
  ): {
    sql: string;
    param: unknown;
  };
  /** Inserts rows (values in the columns' order), as many in a statement as the store takes. */
  insert(table: string, columns: readonly Column[], rows: unknown[][]): Promise<void>;
  /**
   * Says that the rest of the transaction reads every row of the entity (a check): PostgreSQL then
   * plans no nested loops, which statistics that do not know a new entity yet make quadratic.
   */
  wholeReads(): Promise<void>;
}

/** A column of an insert, with its type for a store that sends rows as typed arrays. */
export interface Column {
  name: string;
  type: 'text' | 'int8' | 'int4' | 'bool' | 'bytea';
}

/** The entity column of reconciliation's rows in a ledger file (see Scope.reconId). */
export const FILE_ENTITY = '';

/**
 * An integer column as read, exactly; null for what a damaged file can hold instead (SQLite keeps
 * 3.5 or text in any column: check names it, and nothing may stop on it).
 */
export function wholeOf(v: unknown): bigint | null {
  if (typeof v === 'bigint') return v;
  return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : null;
}

/** A boolean as either store reads it back (a file keeps 1 and 0). */
export const flag = (v: unknown): boolean => v === true || v === 1 || v === 1n;

/**
 * Where one entity's rows are. A ledger file holds one entity: its journal and chart tables have no
 * entity column, and its settings are the one row of `entity`. A database holds many: every table
 * carries `entity_id`, and the settings are the entity's row of `entities`. Statements written once
 * for both stores take their differences from here.
 */
export class Scope {
  private readonly literal: string;

  /** entityId null: a ledger file. */
  constructor(readonly entityId: string | null) {
    // A literal, not a parameter: statements keep their `?` parameters in order whatever the store.
    this.literal = entityId === null ? '' : `'${entityId.replace(/'/g, "''")}'`;
  }

  /**
   * The entity as reconciliation's tables name it: they carry an entity column in a file too, where
   * it is FILE_ENTITY (a restore may change the file's entity id; its rows keep naming none).
   */
  get reconId(): string {
    return this.entityId ?? FILE_ENTITY;
  }

  /** `alias.entity_id = '…' AND ` where rows carry their entity; empty in a file. Begins a condition. */
  of(alias: string): string {
    return this.entityId === null ? '' : `${alias}.entity_id = ${this.literal} AND `;
  }

  /** A table's key as a GROUP BY names it: `alias.entity_id, alias.column`, or the column in a file. */
  key(alias: string, column: string): string {
    return this.entityId === null ? `${alias}.${column}` : `${alias}.entity_id, ${alias}.${column}`;
  }

  /** `a.entity_id = b.entity_id AND ` for a join within the entity; empty in a file. */
  joined(a: string, b: string): string {
    return this.entityId === null ? '' : `${a}.entity_id = ${b}.entity_id AND `;
  }

  /** The entity's settings row, with its id as `id`, as a FROM item named `entity`. */
  get settings(): string {
    return this.entityId === null
      ? 'entity'
      : `(SELECT entity_id AS id, * FROM entities WHERE entity_id = ${this.literal}) entity`;
  }

  /** The table of the entity's settings and the condition naming its row (for an UPDATE). */
  get settingsRow(): { table: string; where: string } {
    return this.entityId === null
      ? { table: 'entity', where: 'TRUE' }
      : { table: 'entities', where: `entity_id = ${this.literal}` };
  }

  /**
   * A FROM item of the (key, value) pairs of a JSON object column, as `alias.key` and `alias.value`
   * (each database has its own function for it; a file is SQLite, a database PostgreSQL).
   */
  jsonPairs(column: string, alias: string): string {
    return this.entityId === null
      ? `json_each(${column}) ${alias}`
      : `jsonb_each_text(${column}::jsonb) ${alias}`;
  }

  /** The text of one key of a JSON object column (null where it has none); `key` must be a tag key. */
  jsonText(column: string, key: string): string {
    return this.entityId === null
      ? `json_extract(${column}, '$."${key}"')`
      : `(${column}::jsonb ->> '${key}')`;
  }

  /**
   * The database's clock now, as ISO 8601 text in UTC with milliseconds (the time of the statement,
   * not of the transaction's start: events numbered under the lock then never go back in time).
   */
  get clock(): string {
    return this.entityId === null
      ? `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
      : `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }

  /** Where a parameter's text first occurs in a text column (0: nowhere). */
  contains(column: string): string {
    return this.entityId === null ? `instr(${column}, ?)` : `strpos(${column}, ?)`;
  }

  /** An insert's columns and a row's values, the entity's id first where rows carry it. */
  columns(columns: readonly Column[]): Column[] {
    return this.entityId === null
      ? [...columns]
      : [{ name: 'entity_id', type: 'text' }, ...columns];
  }

  row(values: unknown[]): unknown[] {
    return this.entityId === null ? values : [this.entityId, ...values];
  }
}

/** A transaction of a store as statements written once see it. */
export interface Session {
  sql: Sql;
  scope: Scope;
}

/**
 * A store's transactions for the store-neutral code of check, rebuild, dump, restore, the chart and
 * keys: the store decides what a transaction is (a file's IMMEDIATE transaction, a database
 * transaction that holds the entity's row lock); the statements are the same.
 */
export interface Tables {
  /** One read transaction: a consistent view across statements. */
  read<T>(fn: (s: Session) => Promise<T>): Promise<T>;
  /**
   * One statement's reading, outside any transaction (a single statement sees one state): a listing
   * a server answers often, which need not hold a ledger file's connection in a transaction while it
   * awaits.
   */
  once<T>(fn: (s: Session) => Promise<T>): Promise<T>;
  /** One write transaction holding the entity's write lock, with the entity as it then is. */
  write<T>(fn: (s: Session, entity: EntityState) => Promise<T>): Promise<T>;
  /** A consistent snapshot streamed on a connection of its own (a dump). */
  snapshot<T>(fn: (s: Session) => AsyncIterable<T>): AsyncIterable<T>;
  /** The store's clock, as stored timestamps say it. */
  stamp(): string;
}
