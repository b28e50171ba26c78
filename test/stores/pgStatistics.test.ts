import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { tempDir, writeFile } from '../support/helpers.js';
import { describe, expect, it } from 'vitest';
import { psqlPath } from '../../src/bench/cluster.js';
import { analyzeIfGrown } from '../../src/ledger/pg/statistics.js';
import type { PgDb } from '../../src/ledger/pg/db.js';
import { databaseUrl, fromTemplate, pgFixture } from '../support/fixtures.js';

const LINES = [
  { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 },
  { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 },
];

describe('statistics of the tables a growing entity fills (PostgreSQL)', () => {
  it('are taken when the entries pass a power of two from 1,024 and the statistics know fewer than half', async () => {
    const asked: [string, unknown[]][] = [];
    const pending: Promise<unknown>[] = [];
    /** How many of the entity's entries the statistics know (null: they do not know it). */
    let known: number | null = null;
    const db = {
      query: async (sql: string, params: unknown[] = []) => {
        asked.push([sql, params]);
        return sql.startsWith('ANALYZE') ? [] : [{ n: known }];
      },
      background: (p: Promise<unknown>) => void pending.push(p),
    } as unknown as PgDb;
    const analyzed = async (before: number, after: number, stats: number | null = null) => {
      [asked.length, pending.length, known] = [0, 0, stats];
      analyzeIfGrown(db, before, after, 'ent_1');
      await Promise.all(pending);
      return asked.some(([sql]) => sql.startsWith('ANALYZE'));
    };
    // One at a time: each case reads what it alone asked of the database.
    const all = async (cases: [number, number, (number | null)?][]) => {
      const out: boolean[] = [];
      for (const [b, a, n] of cases) out.push(await analyzed(b, a, n));
      return out;
    };
    expect(
      await all([
        [0, 1023],
        [1000, 1023],
        [1024, 2047],
      ]),
    ).toEqual([false, false, false]);
    expect(
      await all([
        [1023, 1024],
        [1000, 1100],
        [4000, 9000],
      ]),
    ).toEqual([true, true, true]);
    // Sampled when other entities passed the same power of two: at least half of this one's known.
    expect(
      await all([
        [1023, 1024, 1000],
        [4000, 9000, 4500],
      ]),
    ).toEqual([false, false]);
    expect(
      await all([
        [4000, 9000, 4499],
        [1023, 1024, 0],
        [1023, 1024, null],
      ]),
    ).toEqual([true, true, true]);
    expect(asked[0]![1]).toEqual(['ent_1']);
  });

  it('are taken for an entity the statistics do not know, though they count more rows than it holds', async () => {
    // Statistics taken before an entity existed plan its posts as if it held every row.
    const file = (n: number) => {
      const rows = ['entry,entry_date,gl_account_id,debit,credit'];
      for (let i = 0; i < n; i++)
        rows.push(`E${i},2025-01-15,rent,1.00,`, `E${i},2025-01-15,checking,,1.00`);
      return writeFile(tempDir(), 'past.csv', rows.join('\n') + '\n');
    };
    const known = (entityId: string) =>
      execFileSync(
        psqlPath(),
        [
          databaseUrl(),
          '-qtAc',
          `SELECT '${entityId}' = ANY(most_common_vals::text::text[]) FROM pg_stats
           WHERE tablename = 'journal_entries' AND attname = 'entity_id'`,
        ],
        { encoding: 'utf8' },
      ).trim();
    const [A, B] = [
      await fromTemplate(pgFixture, 'standard'),
      await fromTemplate(pgFixture, 'standard'),
    ];
    const idOf = (l: typeof A) => (l.ledger as unknown as { entityId: string }).entityId;
    try {
      expect((await A.books(['je', 'import', file(1500)])).exitCode).toBe(0);
      // Closing a ledger waits for the statistics it is taking.
      await A.close();
      expect(known(idOf(A))).toBe('t');
      expect((await B.books(['je', 'import', file(1100)])).exitCode).toBe(0);
      await B.close();
      expect(known(idOf(B))).toBe('t');
    } finally {
      await A.close().catch(() => {});
      await B.close().catch(() => {});
    }
  });

  it('are taken by posting: a new entity past 1,024 entries has statistics that count them', async () => {
    // A connection plans a prepared statement from the statistics it finds; without rows counted,
    // the plans read every entry of the entity at each post.
    const L = await fromTemplate(pgFixture, 'standard');
    const reltuples = (table: string) =>
      Number(
        execFileSync(
          psqlPath(),
          [databaseUrl(), '-qtAc', `SELECT reltuples FROM pg_class WHERE relname = '${table}'`],
          { encoding: 'utf8' },
        ).trim(),
      );
    try {
      for (let i = 0; i < 1100; i += 50)
        await Promise.all(
          Array.from({ length: 50 }, (_x, j) =>
            L.ledger.journal.post(
              { entry_date: '2025-03-02', lines: LINES },
              { idempotencyKey: `k-${i + j}` },
            ),
          ),
        );
    } finally {
      // The ledger's close waits for the statistics it is taking.
      await L.close();
    }
    expect(reltuples('journal_entries')).toBeGreaterThanOrEqual(1024);
    expect(reltuples('idempotency_keys')).toBeGreaterThanOrEqual(1024);
  });

  it('leave a command to exit at once when another session holds a table (left to autovacuum)', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    try {
      // A lock ANALYZE would wait for (a VACUUM holds it), held until the import has exited.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE account_month_totals IN SHARE UPDATE EXCLUSIVE MODE');
      const rows = ['entry,entry_date,gl_account_id,debit,credit'];
      for (let i = 0; i < 1100; i++)
        rows.push(`E${i},2025-01-15,rent,1.00,`, `E${i},2025-01-15,checking,,1.00`);
      const file = writeFile(tempDir(), 'past.csv', rows.join('\n') + '\n');
      const imported = await L.books(['je', 'import', file]);
      expect(imported.exitCode, imported.stderr).toBe(0);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await L.close();
    }
    // Without it, the import waited out the lock timeout (30 s) before it exited.
  }, 20_000);
});
