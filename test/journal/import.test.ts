import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/bench/generate.js';
import {
  BIN,
  books,
  FIXTURES,
  readText,
  snapshot,
  standardLedger,
  tempDir,
  writeFile,
} from '../support/helpers.js';

const GOOD =
  [
    'entry,entry_date,memo,gl_account_id,debit,credit,counterparty_type,counterparty_external_id',
    '1,2025-01-31,January rent,6100,"2,500.00",,,',
    '1,2025-01-31,,checking,,2500,,',
    '2,2025-01-31,Invoice 7,ar,1200.00,,customer,C001',
    '2,2025-01-31,,sales,,1000.00,,',
    '2,2025-01-31,,sales-tax,,200.00,,',
    '3,2025-02-03,Rent again,rent,2500,,,',
    '3,2025-02-03,,checking,,2500,,',
  ].join('\n') + '\n';

const LINE_TYPE_FORM = [
  'entry,entry_date,memo,gl_account_id,line_type,amount,counterparty_type,counterparty_external_id',
  'a,2025-01-31,January rent,rent,debit,2500,,',
  'a,2025-01-31,,1010,credit,2500.00,,',
  'b,2025-01-31,Invoice 7,1100,debit,1200,customer,C001',
  'b,2025-01-31,,4000,credit,1000,,',
  'b,2025-01-31,,2300,credit,200,,',
  'c,2025-02-03,Rent again,rent,debit,2500,,',
  'c,2025-02-03,,checking,credit,2500,,',
].join('\n');

async function importJson(
  run: (a: string[], i?: string) => Promise<{ exitCode: number; stdout: string; stderr: string }>,
  args: string[],
  input?: string,
) {
  const r = await run(['je', 'import', ...args, '--format', 'json'], input);
  return { exitCode: r.exitCode, body: JSON.parse(r.stdout), stderr: r.stderr };
}

/** What two ledgers must agree on: every entry's date, memo and lines, without ids. */
async function content(run: (a: string[]) => Promise<{ stdout: string }>) {
  const list = JSON.parse((await run(['je', 'list', '--format', 'json'])).stdout) as {
    data: {
      entry_date: string;
      memo: string;
      je_number: string;
      source: string;
      lines: {
        account_number: string;
        line_type: string;
        amount_atoms: number;
        counterparty_external_id: string | null;
      }[];
    }[];
  };
  return list.data.map((e) => ({
    date: e.entry_date,
    memo: e.memo,
    number: e.je_number,
    source: e.source,
    lines: e.lines.map((l) => [
      l.account_number,
      l.line_type,
      l.amount_atoms,
      l.counterparty_external_id,
    ]),
  }));
}

