import { describe, expect, it } from 'vitest';
import { pgFixture } from '../support/fixtures.js';
import { books, tempDir, writeFile } from '../support/helpers.js';
import { copyTemplate } from '../support/ledgers.js';
import { fxFile } from './fxLedger.js';

/**
 * Foreign currencies travel: a ledger file with foreign lines, settlements, a revaluation, rates and
 * its gain/loss accounts, restored into a database (as books migrate does), is the same ledger; and
 * its journal goes out as CSV and comes back byte for byte.
 */
describe('foreign currencies moved', () => {
  const build = async () => {
    const { dir, ledger, ok: run } = fxFile();
    await run(
      'je',
      'post',
      '--date',
      '2025-01-03',
      '--debit',
      'eur-bank=EUR 5000.00 @@ 5450.00',
      '--credit',
      'capital=5450',
    );
    await run(
      'je',
      'post',
      '--date',
      '2025-01-04',
      '--debit',
      'ar-eur=EUR 500.00@customer:C001',
      '--credit',
      'sales=550',
    );
    await run(
      'je',
      'post',
      '--date',
      '2025-01-05',
      '--debit',
      'ar-eur=EUR 333.33 @ 1.2345@customer:C001',
      '--credit',
      'sales=411.50',
    );
    await run(
      'je',
      'post',
      '--date',
      '2025-01-20',
      '--debit',
      'eur-bank=EUR 700.00 @ 1.15',
      '--credit',
      'ar-eur=EUR 700.00@customer:C001',
    );
    await run(
      'je',
      'post',
      '--date',
      '2025-01-21',
      '--debit',
      'rent=1270',
      '--credit',
      'ap-gbp=GBP 1000.00 @ 1.27@vendor:V001',
    );
    await run(
      'je',
      'post',
      '--date',
      '2025-01-22',
      '--debit',
      'checking=1001.00',
      '--credit',
      'eur-bank=EUR 899.99 @@ 1001.00',
    );
    await run('je', 'reverse', 'JE-6', '--date', '2025-01-23');
    await run('entity', 'set', '--fx-unrealized', 'interest-income');
    await run('fx', 'revalue', '--as-of', '2025-01-31');
    return { dir, ledger, run };
  };

  it('restored into a database, it is the same: journal, rates, settings, exposure, check', async () => {
    const { ledger, run } = await build();
    const db = await pgFixture.create(ledger);
    try {
      for (const args of [
        ['je', 'list', '--format', 'json'],
        ['je', 'list', '--format', 'csv'],
        ['rates', 'list', '--format', 'json'],
        ['entity', 'show', '--format', 'json'],
        ['report', 'fx', '--as-of', '2025-02-01', '--format', 'json'],
        ['report', 'tb', '--as-of', '2025-01-31', '--show-foreign', '--format', 'json'],
      ]) {
        const neutral = (t: string) =>
          t
            .replace(/"(id|entity_id|journal_entry_id|account_id)": "[^"]+"/g, '"$1": "…"')
            .replace(/"(created_at|updated_at)": "[^"]+"/g, '"$1": "…"');
        const there = await db.books(args);
        expect(there.exitCode, there.stderr).toBe(0);
        if (args[1] !== 'show')
          expect(neutral(there.stdout), args.join(' ')).toBe(neutral(await run(...args)));
        else expect(JSON.parse(there.stdout)).toMatchObject({ fx_unrealized: 'interest-income' });
      }
      expect(await db.check()).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('goes out as CSV and comes back byte for byte', async () => {
    const { run } = await build();
    const csv = await run('je', 'list', '--format', 'csv');
    expect(csv.split('\n')[0]).toMatch(/,fx_currency,fx_amount,fx_rate$/);
    const { dir, ledger } = copyTemplate('fx');
    const file = writeFile(tempDir(), 'journal.csv', csv);
    const imported = await books(['je', 'import', file, '--ledger', ledger], { cwd: dir });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const again = await books(['je', 'list', '--format', 'csv', '--ledger', ledger], { cwd: dir });
    expect(again.stdout).toBe(csv);
  });
});
