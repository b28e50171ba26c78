import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/helpers.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { sayings } from '../support/said.js';

const HEADER =
  'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n';

/** What each store said: every store must say the same. */
const SAID = new Map<string, string[]>();

// A remote profile imports no chart (the API has no route for it).
describe.each(FIXTURES.filter((f) => f.name !== 'served').map((f) => [f.name, f] as const))(
  'a chart import over accounts that lines hold, on %s',
  (name, fixture) => {
    let L: FixtureLedger;
    const said: string[] = [];
    SAID.set(name, said);
    const { refused } = sayings(
      () => L,
      said,
      (t) => t.replace(/\/tmp\/[^:]+\//g, '…/'),
    );
    const dir = tempDir();
    const chart = (file: string, rows: string) => {
      const path = join(dir, file);
      writeFileSync(path, HEADER + rows);
      return path;
    };

    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
      const statement = join(dir, 'statement.csv');
      writeFileSync(statement, 'Date,Description,Amount\n2025-02-01,RENT,-100.00\n');
      for (const args of [
        ['je', 'post', '--date', '2025-02-01', '--debit', 'rent=100', '--credit', 'checking=100'],
        ['reconcile', 'import', statement, '--account', 'checking'],
        ['reconcile', 'match', '--account', 'checking'],
      ]) {
        const r = await L.books(args);
        expect(r.exitCode, r.stderr).toBe(0);
      }
    }, 120_000);
    afterAll(async () => L?.close());

    it("keeps a reconciled account's type: a cleared balance is read in its type's sign", async () => {
      for (const type of ['credit_card', 'expense'])
        await refused(
          [
            'accounts',
            'import',
            chart(`${type}.csv`, `checking,1010,Checking,${type},,true,true,\n`),
          ],
          1,
          `${type}.csv:2: invalid_input account_reconciled: account_type: 'checking' has 1 cleared ` +
            'line: its type stays bank while reconciliation holds them',
        );
    });

    it('keeps the currency of an account that holds lines: they are amounts in it', async () => {
      await refused(
        ['accounts', 'import', chart('eur.csv', 'rent,6100,Rent,expense,expenses,true,true,EUR\n')],
        1,
        "eur.csv:2: invalid_input account_has_lines: currency: 'rent' holds 1 line in USD: its " +
          'currency stays (open another account for EUR)',
      );
      // Naming the functional currency that a blank cell means changes nothing.
      const same = await L.books([
        'accounts',
        'import',
        chart('usd.csv', 'rent,6100,Rent,expense,expenses,true,true,USD\n'),
      ]);
      expect(same.exitCode, same.stderr).toBe(0);
    });

    it('keeps the type of an account whose lines name a counterparty by it, or none', async () => {
      for (const args of [
        [
          'je',
          'post',
          '--date',
          '2025-02-02',
          '--debit',
          'ar=100@customer:C001',
          '--credit',
          'sales=100',
        ],
        ['je', 'post', '--date', '2025-02-02', '--debit', 'prepaid=50', '--credit', 'checking=50'],
      ]) {
        const r = await L.books(args);
        expect(r.exitCode, r.stderr).toBe(0);
      }
      await refused(
        [
          'accounts',
          'import',
          chart('ap.csv', 'ar,1100,Receivable,accounts_payable,,true,true,\n'),
        ],
        1,
        "ap.csv:2: invalid_input account_has_lines: account_type: 'ar' holds 1 line naming a " +
          'customer: its type stays accounts_receivable, not accounts_payable (whose lines name a vendor)',
      );
      await refused(
        [
          'accounts',
          'import',
          chart('ar.csv', 'prepaid,1300,Prepaid,accounts_receivable,,true,true,\n'),
        ],
        1,
        "'prepaid' holds 1 line naming no counterparty: its type stays other_current_asset",
      );
    });

    it('refuses ids too long for an index to keep, naming the row', async () => {
      const long = 'ß'.repeat(201);
      await refused(
        ['accounts', 'import', chart('long.csv', `${long},,Long,expense,expenses,true,true,\n`)],
        1,
        'long.csv:2: invalid_input too_long: external_id: external_id is 201 characters long; at most 200',
      );
      const cps = join(dir, 'cps.csv');
      writeFileSync(
        cps,
        `counterparty_type,external_id,name,is_active\ncustomer,${long},Long,true\n`,
      );
      await refused(['counterparties', 'import', cps], 1, 'cps.csv:2: invalid_input too_long');
    });

    it('changes the type and currency of accounts that nothing holds', async () => {
      const r = await L.books([
        'accounts',
        'import',
        chart(
          'free.csv',
          'savings,1020,Savings,other_current_asset,cash,true,true,\n' +
            'utilities,6200,Utilities,expense,expenses,true,true,EUR\n',
        ),
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(await L.check()).toEqual([]);
    });
  },
);

it('every store says the same of a chart over held accounts', () => {
  const [first, ...rest] = [...SAID.values()];
  for (const other of rest) expect(other).toEqual(first);
});
