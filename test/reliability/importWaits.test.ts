import pg from 'pg';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, writeFile } from '../support/helpers.js';
import { databaseUrl, fromTemplate, pgFixture, type FixtureLedger } from '../support/fixtures.js';

const FX_HEADER =
  'entry,entry_date,gl_account_id,debit,credit,counterparty_type,counterparty_external_id,' +
  'fx_currency,fx_amount\n';

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

  it('an account deactivated meanwhile: the import is refused as it would be after the change (exit 1)', async () => {
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
      // Checked again under the lock: refused as an entry on an inactive account is, run after.
      const after = await L.books(['je', 'import', file]);
      for (const run of [imported!, after]) {
        expect(run.exitCode).toBe(1);
        expect(run.stderr).toContain('inactive');
      }
      expect(await L.journal()).toEqual([]);
      expect(await L.check()).toEqual([]);
    } finally {
      await L.close();
    }
  });

  it('the realised-gain account made a header meanwhile: a settlement is refused as it would be after', async () => {
    const L = await fromTemplate(pgFixture, 'fx');
    try {
      const dir = tempDir();
      const invoice = writeFile(
        dir,
        'invoice.csv',
        FX_HEADER +
          '1,2025-01-31,ar-eur,,,customer,C001,EUR,100.00\n1,2025-01-31,sales,,112.00,,,,\n',
      );
      const invoiced = await L.books(['je', 'import', invoice]);
      expect(invoiced.exitCode, invoiced.stderr).toBe(0);
      const chart = writeFile(
        dir,
        'chart.csv',
        'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
          'fx-realized,7100,Realized Exchange Gain/Loss,other_income,,false,true,\n' +
          'fx-sub,7110,Exchange sub-account,other_income,fx-realized,true,true,\n',
      );
      // A part of the invoice paid at another rate: the settlement books a realised difference.
      const payment = writeFile(
        dir,
        'payment.csv',
        FX_HEADER +
          '1,2025-02-20,eur-bank,,,,,EUR,5.00\n1,2025-02-20,ar-eur,,,customer,C001,EUR,-5.00\n',
      );
      const [changed, imported] = await queued(L, [
        ['accounts', 'import', chart],
        ['je', 'import', payment],
      ]);
      expect(changed!.exitCode, changed!.stderr).toBe(0);
      const after = await L.books(['je', 'import', payment]);
      for (const run of [imported!, after]) {
        expect(run.exitCode).toBe(1);
        expect(run.stderr).toContain('fx_account_missing');
      }
      expect((await L.journal()).length).toBe(1);
      expect(await L.check()).toEqual([]);
    } finally {
      await L.close();
    }
  });

  it('an invoice posted meanwhile by another import: a settlement in a later chunk is valued as after it', async () => {
    // The invoice first, then enough entries to put the payment in a later chunk of the file; the
    // other import posts more than its whole first chunk (64 KiB) while this one waits.
    const rows = [
      '1,2025-01-31,ar-eur,,,customer,C001,EUR,100.00',
      '1,2025-01-31,sales,,112.00,,,,',
    ];
    for (let i = 2; i < 3000; i++)
      rows.push(`${i},2025-02-03,rent,1.00,,,,,`, `${i},2025-02-03,checking,,1.00,,,,`);
    const payment = [
      '3000,2025-02-20,eur-bank,,,,,EUR,150.00',
      '3000,2025-02-20,ar-eur,,,customer,C001,EUR,-150.00',
    ];
    const dir = tempDir();
    const head = writeFile(dir, 'head.csv', FX_HEADER + rows.slice(0, 4000).join('\n') + '\n');
    const whole = writeFile(dir, 'whole.csv', FX_HEADER + [...rows, ...payment].join('\n') + '\n');
    const lines = async (L: FixtureLedger) =>
      (await L.books(['je', 'list', '--format', 'csv'])).stdout
        .split('\n')
        .filter((l) => l.includes('2025-02-20'));
    const [queuedL, oneAfterL] = [
      await fromTemplate(pgFixture, 'fx'),
      await fromTemplate(pgFixture, 'fx'),
    ];
    try {
      const ran = await queued(queuedL, [
        ['je', 'import', head],
        ['je', 'import', whole],
      ]);
      for (const r of ran) expect(r.exitCode, r.stderr).toBe(0);
      for (const file of [head, whole])
        expect((await oneAfterL.books(['je', 'import', file])).exitCode).toBe(0);
      const settled = await lines(oneAfterL);
      expect(settled.length).toBeGreaterThan(2);
      expect(await lines(queuedL)).toEqual(settled);
      expect(await queuedL.check()).toEqual([]);
    } finally {
      await queuedL.close();
      await oneAfterL.close();
    }
  });
});
