import { mkdirSync, readFileSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { snapshot } from '../support/helpers.js';
import { cli } from '../support/cli.js';
import { copyTemplate } from '../support/ledgers.js';

// The cases of the trust issue that are about data and files, run in-process through the same `run`
// as the binary (each reproduced on the main of 2026-11-22 before its fix).

const CHART_HEADER =
  'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n';

function ledger() {
  const { dir, ledger } = copyTemplate('standard');
  const run = (args: string[], input?: string) =>
    cli([...args, '--ledger', ledger], { cwd: dir, ...(input !== undefined ? { input } : {}) });
  return { dir, ledger, run };
}

const post = (date: string, debit = 'rent=100', credit = 'checking=100', ...extra: string[]) => [
  'je',
  'post',
  '--date',
  date,
  '--debit',
  debit,
  '--credit',
  credit,
  ...extra,
];

describe('a chart change that would hide balances', () => {
  it('is refused when a parent moves to another section and its children stay; nothing changes', async () => {
    const L = ledger();
    expect((await L.run(post('2025-02-01'))).exitCode).toBe(0);
    const file = join(L.dir, 'retype.csv');
    writeFileSync(file, CHART_HEADER + 'cash,1000,Cash and Bank,income,,false,true,\n');
    const before = snapshot(L.ledger);
    const r = await L.run(['accounts', 'import', file]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      'retype.csv:2: invalid_input section_mismatch: parent_external_id: ' +
        "bank account 'checking' cannot sit under income account 'cash'",
    );
    expect(snapshot(L.ledger)).toBe(before);
  });

  it('is found by books check when the tree crosses sections anyway', async () => {
    const L = ledger();
    const db = new Database(L.ledger);
    db.prepare(`UPDATE accounts SET account_type = 'income' WHERE external_id = 'cash'`).run();
    db.close();
    const r = await L.run(['check']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "accounts[checking]: bank account 'checking' cannot sit under income account 'cash' (section_mismatch)",
    );
  });
});

describe('a chart that names an account two ways, or puts lines under a header', () => {
  it('is found by books check when made anyway, behind the import’s back', async () => {
    const L = ledger();
    expect((await L.run(post('2025-02-01'))).exitCode).toBe(0);
    const db = new Database(L.ledger);
    db.prepare(`UPDATE accounts SET external_id = '6200' WHERE external_id = 'office'`).run();
    db.prepare(`UPDATE accounts SET is_postable = 0 WHERE external_id = 'rent'`).run();
    db.close();
    const r = await L.run(['check']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      "accounts[6200]: external id '6200' is also the number of 'utilities': a reference to 6200 " +
        'would name two accounts (ambiguous_reference)',
    );
    expect(r.stderr).toContain(
      "accounts[rent]: header account 'rent' holds 1 line(s), balance 100.00 (header_with_lines)",
    );
  });
});

describe('--output', () => {
  it('refuses the ledger’s own file and any SQLite file, and changes neither', async () => {
    const L = ledger();
    const other = copyTemplate('standard').ledger;
    for (const target of [L.ledger, other]) {
      const before = snapshot(target);
      const r = await L.run(['report', 'balance-sheet', '--end', '2025-03-31', '--output', target]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(
        target === L.ledger ? /is the ledger's own file/ : /is a SQLite database/,
      );
      expect(snapshot(target)).toBe(before);
    }
  });

  it('writes through a symbolic link (the link stays) and into a device as it is', async () => {
    const L = ledger();
    mkdirSync(join(L.dir, 'reports'));
    const real = join(L.dir, 'reports', 'bs.csv');
    writeFileSync(real, 'old');
    const link = join(L.dir, 'latest.csv');
    symlinkSync(real, link);
    expect(
      (
        await L.run([
          'report',
          'balance-sheet',
          '--end',
          '2025-03-31',
          '--format',
          'csv',
          '--output',
          link,
        ])
      ).exitCode,
    ).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toMatch(/^section,depth,path/);
    const dev = await L.run([
      'report',
      'balance-sheet',
      '--end',
      '2025-03-31',
      '--output',
      '/dev/null',
    ]);
    expect(dev.exitCode).toBe(0);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });
});

describe('numbers in JSON are what the text says', () => {
  it.each([
    ['0.99999999999999999', '1 atom written with a point'],
    ['9007199254740991.4', 'a fraction past 2^53'],
    ['1e2', 'an exponent'],
    ['100.0', 'a whole number written with a point'],
  ])(
    'refuses amount_atoms %s (%s) in a --file body: invalid_amount, nothing posted',
    async (amount) => {
      const L = ledger();
      const body =
        `{"entry_date":"2025-03-02","lines":[{"gl_account_id":"rent","line_type":"debit","amount_atoms":${amount}},` +
        '{"gl_account_id":"checking","line_type":"credit","amount_atoms":1}]}';
      const before = snapshot(L.ledger);
      const r = await L.run(['je', 'post', '--file', '-', '--format', 'json'], body);
      expect(r.exitCode).toBe(1);
      expect(JSON.parse(r.stdout).error.errors).toContainEqual(
        expect.objectContaining({
          path: 'lines[0].amount_atoms',
          reason: 'invalid_amount',
          message: expect.stringContaining(amount),
        }),
      );
      expect(snapshot(L.ledger)).toBe(before);
    },
  );
});

describe('dates at the edge of the calendar', () => {
  it('posts on 9999-12-31 and reports windows that end there', async () => {
    const L = ledger();
    expect((await L.run(post('9999-12-31'))).exitCode).toBe(0);
    const r = await L.run([
      'report',
      'balance-sheet',
      '--start',
      '9995-01-01',
      '--end',
      '9999-12-31',
      '--period',
      'yearly',
      '--format',
      'json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const sheet = JSON.parse(r.stdout);
    expect(sheet.periods.map((p: { id: string }) => p.id)).toEqual([
      '9995',
      '9996',
      '9997',
      '9998',
      '9999',
    ]);
    expect(sheet.sections[0].balances['9999']).toBe(-10000);
    const tooLong = await L.run([
      'report',
      'balance-sheet',
      '--start',
      '9994-12-31',
      '--end',
      '9999-12-31',
    ]);
    expect(tooLong.exitCode).toBe(1);
    expect(tooLong.stderr).toContain('CAPI69');
  });
});

describe('hostile text', () => {
  const escape = '\u001b]0;pwned\u0007\u001b[2J';

  it('reaches the terminal escaped: no control character, one line per row', async () => {
    const L = ledger();
    expect(
      (
        await L.run(
          post('2025-02-01', 'rent=1', 'checking=1', '--memo', `evil${escape}\nsecond line`),
        )
      ).exitCode,
    ).toBe(0);
    expect(
      (await L.run(post('2025-02-02', 'rent=2', 'checking=2', '--memo', 'plain'))).exitCode,
    ).toBe(0);
    for (const args of [
      ['je', 'list'],
      ['je', 'show', 'JE-1'],
    ]) {
      const out = (await L.run(args)).stdout;
      // eslint-disable-next-line no-control-regex
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(out).toContain('evil\\x1b]0;pwned\\x07\\x1b[2J\\nsecond line');
    }
    expect((await L.run(['je', 'list'])).stdout.trim().split('\n')).toHaveLength(3);
    // Stored as given: JSON carries the memo exactly.
    expect(JSON.parse((await L.run(['je', 'show', 'JE-1', '--format', 'json'])).stdout).memo).toBe(
      `evil${escape}\nsecond line`,
    );
  });

  it('is guarded in CSV meant for spreadsheets', async () => {
    const L = ledger();
    const file = join(L.dir, 'chart.csv');
    writeFileSync(
      file,
      CHART_HEADER + 'evil,1015,"=HYPERLINK(""http://x"")",bank,cash,true,true,\n',
    );
    expect((await L.run(['accounts', 'import', file])).exitCode).toBe(0);
    expect((await L.run(post('2025-02-01', 'evil=5', 'capital=5'))).exitCode).toBe(0);
    const csv = (await L.run(['report', 'balance-sheet', '--end', '2025-02-28', '--format', 'csv']))
      .stdout;
    expect(csv).toContain(`,1015,"'=HYPERLINK(""http://x"")",regular,`);
    expect(csv).not.toMatch(/,"?=HYPERLINK/);
  });
});
