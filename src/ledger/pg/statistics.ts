import type { PgDb } from './db.js';

/** The tables an entity's entries grow, whose statistics the write path's plans are made from. */
const GROWING =
  'journal_entries, journal_lines, idempotency_keys, audit_events, account_month_totals';

/** The entries before which statistics matter little: every plan is quick on so few rows. */
const FROM = 1024;

/**
 * Analyzes the tables an entity's entries grow when a committed write has taken its entries past a
 * power of two (from 1,024) and the statistics count fewer entries than the entity now holds, without
 * holding up the write's answer. A connection plans a prepared statement once, from the statistics
 * of the moment; a database that is new, or an entity that an import has just filled, has none that
 * count its rows yet (autovacuum comes by about once a minute), and the plans then read every entry
 * of the entity to find the largest number or an idempotency key: two servers posting on a new
 * database fell from 1,300 to 500 entries/s within 20 s. ANALYZE makes every connection plan again.
 * Statistics that count the entity's entries already (other entities' rows are in the same tables)
 * need no new sample: with eight entities posting at once, an ANALYZE of all five tables at each
 * entity's power of two took 0.8 s of the database's 8 s.
 */
export function analyzeIfGrown(db: PgDb, before: number, after: number): void {
  if (after < FROM || Math.floor(Math.log2(before)) === Math.floor(Math.log2(after))) return;
  db.background(
    (async () => {
      const [counted] = await db.query<{ n: number | null }>(
        `SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass('journal_entries')`,
      );
      // -1: never analyzed.
      if (counted && counted.n !== null && counted.n >= after) return;
      // A table another session holds (a VACUUM, an index being built) is left to autovacuum:
      // waiting for it would hold a command's exit for the lock timeout.
      await db.query(`ANALYZE (SKIP_LOCKED) ${GROWING}`);
    })(),
  );
}
