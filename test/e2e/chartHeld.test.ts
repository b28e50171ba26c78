import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
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
