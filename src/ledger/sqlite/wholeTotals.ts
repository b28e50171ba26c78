import type Database from 'better-sqlite3';
import { BooksError, storable } from '../../domain/errors.js';
import { exactSql } from './connection.js';
import { FILE } from './tables.js';
import { tagTotalsFromLines } from '../sql/tagTotals.js';
import { monthTotalsFromLines } from '../sql/totals.js';

/** The schema version before the totals' tables became STRICT (schema.ts's last migration). */
export const STRICT_TOTALS_VERSION = 15;

/** Fewer lines than this, each of at most 2^53 - 1 atoms, cannot have summed past 2^63 - 1. */
const DENSE = 1024;

/**
 * Before the totals' tables become STRICT: a total an earlier books may have kept inexact (SQLite
 * made its sum past 2^63 - 1 a real number; one brought back within it is an integer, but not the
 * lines' sum) is summed again from the lines, exactly. Only an account-month of 1,024 lines or more
 * can be one, so a ledger without one is not read again. A sum that still passes 2^63 - 1 cannot be
 * kept: the upgrade is refused, naming it, and the file is left as it was.
 */
export function wholeTotals(db: Database.Database, location: string): void {
  const suspect = `typeof(net_atoms) <> 'integer' OR typeof(adj_net_atoms) <> 'integer' OR line_count >= ${DENSE}`;
  const account = db.prepare('SELECT external_id FROM accounts WHERE key = ?').pluck();
  const exactly = (sql: string) =>
    db.prepare(exactSql(sql)).safeIntegers(true).all() as Record<string, bigint | string>[];
  const whole = (r: Record<string, bigint | string>, what: string): [bigint, bigint] => {
    const [net, adj] = [BigInt(r.net!), BigInt(r.adj_net!)];
    if (storable(net) && storable(adj)) return [net, adj];
    throw new BooksError(
      'damaged',
      `${location}: ${what} of account '${String(account.get(r.account_key))}' for ${String(r.month)} ` +
        `is ${net} atoms, past 2^63 - 1, which this books keeps no total to (an earlier books kept it ` +
        'inexact); reverse or correct those entries with the books that wrote the file, then open it again',
    );
  };
  if (db.prepare(`SELECT 1 FROM account_month_totals WHERE ${suspect} LIMIT 1`).get()) {
    const set = db.prepare(
      'UPDATE account_month_totals SET net_atoms = ?, adj_net_atoms = ? WHERE account_key = ? AND month = ?',
    );
    for (const r of exactly(monthTotalsFromLines(FILE)))
      set.run(...whole(r, 'the total'), r.account_key, r.month);
  }
  if (db.prepare(`SELECT 1 FROM tag_month_totals WHERE ${suspect} LIMIT 1`).get()) {
    const set = db.prepare(
      `UPDATE tag_month_totals SET net_atoms = ?, adj_net_atoms = ?
       WHERE tag_key = ? AND tag_value = ? AND account_key = ? AND month = ?`,
    );
    for (const r of exactly(tagTotalsFromLines(FILE)))
      set.run(
        ...whole(r, `the total by tag ${String(r.tag_key)}=${String(r.tag_value)}`),
        r.tag_key,
        r.tag_value,
        r.account_key,
        r.month,
      );
  }
}
