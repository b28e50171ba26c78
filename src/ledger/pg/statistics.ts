import type { PgDb } from './db.js';

/** The tables an entity's entries grow, whose statistics the write path's plans are made from. */
const GROWING =
  'journal_entries, journal_lines, idempotency_keys, audit_events, account_month_totals';

/** The entries before which statistics matter little: every plan is quick on so few rows. */
const FROM = 1024;

/**
 * How many of the entity's entries the statistics of journal_entries know (its frequency among the
 * most common entity ids times the rows counted), or null where they do not know it.
 */
const KNOWN = `SELECT (c.reltuples * s.most_common_freqs[
      array_position(s.most_common_vals::text::text[], $1)])::float8 AS n
  FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
  JOIN pg_stats s ON s.schemaname = ns.nspname AND s.tablename = c.relname AND s.attname = 'entity_id'
  WHERE c.oid = to_regclass('journal_entries')`;

/**
 * Analyzes the tables an entity's entries grow when a committed write has taken its entries past a
 * power of two (from 1,024), without holding up the write's answer, unless the statistics already
 * know at least half of the entity's entries. A connection plans a prepared statement once, from the
 * statistics of the moment; a database that is new, or an entity that an import has just filled, has
 * none that count its rows yet (autovacuum comes by about once a minute), and the plans then read
 * every entry of the entity to find the largest number or an idempotency key: two servers posting on
 * a new database fell from 1,300 to 500 entries/s within 20 s. ANALYZE makes every connection plan
 * again. Entities that grow together are sampled together: eight entities posting at once analysed
 * eight times at each power of two, about 100 ms of the database's CPU each, where once serves them
 * all. (The entity must be known, not only the table's rows counted: statistics taken before it
 * existed plan its posts as if it held every row, a third of the speed.)
 */
export function analyzeIfGrown(db: PgDb, before: number, after: number, entityId: string): void {
  if (after < FROM || Math.floor(Math.log2(before)) === Math.floor(Math.log2(after))) return;
  db.background(
    (async () => {
      const [known] = await db.query<{ n: number | null }>(KNOWN, [entityId]);
      if (known?.n != null && known.n >= after / 2) return;
      // A table another session holds (a VACUUM, an index being built) is left to autovacuum:
      // waiting for it would hold a command's exit for the lock timeout.
      await db.query(`ANALYZE (SKIP_LOCKED) ${GROWING}`);
    })(),
  );
}