describe('je import', () => {
  it('posts a good file, and posts nothing twice when it comes again', async () => {
    const { run, dir } = await standardLedger();
    const file = writeFile(dir, 'good.csv', GOOD);
    const first = await importJson(run, [file]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.body).toMatchObject({ posted: 3, skipped: 0, lines: 7 });
    const again = await importJson(run, [file]);
    expect(again.body).toMatchObject({ posted: 0, skipped: 3, lines: 0, skipped_rows: [2, 4, 7] });
    const human = await run(['je', 'import', file]);
    expect(human.stdout).toContain('posted 0 entries (0 lines), skipped 3');
    expect(human.stdout).toContain('first rows: 2, 4, 7');
    const entries = await content(run);
    expect(entries.map((e) => [e.number, e.source])).toEqual([
      ['JE-1', 'csv_import'],
      ['JE-2', 'csv_import'],
      ['JE-3', 'csv_import'],
    ]);
    expect((await run(['check'])).exitCode).toBe(0);
  });

  it('posts an overlapping file once: only the new entries, and identical entries by occurrence', async () => {
    const { run, dir } = await standardLedger();
    const twice = GOOD + '4,2025-02-03,Rent again,rent,2500,,,\n4,2025-02-03,,checking,,2500,,\n';
    expect((await importJson(run, [writeFile(dir, 'a.csv', GOOD)])).body.posted).toBe(3);
    const r = await importJson(run, [writeFile(dir, 'b.csv', twice)]);
    expect(r.body).toMatchObject({ posted: 1, skipped: 3 });
    expect(
      (await importJson(run, [writeFile(dir, 'c.csv', twice), '--allow-duplicates'])).body,
    ).toMatchObject({ posted: 4, skipped: 0 });
  });

  it('gives the same ledger from the debit/credit form and the line_type form', async () => {
    const a = await standardLedger();
    const b = await standardLedger();
    expect((await importJson(a.run, [writeFile(a.dir, 'dc.csv', GOOD)])).exitCode).toBe(0);
    expect((await importJson(b.run, [writeFile(b.dir, 'lt.csv', LINE_TYPE_FORM)])).exitCode).toBe(
      0,
    );
    expect(await content(b.run)).toEqual(await content(a.run));
    const atoms =
      'entry,entry_date,gl_account_id,line_type,amount_atoms\n' +
      'x,2025-01-31,rent,debit,250000\nx,2025-01-31,checking,credit,250000\n';
    const c = await standardLedger();
    await importJson(c.run, [writeFile(c.dir, 'atoms.csv', atoms)]);
    expect((await content(c.run))[0]!.lines).toEqual((await content(a.run))[0]!.lines);
  });

  it('lists every error of a file by row and column and posts nothing', async () => {
    const { run, dir, ledger } = await standardLedger();
    const bad = [
      'entry,entry_date,memo,gl_account_id,debit,credit,counterparty_type,counterparty_external_id',
      '1,2025-01-31,ok,rent,100,,,', // 2
      '1,2025-01-31,,checking,,100,,', // 3
      '2,2025-02-30,bad date,rent,100,,,', // 4 impossible date
      '2,2025-02-30,,checking,,100,,', // 5
      '3,2025-02-01,decimals,rent,100.005,,,', // 6 too many decimals
      '3,2025-02-01,,checking,,100.005,,', // 7
      '4,2025-02-01,unknown,nope,50,,,', // 8 unknown account
      '4,2025-02-01,,checking,,40,,', // 9 unbalanced (row 8 is the group's first)
      '5,2025-02-01,both,rent,5,5,,', // 10 debit and credit
      '5,2025-02-01,,ar,,5,,', // 11 receivable without customer
      '6,2025-02-01,memo one,rent,1,,,', // 12
      '6,2025-02-01,memo two,checking,,1,,', // 13 entry-level value disagrees
    ].join('\n');
    const before = snapshot(ledger);
    writeFile(dir, 'bad.csv', bad);
    const r = await run(['je', 'import', 'bad.csv']);
    expect(r.exitCode).toBe(1);
    expect(snapshot(ledger)).toBe(before);
    expect(r.stderr).toMatch(/^error CAPI33: bad\.csv: \d+ errors; nothing was posted/);
    for (const line of [
      "bad.csv:4: CAPI33 invalid_date: entry_date: '2025-02-30' is not a date",
      "bad.csv:6: CAPI33 invalid_amount: debit: '100.005' has 3 decimals; USD has 2",
      "bad.csv:7: CAPI33 invalid_amount: credit: '100.005' has 3 decimals",
      "bad.csv:8: CAPI33 unknown_account: gl_account_id: no GL account with external id or number 'nope'",
      'bad.csv:8: CAPI33 unbalanced: entry: entry is not balanced: debits 50.00 ≠ credits 40.00',
      'bad.csv:10: CAPI33 invalid_amount: debit: both debit and credit are filled',
      'bad.csv:11: CAPI33 invalid_counterparty: counterparty_external_id: ' +
        'lines on accounts_receivable accounts need a customer counterparty',
      "bad.csv:13: invalid_input entry_values_disagree: memo: 'memo two' differs from 'memo one' on row 12",
    ]) {
      expect(r.stderr).toContain(line);
    }
    const json = await importJson(run, ['bad.csv']);
    expect(json.body.error).toMatchObject({ code: 'CAPI33', posted: 0 });
    expect(json.body.error.errors.length).toBe(json.body.error.error_count);
    expect(json.body.error.errors[0]).toMatchObject({
      file: 'bad.csv',
      row: 4,
      path: 'entry_date',
      reason: 'invalid_date',
    });
  });

  it('reads a BOM, CRLF line ends and a ; delimiter', async () => {
    const { run, dir } = await standardLedger();
    const text =
      '\ufeff' +
      GOOD.replace(/"2,500.00"/, '2500.00')
        .replace(/,/g, ';')
        .replace(/\n/g, '\r\n');
    const r = await importJson(run, [writeFile(dir, 'excel.csv', text), '--delimiter', ';']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.body).toMatchObject({ posted: 3, lines: 7 });
  });

  it('reads standard input, posting what the same file posts', async () => {
    const a = await standardLedger();
    const b = await standardLedger();
    expect((await importJson(a.run, ['-'], GOOD)).body).toMatchObject({ posted: 3, lines: 7 });
    expect((await importJson(b.run, [writeFile(b.dir, 'good.csv', GOOD)])).body).toMatchObject({
      posted: 3,
      lines: 7,
    });
    expect(await content(a.run)).toEqual(await content(b.run));
    expect((await importJson(a.run, [writeFile(a.dir, 'good.csv', GOOD)])).body).toMatchObject({
      posted: 0,
      skipped: 3,
    });
  });

  it.each([
    [
      'a ragged row',
      GOOD + '4,2025-02-03,rent,1\n',
      'good.csv:9: invalid_input ragged_row: has 4 cells; the header has 8',
    ],
    [
      'a group that comes back later',
      GOOD + '1,2025-02-05,,rent,1,,,\n1,2025-02-05,,checking,,1,,\n',
      'good.csv:9: invalid_input group_not_contiguous: ' +
        "entry: entry '1' comes back on row 9 after its rows ended on row 3",
    ],
    [
      'malformed quoting',
      GOOD + '4,2025-02-03,"unclosed,rent,1,,,\n',
      'good.csv:9: invalid_input malformed_csv: a quoted field is not closed',
    ],
    [
      'an unknown column',
      GOOD.replace('memo,', 'note,'),
      "good.csv:1: invalid_input unknown_column: note: unknown column 'note'",
    ],
    ['two amount forms', GOOD.replace('memo,', 'amount,'), 'the header mixes amount forms'],
    ['an empty file', '', 'good.csv is empty; it needs a header row'],
    [
      'a header with no rows',
      GOOD.split('\n')[0] + '\n',
      'good.csv has a header but no entries; nothing was posted',
    ],
    ['a binary file', '\u0000\u0001PK\u0003\u0004\u0000\u00ff\n\u0002', 'invalid_input'],
  ])('refuses %s (exit 1), changing nothing', async (_n, text, message) => {
    const { run, dir, ledger } = await standardLedger();
    const before = snapshot(ledger);
    writeFile(dir, 'good.csv', text);
    const r = await run(['je', 'import', 'good.csv']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(message);
    expect(snapshot(ledger)).toBe(before);
  });

  it('--dry-run checks everything and posts nothing', async () => {
    const { run, dir, ledger } = await standardLedger();
    const before = snapshot(ledger);
    const r = await importJson(run, [writeFile(dir, 'good.csv', GOOD), '--dry-run']);
    expect(r.body).toMatchObject({ posted: 3, dry_run: true });
    expect(snapshot(ledger)).toBe(before);
  });

  it('refuses a missing file (exit 2) and an entry in a closed period (exit 1)', async () => {
    const { run, dir } = await standardLedger();
    expect((await run(['je', 'import', join(dir, 'nope.csv')])).exitCode).toBe(2);
    await run(['close', '--through', '2025-01-31']);
    writeFile(dir, 'good.csv', GOOD);
    const r = await run(['je', 'import', 'good.csv']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      'good.csv:2: CAPI33 period_closed: entry_date: 2025-01-31 is in a closed period',
    );
  });
});

describe('je import of a large file (over 1 MiB: written on a thread of its own)', () => {
  async function bigFile() {
    const dir = tempDir();
    const { entries } = await generate(dir, { lines: 24_000, startYear: 2021, years: 2 });
    const text = readText(join(dir, 'entries.csv'));
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const ledger = async (name: string) => {
      const path = join(dir, name);
      for (const args of [
        ['init', '--first-month', '2021-01', '--chart', join(dir, 'accounts.csv')],
        ['counterparties', 'import', join(dir, 'counterparties.csv')],
      ]) {
        expect((await books([...args, '--ledger', path])).exitCode).toBe(0);
      }
      return {
        path,
        run: (args: string[], input?: string) =>
          books([...args, '--ledger', path], {
            cwd: dir,
            ...(input !== undefined ? { input } : {}),
          }),
      };
    };
    return { dir, text, entries, ledger };
  }

  it('posts what the same entries post in small files, and passes check', async () => {
    const { dir, text, entries, ledger } = await bigFile();
    const whole = await ledger('whole.sqlite');
    const r = await importJson(whole.run, [join(dir, 'entries.csv')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.body).toMatchObject({ posted: entries, lines: 24_000, skipped: 0 });
    // The same rows cut at an entry boundary into two files under 1 MiB, imported in turn.
    const rows = text.trimEnd().split('\n');
    let cut = Math.floor(rows.length / 2);
    while (rows[cut]!.split(',')[0] === rows[cut - 1]!.split(',')[0]) cut++;
    const halves = await ledger('halves.sqlite');
    for (const [name, part] of [
      ['first.csv', rows.slice(1, cut)],
      ['second.csv', rows.slice(cut)],
    ] as const) {
      const file = writeFile(dir, name, [rows[0], ...part].join('\n') + '\n');
      expect(readText(file).length).toBeLessThan(1024 * 1024);
      expect((await importJson(halves.run, [file])).exitCode).toBe(0);
    }
    expect(await content(whole.run)).toEqual(await content(halves.run));
    const sheet = (run: typeof whole.run) =>
      run([
        'report',
        'balance-sheet',
        '--start',
        '2021-01-01',
        '--end',
        '2022-12-31',
        '--format',
        'csv',
      ]).then((x) => x.stdout);
    expect(await sheet(whole.run)).toBe(await sheet(halves.run));
    expect((await whole.run(['check'])).exitCode).toBe(0);
    expect((await importJson(whole.run, [join(dir, 'entries.csv')])).body).toMatchObject({
      posted: 0,
      skipped: entries,
    });
  });

  it('posts nothing when the last entry is wrong, naming its row', async () => {
    const { dir, text, ledger } = await bigFile();
    const rows = text.trimEnd().split('\n');
    const last = rows.length;
    rows.push(
      `E999999,2022-12-31,nope,debit,1.00,,,bad`,
      `E999999,2022-12-31,bank-0-0,credit,1.00,,,bad`,
    );
    const file = writeFile(dir, 'bad.csv', rows.join('\n') + '\n');
    const { path, run } = await ledger('bad.sqlite');
    const before = snapshot(path);
    const r = await run(['je', 'import', file]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `bad.csv:${last + 1}: CAPI33 unknown_account: gl_account_id: no GL account with external id or number 'nope'`,
    );
    expect(r.stderr).toContain('1 error; nothing was posted');
    expect(snapshot(path)).toBe(before);
    expect((await run(['check'])).exitCode).toBe(0);
  });
});

describe('npm start', () => {
  it('builds the demo ledger once and prints its year-end reports, which balance', async () => {
    const dir = tempDir();
    const env = { BOOKS_DEMO_LEDGER: join(dir, 'demo.sqlite'), NO_COLOR: '1' };
    const first = await execa('node', [join(FIXTURES, '../dist/demo.js')], { env, reject: false });
    expect(first.exitCode, String(first.stderr)).toBe(0);
    const out = String(first.stdout);
    expect(out).toContain('Jan 2025');
    expect(out).toContain('Dec 2025');
    const total = (label: string) =>
      out
        .split('\n')
        .filter((l) => l.startsWith(label))
        .map((l) =>
          l
            .slice(label.length)
            .trim()
            .split(/\s{2,}/),
        );
    expect(total('Total Assets ')).toEqual(total('Total Liabilities and Equity '));
    // The trial balance's debits equal its credits; the income statement's year is the balance sheet's net income.
    const [debits, credits] = total('Total ')[0]!;
    expect(debits).toBe(credits);
    // The balance sheet's (printed last) is indented under Equity.
    expect(total('Net Income ')[0]!.at(-1)).toBe(total('  Net Income ').at(-1)!.at(-1));
    // The cash flow ends the year at the balance sheet's cash.
    expect(out).toContain('Cash Flow Statement');
    expect(total('Cash at end of period ')[0]!.at(-1)).toBe(
      total('    Total 1000 Cash and Bank ')[0]!.at(-1),
    );
    const again = await execa('node', [join(FIXTURES, '../dist/demo.js')], { env });
    expect(String(again.stdout)).toBe(out);
  });
});

describe('Ctrl-C during an import', () => {
  it('says that nothing was posted, exits 130, and leaves the ledger as it was', async () => {
    const { dir, ledger } = await standardLedger();
    const before = snapshot(ledger);
    const child = execa('node', [BIN, 'je', 'import', '-', '--ledger', ledger], {
      cwd: dir,
      reject: false,
      env: { NO_COLOR: '1', BOOKS_CONFIG: join(dir, 'none.json') },
    });
    const row = (i: number) =>
      `${i},2025-02-03,rent,debit,1.00\n${i},2025-02-03,checking,credit,1.00\n`;
    let text = 'entry,entry_date,gl_account_id,line_type,amount\n';
    for (let i = 1; i <= 5000; i++) text += row(i);
    // Written past the pipe's buffer: the write finishes only once books is reading (its handler is set).
    await new Promise<void>((resolve) => child.stdin!.write(text, () => resolve()));
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr)).toContain('interrupted; nothing was posted');
    expect(snapshot(ledger)).toBe(before);
  });
});
