import pg from 'pg';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, writeFile } from '../support/helpers.js';
import { databaseUrl, fromTemplate, pgFixture, type FixtureLedger } from '../support/fixtures.js';

const FILE = [
  'je_number,entry_date,memo,gl_account_id,debit,credit',
  'INV-1,2025-01-15,paper,office,10.00,',
  'INV-1,2025-01-15,,checking,,10.00',
  'INV-2,2025-01-16,toner,office,20.00,',
  'INV-2,2025-01-16,,checking,,20.00',
].join('\n');

/**
 * Runs `books` commands that queue, one after the other, behind the entity's lock held by the test,
 * then gives the lock back: PostgreSQL grants it in the order they asked, so each command checks
 * what it can before the lock while the ones ahead of it have not written yet.
 */
async function queued(L: FixtureLedger, commands: string[][]) {
  const holder = new pg.Client({ connectionString: databaseUrl() });
  await holder.connect();
  // The holder's transaction keeps one snapshot of the activity unless told to drop it.
  const waiting = async () =>
    (await holder.query('SELECT pg_stat_clear_snapshot()')) &&
    Number(
      (
        await holder.query(
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows[0].n,
    );
  try {
    const { entityId } = L.ledger as unknown as { entityId: string };
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM entities WHERE entity_id = $1 FOR UPDATE', [entityId]);
    const runs = [];
    for (const args of commands) {
      const { args: all, env, cwd } = L.process(args);
      const run = execa(process.execPath, [BIN, ...all], { env, cwd, reject: false });
      let ended = false;
      void run.finally(() => (ended = true));
      runs.push(run);
      while ((await waiting()) < runs.length) {
        if (ended)
          throw new Error(`${args.join(' ')} ended before it waited: ${(await run).stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await holder.query('COMMIT');
    return await Promise.all(runs);
  } finally {
    await holder.query('ROLLBACK').catch(() => {});
    await holder.end();
  }
}

describe('imports that wait for the lock of an entity of a database while others write', () => {
  it('the same file twice: the second skips what the first posted, as it would after it', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    try {
      const file = writeFile(tempDir(), 'twice.csv', FILE + '\n');
      const [first, second] = await queued(L, [
        ['je', 'import', file],
        ['je', 'import', file, '--format', 'json'],
      ]);
      expect(first!.exitCode, first!.stderr).toBe(0);
      expect(second!.exitCode, second!.stderr).toBe(0);
      expect(JSON.parse(second!.stdout)).toMatchObject({ posted: 0, skipped: 2 });
      expect((await L.journal()).map((e) => e.je_number)).toEqual(['INV-1', 'INV-2']);
      expect(await L.check()).toEqual([]);
    } finally {
      await L.close();
    }
  });

  it('an account deactivated meanwhile: the import posts nothing and says to run it again (exit 4)', async () => {
    const L = await fromTemplate(pgFixture, 'standard');
    try {
      const dir = tempDir();
      const chart = writeFile(
        dir,
        'chart.csv',
        'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
          'office,6400,Office Supplies,expense,expenses,true,false,\n',
      );
      const file = writeFile(dir, 'office.csv', FILE + '\n');
      const [changed, imported] = await queued(L, [
        ['accounts', 'import', chart],
        ['je', 'import', file],
      ]);
      expect(changed!.exitCode, changed!.stderr).toBe(0);
      expect(imported!.exitCode).toBe(4);
      expect(imported!.stderr).toContain('changed while it waited for the ledger');
      expect(await L.journal()).toEqual([]);
      // Run again, it is refused as an entry on an inactive account would be.
      const again = await L.books(['je', 'import', file]);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toContain('inactive');
    } finally {
      await L.close();
    }
  });
});
