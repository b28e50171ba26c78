import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PgDb, prepared } from '../../src/ledger/pg/db.js';
import { databaseUrl } from '../support/fixtures.js';

// A group of posts sends its rows with the COMMIT in one simple query (EXECUTE with the values as
// literals): the values must arrive as bound parameters would, and a failure must undo the whole
// transaction.
describe('a write transaction whose last statement goes with its COMMIT (PostgreSQL)', () => {
  const TRICKY = `it's a "quote", a \\ backslash, {braces}, a comma,\nZürich — 東京 😀`;
  const ARRAY = [TRICKY, '', 'NULL', null, '\\"', 'a,b'];
  const NUMBERS = [9007199254740993n, -2, null, 0];

  it('sends the values exactly, commits, and undoes the transaction when the statement fails', async () => {
    // One connection, so the statement prepared by the first transaction is the one EXECUTE names.
    const db = new PgDb(databaseUrl(), () => new Date(), 1);
    const sent: string[] = [];
    db.pool.on('connect', (client: pg.PoolClient) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...a: unknown[]) => {
        const first = a[0] as string | { text: string };
        sent.push(typeof first === 'string' ? first : first.text);
        return query(...a);
      };
    });
    const table = `last_with_${process.pid}`;
    const INSERT = prepared(
      `INSERT INTO ${table} SELECT $1::int, $2::text, $3::text[], $4::int8[], $5::boolean`,
    );
    try {
      await db.query(
        `CREATE TABLE ${table} (id int PRIMARY KEY, t text, a text[], n int8[], b boolean)`,
      );
      await db.tx(async (q) => {
        await q(INSERT, [1, 'first', [], [], false]);
      });
      await db.tx(async (q) => {
        await q(INSERT, [2, 'second', ['x'], [1], null]);
        await q.lastWith!(INSERT, [3, TRICKY, ARRAY, NUMBERS, true]);
        await expect(q('SELECT 1')).rejects.toThrow('after the transaction’s COMMIT');
      });
      expect(sent.some((s) => /^EXECUTE books_\d+\(.*\); COMMIT$/s.test(s))).toBe(true);
      // The key of row 1 again: the statement fails, and row 4 before it is rolled back with it.
      await expect(
        db.tx(async (q) => {
          await q(INSERT, [4, 'fourth', [], [], false]);
          await q.lastWith!(INSERT, [1, 'again', [], [], false]);
        }),
      ).rejects.toThrow(/duplicate key/);
      const rows = await db.query<{ id: number; t: string; a: string[]; n: unknown[]; b: boolean }>(
        `SELECT id, t, a, n, b FROM ${table} ORDER BY id`,
      );
      expect(rows).toEqual([
        { id: 1, t: 'first', a: [], n: [], b: false },
        { id: 2, t: 'second', a: ['x'], n: ['1'], b: null },
        { id: 3, t: TRICKY, a: ARRAY, n: ['9007199254740993', '-2', null, '0'], b: true },
      ]);
    } finally {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
      await db.close();
    }
  });
});
