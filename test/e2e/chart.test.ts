import { describe, expect, it } from 'vitest';
import { booksJson, snapshot, standardLedger, writeFile } from './helpers.js';

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
    expect(JSON.parse(r.stdout)).toEqual({ created: 2, updated: 1 });
    const list = JSON.parse((await run(['accounts', 'list', '--format', 'json'])).stdout) as {
      data: { external_id: string; id: string; parent_id: string; name: string }[];
    };
    const by = new Map(list.data.map((a) => [a.external_id, a]));
    expect(by.get('van-2')!.parent_id).toBe(by.get('fleet')!.id);
    expect(by.get('rent')!.name).toBe('Rent and Rates');
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
