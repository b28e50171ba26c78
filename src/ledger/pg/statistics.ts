import type { PgDb } from './db.js';

/** The tables an entity's entries grow, whose statistics the write path's plans are made from. */
const GROWING =
  'journal_entries, journal_lines, idempotency_keys, audit_events, account_month_totals';

/** The entries before which statistics matter little: every plan is quick on so few rows. */
const FROM = 1024;

/**
 * Analyzes the tables an entity's entries grow when a committed write has taken its entries past a
 * power of two (from 1,024), without holding up the write's answer. A connection plans a prepared
 * statement once, from the statistics of the moment; a database that is new, or an entity that an
 * import has just filled, has none that count its rows yet (autovacuum comes by about once a minute),
 * and the plans then read every entry of the entity to find the largest number or an idempotency key:
 * two servers posting on a new database fell from 1,300 to 500 entries/s within 20 s. ANALYZE makes
 * every connection plan again.
 */
export function analyzeIfGrown(db: PgDb, before: number, after: number): void {
  if (after < FROM || Math.floor(Math.log2(before)) === Math.floor(Math.log2(after))) return;
  // A table another session holds (a VACUUM, an index being built) is left to autovacuum: waiting
  // for it would hold a command's exit for the lock timeout.
  db.background(db.query(`ANALYZE (SKIP_LOCKED) ${GROWING}`));
}
