import { Scope, type Session, type Tables } from '../sql/dialect.js';
import type { PgDb, Query } from './db.js';
import type { PgEntities } from './entity.js';
import { pgSql } from './recon.js';

/** One entity's transactions for the store-neutral code (sql/dialect.ts): its lock, its rows. */
export function entityTables(db: PgDb, entities: PgEntities): Tables & { on(q: Query): Session } {
  const scope = new Scope(entities.entityId);
  const on = (q: Query): Session => ({ sql: pgSql(q), scope });
  return {
    on,
    read: (fn) => db.tx((q) => fn(on(q)), true),
    write: (fn) => entities.write((q, entity) => fn(on(q), entity)),
    snapshot: (fn) => db.snapshot((q) => fn(on(q))),
    stamp: () => db.stamp(),
  };
}
