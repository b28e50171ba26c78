import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyTemplate } from '../support/ledgers.js';
import { books, FIXTURES, writeFile, type RunResult } from '../support/helpers.js';

const IMPORT = join(FIXTURES, 'import');

/** A new ledger with the demo bakery's chart and counterparties, and no entries. */
async function demoChart(): Promise<{ dir: string; run: (args: string[]) => Promise<RunResult> }> {
  const { dir, ledger } = copyTemplate('demo-chart');
  return { dir, run: (args: string[]) => books([...args, '--ledger', ledger], { cwd: dir }) };
}

/** Each account's balance as of a date (debits minus credits, in cents), by account number. */
async function balances(
  run: (args: string[]) => Promise<RunResult>,
): Promise<Record<string, number>> {
  const tb = JSON.parse(
    (await run(['report', 'tb', '--as-of', '2025-12-31', '--format', 'json'])).stdout,
  );
  const out: Record<string, number> = {};
  for (const r of tb.rows)
    if (r.account_number) out[r.account_number] = (r.debit ?? 0) - (r.credit ?? 0);
  return out;
}

describe('other systems’ journal files (--preset)', () => {
  it.each([
    [
      'xero',
      { '6100': 250000, '1010': -350000, '6700': 60000, '1590': -60000, '3020': 100000 },
      ['*TaxRate', 'TrackingName1'],
    ],
    [
      'qbo',
      { '1100': 120000, '4000': -120000, '6200': 41025, '2200': -41025 },
      ['Location', 'Class'],
    ],
    ['sage', { '1300': 240000, '6800': 1500, '1010': -241500 }, []],
  ] as const)(
    '%s: its file imports as the source system writes it',
    async (preset, expected, ignored) => {
      const { run } = await demoChart();
      const r = await run(['je', 'import', join(IMPORT, `${preset}.csv`), '--preset', preset]);
      expect(r.exitCode, r.stderr).toBe(0);
      for (const column of ignored) expect(r.stdout).toContain(column);
      expect(await balances(run)).toEqual(expected);
      // Again: nothing twice.
      expect(
        (await run(['je', 'import', join(IMPORT, `${preset}.csv`), '--preset', preset])).stdout,
      ).toContain('posted 0 entries');
    },
  );

  it('qbo: a customer named on a receivable line, and adjusting entries marked', async () => {
    const { run } = await demoChart();
    expect((await run(['je', 'import', join(IMPORT, 'qbo.csv'), '--preset', 'qbo'])).exitCode).toBe(
      0,
    );
    const list = JSON.parse((await run(['je', 'list', '--format', 'json'])).stdout).data;
    expect(list.map((e: any) => [e.memo, e.is_adjusting])).toEqual([
      ['Invoice 7 to Harbor Cafe', false],
      ['Utilities accrual', true],
    ]);
    expect(list[0].lines[0]).toMatchObject({
      counterparty_type: 'customer',
      counterparty_external_id: 'C001',
      memo: null,
    });
    expect(list[0].lines[1]).toMatchObject({ memo: 'Croissants' });
  });

  it('hledger: what hledger print -O csv wrote for the journal kept beside it, account by account', async () => {
    const { run } = await demoChart();
    const r = await run(['je', 'import', join(IMPORT, 'hledger.csv'), '--preset', 'hledger']);
    expect(r.exitCode, r.stderr).toBe(0);
    // A transaction comment's text ("paid in full") has no place in books: the summary says so.
    expect(r.stdout).toMatch(/read and ignored: .*comment/);
    // The journal's postings, as hledger wrote them: account path and signed amount.
    const rows = readFileSync(join(IMPORT, 'hledger.csv'), 'utf8').trim().split('\n').slice(1);
    const byPath = new Map<string, number>();
    for (const row of rows) {
      const cells = JSON.parse(`[${row}]`) as string[];
      byPath.set(cells[7]!, (byPath.get(cells[7]!) ?? 0) + Math.round(Number(cells[8]) * 100));
    }
    const numbers: Record<string, string> = {
      'Expenses:Operating Expenses:Rent': '6100',
      'Assets:Cash and Bank:Operating Checking': '1010',
      'Liabilities:Company Credit Card': '2100',
      'Assets:Cash and Bank:Savings': '1020',
      'Revenues:Interest Income': '7000',
      'Assets:Accounts Receivable': '1100',
      'Revenues:Sales': '4000',
    };
    expect(await balances(run)).toEqual(
      Object.fromEntries([...byPath].map(([p, v]) => [numbers[p]!, v])),
    );
    const numbered = JSON.parse((await run(['je', 'list', '--format', 'json'])).stdout).data.map(
      (e: any) => e.je_number,
    );
    expect(numbered).toEqual(['H-1', 'JE-1', 'H-3', 'H-4']);
    // Tags as books export hledger writes them: the counterparty and the line memo.
    const invoice = JSON.parse((await run(['je', 'show', 'H-4', '--format', 'json'])).stdout);
    expect(invoice.lines[0]).toMatchObject({
      counterparty_type: 'customer',
      counterparty_external_id: 'C001',
      memo: 'croissants',
    });
  });

  it('refuses, naming file, row and column: an unknown account, a tax rate, an unbalanced journal', async () => {
    const { dir, run } = await demoChart();
    const xero = readFileSync(join(IMPORT, 'xero.csv'), 'utf8')
      .replace(',1010,Tax Exempt,-2500.00', ',9999,Tax Exempt,-2500.00')
      .replace('6700,BAS Excluded,600.00', '6700,GST on Expenses,600.00')
      .replace('"-1,000.00"', '"-900.00"');
    const r = await run(['je', 'import', writeFile(dir, 'bad.csv', xero), '--preset', 'xero']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "bad.csv:3: CAPI33 unknown_account: *AccountCode: no account '9999'",
    );
    expect(r.stderr).toContain("bad.csv:4: CAPI33 tax_rate: *TaxRate: tax 'GST on Expenses'");
    expect(r.stderr).toContain('bad.csv:6: CAPI33 unbalanced');
    expect(r.stderr.match(/bad\.csv:\d+:/g)).toHaveLength(3);
    expect(await balances(run)).toEqual({});
  });

  it('refuses an account name that names two accounts, with both', async () => {
    const { dir, run } = await demoChart();
    const extra =
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
      'cogs-util,5100,Utilities,cost_of_goods_sold,,true,true,\n';
    expect((await run(['accounts', 'import', writeFile(dir, 'extra.csv', extra)])).exitCode).toBe(
      0,
    );
    const qbo = readFileSync(join(IMPORT, 'qbo.csv'), 'utf8').replace(
      'Operating Expenses:Utilities',
      'Utilities',
    );
    const r = await run(['je', 'import', writeFile(dir, 'two.csv', qbo), '--preset', 'qbo']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "two.csv:4: CAPI33 ambiguous_account: Account Name: 'Utilities' names 5100 Utilities (cogs-util) and " +
        '6200 Utilities (utilities)',
    );
  });
});

