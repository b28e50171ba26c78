import { Scope, type Session, type Sql, type Tables } from '../sql/dialect.js';
import type { PgDb, Query } from './db.js';
import type { PgEntities } from './entity.js';

/** One entity's transactions for the store-neutral code (sql/dialect.ts): its lock, its rows. */
export function entityTables(db: PgDb, entities: PgEntities): Tables & { on(q: Query): Session } {
  const scope = new Scope(entities.entityId);
  const on = (q: Query): Session => ({ sql: pgSql(q), scope });
  return {
    on,
    read: (fn) => db.tx((q) => fn(on(q)), true),
    once: (fn) => fn(on(db.query)),
    write: (fn) => entities.write((q, entity) => fn(on(q), entity)),
    snapshot: (fn) => db.snapshot((q) => fn(on(q))),
    stamp: () => db.stamp(),
  };
}

const dollars = new Map<string, string>();
/**
 * `?` parameters as PostgreSQL numbers them (the statements never hold a `?` of their own), kept by
 * their text. Statements that name their entity differ per entity: a server of many entities starts
 * the cache again rather than let it grow with them.
 */
export function numbered(sql: string): string {
  let out = dollars.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    if (dollars.size >= 2_000) dollars.clear();
    dollars.set(sql, out);
  }
  return out;
}

/** A connection's queries as reconciliation's statements run on it. */
export function pgSql(q: Query): Sql {
  return {
    all: <T>(text: string, params: unknown[]) => q<T>(numbered(text), params),
    run: async (text: string, params: unknown[]) => {
      await q(numbered(text), params);
    },
    anyOf: (column, values, type = 'text') => ({
      sql: `${column} = ANY(?::${type}[])`,
      param: values,
    }),
    // A check reads every row anyway: hash and merge joins are always right for it. Right after an
    // entity's rows came in (a migrate, an import) the planner's statistics are of the table before
    // them, and nested loops it chose for "a few rows" took 16 s of a 1M-line entity's check.
    wholeReads: async () => {
      await q('SET LOCAL enable_nestloop = off');
    },
    // One statement of typed arrays, one per column, whatever the number of rows.
    insert: async (table, columns, rows) => {
      if (rows.length === 0) return;
      const arrays = columns.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
      const names = columns.map((c) => c.name).join(', ');
      await q(
        `INSERT INTO ${table} (${names}) SELECT * FROM unnest(${arrays})`,
        columns.map((_, i) => rows.map((r) => r[i] ?? null)),
      );
    },
  };
}
