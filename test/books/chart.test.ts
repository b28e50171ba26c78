import { describe, expect, it } from 'vitest';
import { booksJson, snapshot, standardLedger, writeFile } from '../support/helpers.js';

const HEADER =
  'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n';

describe('accounts import', () => {
  it('creates and updates by external_id, parents after children', async () => {
    const { run, dir } = await standardLedger();
    const file = writeFile(
      dir,
      'more.csv',
      HEADER +
        'van-2,1522,Second Van,fixed_asset,fleet,true,true,\n' +
        'fleet,1521,Fleet,fixed_asset,fixed-assets,false,true,\n' +
        'rent,6100,Rent and Rates,expense,expenses,true,true,\n',
    );
    const r = await run(['accounts', 'import', file, '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ created: 2, updated: 1, unchanged: 0 });
    const list = JSON.parse((await run(['accounts', 'list', '--format', 'json'])).stdout) as {
      data: { external_id: string; id: string; parent_id: string; name: string }[];
    };
    const by = new Map(list.data.map((a) => [a.external_id, a]));
    expect(by.get('van-2')!.parent_id).toBe(by.get('fleet')!.id);
    expect(by.get('rent')!.name).toBe('Rent and Rates');
  });

  it('leaves an unchanged chart or counterparty list as it was: nothing updated, no time rewritten', async () => {
    const { run, dir, ledger } = await standardLedger();
    const chart = (await run(['accounts', 'list', '--format', 'csv'])).stdout;
    const parties = (await run(['counterparties', 'list', '--format', 'csv'])).stdout;
    const before = snapshot(ledger);
    const a = await run([
      'accounts',
      'import',
      writeFile(dir, 'chart.csv', chart),
      '--format',
      'json',
    ]);
    const rows = chart.trim().split('\n').length - 1;
    expect(JSON.parse(a.stdout)).toEqual({ created: 0, updated: 0, unchanged: rows });
    const c = await run(['counterparties', 'import', writeFile(dir, 'cp.csv', parties)]);
    expect(c.stdout).toMatch(/counterparties: 0 created, 0 updated, \d+ unchanged/);
    expect(snapshot(ledger)).toBe(before);
    // One changed row is the one updated.
    const renamed = chart.replace(',Rent,', ',Rent and Rates,');
    const b = await run([
      'accounts',
      'import',
      writeFile(dir, 'c2.csv', renamed),
      '--format',
      'json',
    ]);
    expect(JSON.parse(b.stdout)).toEqual({ created: 0, updated: 1, unchanged: rows - 1 });
  });

  it('refuses an external id that is another account’s number, naming both rows', async () => {
    const { run, dir, ledger } = await standardLedger();
    const before = snapshot(ledger);
    // Rent's number is 6100 in the standard chart.
    const clash = writeFile(dir, 'clash.csv', HEADER + '6100,6199,Misc,expense,,true,true,\n');
    const r = await run(['accounts', 'import', clash]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      'clash.csv:2: invalid_input ambiguous_reference: external_id: ' +
        "external id '6100' (row 2) is also the number of 'rent'",
    );
    const both = writeFile(
      dir,
      'both.csv',
      HEADER + 'x1,7777,X,expense,,true,true,\n' + '7777,7778,Y,expense,,true,true,\n',
    );
    const r2 = await run(['accounts', 'import', both]);
    expect(r2.stderr).toContain("external id '7777' (row 3) is also the number of 'x1' (row 2)");
    expect(snapshot(ledger)).toBe(before);
    // Its own number as its external id is no clash.
    const own = writeFile(dir, 'own.csv', HEADER + '7700,7700,Own,expense,,true,true,\n');
    expect((await run(['accounts', 'import', own])).exitCode).toBe(0);
  });

  it('refuses to make an account that holds lines a header, naming the row and the balance', async () => {
    const { run, dir, ledger } = await standardLedger();
    const post = await run([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'rent=1250',
      '--credit',
      'checking=1250',
    ]);
    expect(post.exitCode, post.stderr).toBe(0);
    const before = snapshot(ledger);
    const header = writeFile(
      dir,
      'h.csv',
      HEADER + 'rent,6100,Rent,expense,expenses,false,true,\n',
    );
    const r = await run(['accounts', 'import', header]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "h.csv:2: invalid_input account_has_lines: is_postable: 'rent' holds 1 line with a balance of 1,250.00",
    );
    expect(snapshot(ledger)).toBe(before);
    // An account without lines may become a header.
    const ok = writeFile(
      dir,
      'ok.csv',
      HEADER + 'utilities,6200,Utilities,expense,expenses,false,true,\n',
    );
    expect((await run(['accounts', 'import', ok])).exitCode).toBe(0);
  });

  it('refuses a chart nested deeper than 50 levels (reports walk the tree), naming the rows', async () => {
    const { run, dir, ledger } = await standardLedger();
    const rows = Array.from(
      { length: 52 },
      (_, i) => `d${i},,Level ${i + 1},expense,${i ? `d${i - 1}` : ''},true,true,`,
    );
    const before = snapshot(ledger);
    const r = await run([
      'accounts',
      'import',
      writeFile(dir, 'deep.csv', HEADER + rows.join('\n')),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "deep.csv:52: invalid_input too_deep: parent_external_id: 'd50' sits 51 levels deep; a chart nests at most 50",
    );
    expect(r.stderr).toContain('deep.csv:53: invalid_input too_deep');
    expect(snapshot(ledger)).toBe(before);
    const fifty = writeFile(dir, 'fifty.csv', HEADER + rows.slice(0, 50).join('\n'));
    expect((await run(['accounts', 'import', fifty])).exitCode).toBe(0);
    expect((await run(['report', 'pnl', '--end', '2025-12-31'])).exitCode).toBe(0);
  });

  it('refuses a file with problems, naming each row, and changes nothing', async () => {
    const { run, dir, ledger } = await standardLedger();
    const file = writeFile(
      dir,
      'bad.csv',
      HEADER +
        'a,9001,A,asset,,true,true,\n' + // row 2: bad type
        'b,9002,B,bank,nowhere,true,true,\n' + // row 3: unknown parent
        'c,9003,C,bank,d,true,true,\n' + // row 4: cycle c -> d -> c
        'd,9004,D,bank,c,true,true,\n' + // row 5: cycle
        'e,9005,E,expense,cash,maybe,true,EURO\n' + // row 6: boolean, currency
        'f,1010,F,bank,,true,true,\n', // row 7: number taken
    );
    const before = snapshot(ledger);
    const r = await run(['accounts', 'import', file]);
    expect(r.exitCode).toBe(1);
    for (const text of [
      'bad.csv:2: invalid_input invalid_account_type',
      'bad.csv:3: invalid_input unknown_parent',
      'bad.csv:4: invalid_input parent_cycle',
      'bad.csv:5: invalid_input parent_cycle',
      'bad.csv:6: invalid_input invalid_boolean',
      'bad.csv:6: invalid_input invalid_currency',
      'bad.csv:7: invalid_input duplicate',
    ]) {
      expect(r.stderr).toContain(text);
    }
    expect(snapshot(ledger)).toBe(before);
  });

  it('refuses an unknown column and a missing one', async () => {
    const { run, dir } = await standardLedger();
    const r = await run([
      'accounts',
      'import',
      writeFile(dir, 'h.csv', 'external_id,name,kind\nx,X,bank\n'),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "h.csv:1: invalid_input unknown_column: kind: unknown column 'kind'",
    );
    expect(r.stderr).toContain(
      "missing_column: account_type: required column 'account_type' is missing",
    );
  });
});

describe('counterparties import', () => {
  it('lists what was imported and refuses bad rows', async () => {
    const { run, dir } = await standardLedger();
    const list = await booksJson([
      'counterparties',
      'list',
      '--ledger',
      (await standardLedger()).ledger,
    ]);
    expect(list.body.data.map((c: { external_id: string }) => c.external_id)).toContain('C001');
    const r = await run([
      'counterparties',
      'import',
      writeFile(
        dir,
        'cp.csv',
        'counterparty_type,external_id,name,is_active\npartner,P1,Pat,true\ncustomer,,No Id,true\n',
      ),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('cp.csv:2: invalid_input invalid_counterparty_type');
    expect(r.stderr).toContain('cp.csv:3: invalid_input missing_field');
  });
});
