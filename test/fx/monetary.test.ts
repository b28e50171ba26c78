import { describe, expect, it } from 'vitest';
import { pgFixture } from '../support/fixtures.js';
import { books, tempDir, writeFile } from '../support/helpers.js';
import { fxFile } from './fxLedger.js';

/** The chart's monetary column: a foreign account it marks false is not revalued, on every store. */
describe("the chart's monetary column", () => {
  it('keeps a prepaid expense in euros at its historical rate, and travels with the chart', async () => {
    const { dir, ledger, ok: run } = fxFile();
    const chart = writeFile(
      tempDir(),
      'prepaid.csv',
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency,monetary\n' +
        'eur-prepaid,1310,Prepaid in euros,other_current_asset,,true,true,EUR,false\n' +
        'eur-deposit,1810,Deposit in euros,other_asset,,true,true,EUR,\n',
    );
    await run('accounts', 'import', chart);
    await run(
      'je',
      'post',
      '--date',
      '2025-01-05',
      '--debit',
      'eur-prepaid=EUR 1000.00 @ 1.10',
      '--debit',
      'eur-deposit=EUR 500.00 @ 1.10',
      '--credit',
      'checking=1650',
    );
    const db = await pgFixture.create(ledger);
    try {
      for (const L of [
        { books: (a: string[]) => books([...a, '--ledger', ledger], { cwd: dir }) },
        db,
      ]) {
        const fx = JSON.parse(
          (await L.books(['report', 'fx', '--as-of', '2025-01-31', '--format', 'json'])).stdout,
        );
        // At 1.12 the deposit gains 10.00; the prepaid expense, not monetary, is not in the report.
        expect(
          fx.rows.map((r: { gl_account_id: string; unrealized_atoms: number }) => [
            r.gl_account_id,
            r.unrealized_atoms,
          ]),
        ).toEqual([['eur-deposit', 1000]]);
        const csv = (await L.books(['accounts', 'list', '--format', 'csv'])).stdout;
        // The standard chart sets cash_flow on its accumulated depreciation: both columns are written.
        expect(csv.split('\n')[0]).toMatch(/,currency,monetary,cash_flow$/);
        expect(csv).toContain(
          'eur-prepaid,1310,Prepaid in euros,other_current_asset,,true,true,EUR,false,\n',
        );
        expect(csv).toContain('eur-deposit,1810,Deposit in euros,other_asset,,true,true,EUR,,\n');
      }
    } finally {
      await db.close();
    }
  });
});
