import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/bench/generate.js';
import { books, booksJson, readText, tempDir, writeFile } from '../support/helpers.js';
import { databaseUrl } from '../support/fixtures.js';

/**
 * An import of over 1 MiB into a PostgreSQL entity writes on a pipelined connection of its own
 * (src/ledger/pg/pipelined.ts): its statements are sent without waiting for the ones before to
 * answer. It must post what the same file posts into a ledger file, and a failure of any statement
 * must leave none of it.
 */
describe('a large import into a PostgreSQL entity (over 1 MiB: a pipelined connection)', () => {
  async function setUp(entity: string) {
    const dir = tempDir();
    const { entries } = await generate(dir, { lines: 24_000, startYear: 2021, years: 2, seed: 3 });
    const file = join(dir, 'entries.csv');
    expect(readText(file).length).toBeGreaterThan(1024 * 1024);
    const db = ['--ledger', databaseUrl(), '--entity', entity];
    const ledger = ['--ledger', join(dir, `${entity}.sqlite`)];
    for (const at of [db, ledger])
      for (const args of [
        ['init', '--first-month', '2021-01', '--chart', join(dir, 'accounts.csv')],
        ['counterparties', 'import', join(dir, 'counterparties.csv')],
      ]) {
        const r = await books([...args, ...at], { cwd: dir });
        expect(r.exitCode, r.stderr).toBe(0);
      }
    return { dir, file, entries, db, ledger };
  }

  it('posts what a ledger file posts from it, passes check, and skips it all when run again', async () => {
    const { dir, file, entries, db, ledger } = await setUp('large');
    for (const at of [ledger, db]) {
      const r = await booksJson(['je', 'import', file, ...at], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.body).toMatchObject({ posted: entries, lines: 24_000, skipped: 0 });
    }
    // Ids are made at random, and stamped with the time, where a row is created: each store's own.
    const own = (out: string) =>
      out
        .replace(/\b(acct|je|jel|cp)_[\w-]{21}(?![\w-])/g, '<id>')
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>');
    for (const args of [
      ['report', 'trial-balance', '--as-of', '2022-12-31', '--format', 'csv'],
      ['report', 'balance-sheet', '--end', '2022-12-31', '--period', 'quarterly'],
      ['je', 'list', '--format', 'json'],
    ]) {
      const [a, b] = await Promise.all([ledger, db].map((at) => books([...args, ...at])));
      expect(b!.exitCode, b!.stderr).toBe(0);
      expect(own(b!.stdout), args.join(' ')).toBe(own(a!.stdout));
    }
    expect((await books(['check', ...db])).exitCode).toBe(0);
    const again = await booksJson(['je', 'import', file, ...db], { cwd: dir });
    expect(again.body).toMatchObject({ posted: 0, skipped: entries });
  });

  it('posts nothing when its connection is ended mid-import, and posts it all when run again', async () => {
    const { dir, file, entries, db } = await setUp('ended');
    // One entry first: its month's totals are rows the large import must then add to.
    const [header, ...rows] = readText(file).trimEnd().split('\n');
    const key = rows[0]!.split(',')[0];
    const first = rows.filter((r) => r.split(',')[0] === key);
    const one = writeFile(dir, 'one.csv', [header, ...first].join('\n') + '\n');
    expect((await books(['je', 'import', one, ...db], { cwd: dir })).exitCode).toBe(0);
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    try {
      // An operator's transaction holds the entity's totals: the import writes its rows, then waits
      // for them at its end, its later statements already sent behind.
      await holder.query('BEGIN');
      await holder.query(
        `SELECT 1 FROM account_month_totals WHERE entity_id =
           (SELECT entity_id FROM entities WHERE slug = 'ended') FOR UPDATE`,
      );
      const running = books(['je', 'import', file, ...db], { cwd: dir });
      let [ended, done] = [0, false];
      void running.then(() => (done = true));
      while (ended === 0 && !done) {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows: found } = await holder.query(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE '%account_month_totals%'`,
        );
        ended = (found[0] as { n: number }).n;
      }
      const r = await running;
      expect(ended, r.stderr).toBe(1);
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/nothing was posted|cannot reach the database/);
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    const listed = await booksJson(['je', 'list', ...db]);
    expect(listed.body.data).toHaveLength(1);
    expect((await books(['check', ...db])).exitCode).toBe(0);
    const again = await booksJson(['je', 'import', file, ...db], { cwd: dir });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.body).toMatchObject({ posted: entries - 1, skipped: 1 });
    expect((await books(['check', ...db])).exitCode).toBe(0);
  });
});
