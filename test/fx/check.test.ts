import { describe, expect, it } from 'vitest';
import { exec } from '../support/ledgers.js';
import { fxFile } from './fxLedger.js';

/** books check proves foreign lines (docs/currency.md, "Checks"): a damaged snapshot is named. */
describe('books check of foreign lines', () => {
  it('names a line whose snapshot is missing, in another currency, or at a rate that is not its amount', async () => {
    const { ledger, run } = fxFile();
    for (const flags of [
      ['--debit', 'eur-bank=EUR 1000.00 @ 1.10', '--credit', 'capital=1100'],
      ['--debit', 'checking=1120', '--credit', 'eur-bank=EUR 1000.00 @@ 1120.00'],
      ['--debit', 'jpy-bank=JPY 3000 @@ 20.00', '--credit', 'capital=20'],
    ])
      expect((await run('je', 'post', '--date', '2025-01-10', ...flags)).exitCode).toBe(0);
    expect((await run('check')).exitCode).toBe(0);
    exec(
      ledger,
      `UPDATE journal_lines SET fx_rate = '1.2' WHERE entry_seq = 1 AND line_no = 1;
       UPDATE journal_lines SET fx_currency = 'GBP' WHERE entry_seq = 2 AND line_no = 2;
       UPDATE journal_lines SET fx_currency = NULL, fx_amount_atoms = NULL, fx_rate = NULL
         WHERE entry_seq = 3 AND line_no = 1;`,
    );
    const r = await run('check');
    expect(r.exitCode).toBe(1);
    expect(r.stdout + r.stderr).toContain(
      'JE-1 line 1 (eur-bank): 100000 atoms of EUR at 1.2 are not its 110000 atoms of USD',
    );
    expect(r.stdout + r.stderr).toContain(
      "JE-2 line 2 (eur-bank) has a snapshot in GBP, not its account's EUR",
    );
    expect(r.stdout + r.stderr).toContain(
      'JE-3 line 1 (jpy-bank) is on an account kept in JPY but has no fx snapshot',
    );
  });

  it('names a revalued balance that an entry moved since, as a note, until the date is revalued again', async () => {
    const { run, ok } = fxFile();
    const post = (...flags: string[]) => ok('je', 'post', ...flags);
    await post(
      '--date',
      '2025-01-06',
      '--debit',
      'ar-eur=EUR 300.00 @ 1.20@customer:C002',
      '--credit',
      'sales=360',
    );
    expect((await run('fx', 'revalue', '--as-of', '2025-01-31')).exitCode).toBe(0);
    const clean = JSON.parse((await run('check', '--format', 'json')).stdout);
    expect([clean.checked.revaluations, clean.notes]).toEqual([1, undefined]);
    await post(
      '--date',
      '2025-01-20',
      '--debit',
      'ar-eur=EUR 100.00 @ 1.15@customer:C002',
      '--credit',
      'sales=115',
    );
    const moved = await run('check');
    expect(moved.exitCode).toBe(0);
    expect(moved.stdout).toContain(
      'note: 2025-01-31: ar-eur customer:C002 is -300 atoms from its value',
    );
    expect((await run('fx', 'revalue', '--as-of', '2025-01-31')).exitCode).toBe(0);
    expect((await run('check')).stdout).not.toContain('note:');
  });
});