describe('--map, --date-format and --decimal-comma', () => {
  it('reads any columns as fields, refuses a date order it would have to guess, and reads 1.250,00', async () => {
    const { dir, run } = await demoChart();
    const file = writeFile(
      dir,
      'bank.csv',
      'Ref;When;Account;Amount;Note\nA;01/02/2025;Rent;1.250,00;x\nA;01/02/2025;Operating Checking;(1.250,00);\n',
    );
    const map = [
      '--delimiter',
      ';',
      '--map',
      'Ref=entry',
      '--map',
      'When=entry_date',
      '--map',
      'Account=gl_account_id',
    ];
    map.push('--map', 'Amount=signed_amount', '--map', 'Note=-', '--decimal-comma');
    const guessed = await run(['je', 'import', file, ...map]);
    expect(guessed.exitCode).toBe(1);
    expect(guessed.stderr).toContain(
      "bank.csv:2: CAPI33 ambiguous_date: When: '01/02/2025' reads as DMY and as MDY; give --date-format",
    );
    const r = await run(['je', 'import', file, ...map, '--date-format', 'DMY']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('read and ignored: Note');
    const list = JSON.parse((await run(['je', 'list', '--format', 'json'])).stdout).data;
    expect(list.map((e: any) => [e.entry_date, e.total_debit_atoms])).toEqual([
      ['2025-02-01', 125000],
    ]);
    const bad = await run(['je', 'import', file, '--map', 'Ref=entry_no']);
    expect([bad.exitCode, bad.stderr]).toEqual([
      2,
      expect.stringContaining("--map: 'Ref=entry_no' is not SOURCE=FIELD"),
    ]);
  });
});

describe('presets: what a review found', () => {
  it('qbo: journals without a Journal No. (new entries) group by date and memo, and get numbers', async () => {
    const { dir, run } = await demoChart();
    const file = writeFile(
      dir,
      'new.csv',
      'Journal No.,Journal Date,Memo,Account Name,Debits,Credits\n' +
        ',02/01/2025,Rent,Rent,100.00,\n,02/01/2025,Rent,Operating Checking,,100.00\n' +
        ',02/01/2025,Fees,Bank Fees,5.00,\n,02/01/2025,Fees,Operating Checking,,5.00\n' +
        '7,02/02/2025,Numbered,Rent,1.00,\n7,02/02/2025,Numbered,Operating Checking,,1.00\n' +
        ',02/01/2025,Rent,Rent,100.00,\n,02/01/2025,Rent,Operating Checking,,100.00\n',
    );
    const r = await run(['je', 'import', file, '--preset', 'qbo', '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ posted: 4, lines: 8 });
    const entries = JSON.parse((await run(['je', 'list', '--format', 'json'])).stdout).data;
    expect(entries.map((e: any) => [e.memo, e.je_number, e.lines.length])).toEqual([
      ['Rent', 'JE-1', 2],
      ['Fees', 'JE-2', 2],
      ['Rent', 'JE-3', 2],
      ['Numbered', 'JE-7', 2],
    ]);
  });

  it('decimal commas refuse 12.50; QuickBooks numbers and tax codes; paths by section', async () => {
    const { dir, run } = await demoChart();
    const comma = writeFile(
      dir,
      'comma.csv',
      'entry;entry_date;gl_account_id;debit;credit\n1;2025-02-01;rent;12.50;\n1;2025-02-01;checking;;12,50\n',
    );
    const r1 = await run(['je', 'import', comma, '--delimiter', ';', '--decimal-comma']);
    expect(r1.exitCode).toBe(1);
    expect(r1.stderr).toContain(
      "comma.csv:2: CAPI33 invalid_amount: debit: '12.50' is not an amount with a decimal comma",
    );
    expect(r1.stderr.match(/comma\.csv:\d+:/g)).toHaveLength(1);
    const qbo = readFileSync(join(IMPORT, 'qbo.csv'), 'utf8')
      .replace('Retail,No', 'Retail,No')
      .split('\n');
    qbo[0] += ',Tax Code';
    for (let i = 1; i < qbo.length; i++) if (qbo[i]) qbo[i] += i === 2 ? ',GST' : ',NON';
    const taxed = await run([
      'je',
      'import',
      writeFile(dir, 'taxed.csv', qbo.join('\n')),
      '--preset',
      'qbo',
    ]);
    expect(taxed.exitCode).toBe(1);
    expect(taxed.stderr).toContain("taxed.csv:3: CAPI33 tax_rate: Tax Code: tax 'GST'");
    const ok = await run(['je', 'import', join(IMPORT, 'qbo.csv'), '--preset', 'qbo']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const numbers = JSON.parse((await run(['je', 'list', '--format', 'json'])).stdout).data.map(
      (e: any) => e.je_number,
    );
    expect(numbers).toEqual(['JE-1001', 'JE-1002']);
    // A section word leads a path only to an account of that section.
    const wrong = writeFile(
      dir,
      'wrong.csv',
      'Ref,Date,Account,Amount\nA,2025-02-02,Expenses:Cash and Bank:Operating Checking,5.00\n' +
        'A,2025-02-02,Expenses:Operating Expenses:Rent,-5.00\n',
    );
    const map = [
      '--map',
      'Ref=entry',
      '--map',
      'Date=entry_date',
      '--map',
      'Account=gl_account_id',
      '--map',
      'Amount=signed_amount',
    ];
    const r3 = await run(['je', 'import', wrong, ...map]);
    expect(r3.exitCode).toBe(1);
    expect(r3.stderr).toContain(
      "wrong.csv:2: CAPI33 unknown_account: Account: no account 'Expenses:Cash and Bank:Operating Checking'",
    );
    expect(r3.stderr.match(/wrong\.csv:\d+:/g)).toHaveLength(1);
  });
});

describe('each preset refuses, naming file, row and the column as the source names it', () => {
  const cases: [string, [string, string][], [number, string, string][]][] = [
    [
      'xero',
      [
        [',1010,Tax Exempt,-2500.00', ',9999,Tax Exempt,-2500.00'],
        ['31/01/2025,Rent for January', '32/01/2025,Rent for January'],
        ['"-1,000.00"', '"-900.00"'],
      ],
      [
        [3, 'unknown_account', '*AccountCode'],
        [2, 'invalid_date', '*Date'],
        [6, 'unbalanced', '*Narration'],
      ],
    ],
    [
      'qbo',
      [
        ['USD,Invoice 7 to Harbor Cafe,Sales', 'USD,Invoice 7 to Harbor Cafe,Nope Account'],
        ['1002,02/28/2025', '1002,28/02/2025'],
        [',410.25,,,Main Street,,Yes', ',400.25,,,Main Street,,Yes'],
      ],
      [
        [3, 'unknown_account', 'Account Name'],
        [4, 'invalid_date', 'Journal Date'],
        [4, 'unbalanced', 'Journal No.'],
      ],
    ],
    [
      'sage',
      [
        ['JNL001,01/31/2025,Prepaid insurance,1010', 'JNL001,01/31/2025,Prepaid insurance,9999'],
        ['JNL002,02/28/2025,Bank fees,6800', 'JNL002,28/02/2025,Bank fees,6800'],
        [',0.00,15.00', ',0.00,16.00'],
      ],
      [
        [3, 'unknown_account', 'Ledger Account Number'],
        [4, 'invalid_date', 'Date'],
        [4, 'unbalanced', 'Reference'],
      ],
    ],
    [
      'hledger',
      [
        ['"Expenses:Operating Expenses:Rent"', '"Expenses:Nope"'],
        ['"2","2025-02-10"', '"2","2025-02-30"'],
        ['"-120.50","USD"', '"-120.00","USD"'],
      ],
      [
        [2, 'unknown_account', 'account'],
        [4, 'invalid_date', 'date'],
        [4, 'unbalanced', 'txnidx'],
      ],
    ],
  ];
  it.each(cases)('%s', async (preset, edits, expected) => {
    const { dir, run } = await demoChart();
    let text = readFileSync(join(IMPORT, `${preset}.csv`), 'utf8');
    for (const [from, to] of edits) {
      expect(text, from).toContain(from);
      text = text.replace(from, to);
    }
    const r = await run(['je', 'import', writeFile(dir, 'bad.csv', text), '--preset', preset]);
    expect(r.exitCode).toBe(1);
    for (const [row, reason, column] of expected)
      expect(r.stderr).toContain(`bad.csv:${row}: CAPI33 ${reason}: ${column}:`);
    expect(await balances(run)).toEqual({});
  });
});
