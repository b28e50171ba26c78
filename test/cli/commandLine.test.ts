import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, books, standardLedger, tempDir, type RunResult } from '../support/helpers.js';

/** What the command line does with what a person types (docs/cli.md): through the real binary. */
describe('the command line as a bookkeeper meets it', () => {
  it('stops quietly when the reader of its output stops early (| head)', async () => {
    const { ledger } = await standardLedger();
    for (const cmd of [`--help`, `accounts list --format csv --ledger ${ledger}`]) {
      const r = await execa('sh', ['-c', `node ${BIN} ${cmd} | head -c 1`], { reject: false });
      expect(r.stderr, cmd).toBe('');
      expect(r.exitCode).toBe(0);
    }
  });

  it('with --format json, usage errors are one JSON document too (exit 2)', async () => {
    const { run } = await standardLedger();
    for (const args of [
      ['nope'],
      ['je', 'list', '--bogus'],
      ['report', 'balance-sheet', '--period', 'weekly'],
    ]) {
      const r = await run([...args, '--format', 'json']);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(JSON.parse(r.stdout)).toMatchObject({
        error: { code: 'usage', message: expect.any(String) },
      });
    }
  });

  it('books close says the date it closed through, and the one before', async () => {
    const { run } = await standardLedger();
    const first = await run(['close', '--through', '2025-03-31']);
    expect(first.stdout.trim()).toBe('The books are closed through 2025-03-31.');
    const again = await run(['close', '--through', '2025-04-30', '--format', 'json']);
    expect(JSON.parse(again.stdout)).toEqual({
      lock_date: '2025-04-30',
      previous_lock_date: '2025-03-31',
    });
  });

  it("a key whose id starts with '-' is revoked after '--', and the usage error says so", async () => {
    const { dir, ledger } = await standardLedger();
    const minted = await books(['keys', 'create', '--permission', 'customer_api:read'], {
      cwd: dir,
    });
    expect(minted.exitCode).toBe(0);
    // Ids minted before they were kept from starting with '-' may still do so.
    const db = new Database(ledger);
    db.prepare(`UPDATE api_keys SET id = '-abc'`).run();
    db.close();
    const bare = await books(['keys', 'revoke', '-abc'], { cwd: dir });
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain("unknown option '-abc'");
    expect(bare.stderr).toContain("a value that starts with '-' goes after '--'");
    const r = await books(['keys', 'revoke', '--', '-abc'], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^API key -abc revoked at /);
  });

  it('writes the format asked for or refuses it the same way; lists write their import formats', async () => {
    const { run } = await standardLedger();
    expect(
      (
        await run([
          'je',
          'post',
          '--date',
          '2025-01-05',
          '--debit',
          'rent=5',
          '--credit',
          'checking=5',
        ])
      ).exitCode,
    ).toBe(0);
    for (const args of [
      ['je', 'show', 'JE-1'],
      ['check'],
      ['keys', 'list'],
      ['close', '--through', '2025-01-31'],
      ['rebuild'],
    ]) {
      const r = await run([...args, '--format', 'csv']);
      expect([r.exitCode, r.stderr], args.join(' ')).toEqual([
        2,
        expect.stringContaining(
          `--format csv is not offered by books ${args
            .slice(0, 2)
            .join(' ')
            .replace(/ JE-1| --through/, '')}`,
        ),
      ]);
    }
    const accounts = await run(['accounts', 'list', '--format', 'csv']);
    // The standard chart sets cash_flow on its accumulated depreciation: the column is written.
    expect(accounts.stdout.split('\n')[0]).toBe(
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency,cash_flow',
    );
    const parties = await run(['counterparties', 'list', '--format', 'csv']);
    expect(parties.stdout.split('\n')[0]).toBe('counterparty_type,external_id,name,is_active');
  });

  it('says what an amount must look like; the same mistake, the same exit', async () => {
    const { run } = await standardLedger();
    const post = (debit: string) =>
      run([
        'je',
        'post',
        '--date',
        '2025-02-01',
        '--debit',
        `rent=${debit}`,
        '--credit',
        'checking=1',
      ]);
    const cases: [string, number, string][] = [
      ['$1,250.00', 2, 'leave out the currency (1,250.00)'],
      ['1.250,00', 2, 'it has a decimal comma; write 1250.00'],
      [
        '(100)',
        1,
        "'(100)' is negative: an amount is positive, and a credit goes on the credit side",
      ],
      ['-5', 1, "'-5' is negative: an amount is positive, and a credit goes on the credit side"],
    ];
    for (const [amount, exit, says] of cases) {
      const r = await post(amount);
      expect([r.exitCode, r.stderr], amount).toEqual([exit, expect.stringContaining(says)]);
    }
    const named = await run([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'Rent=10',
      '--credit',
      'checking=10',
    ]);
    expect(named.stderr).toContain('did you mean 6100 Rent (rent)?');
    // The same help in a file, and for a guessed amount field: one problem each.
    const body = JSON.stringify({
      entry_date: '2025-02-01',
      lines: [
        { gl_account_id: 'Rent', line_type: 'debit', amount: 5 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 5 },
      ],
    });
    const file = await run(['je', 'post', '--file', '-'], body);
    expect(file.exitCode).toBe(1);
    expect(file.stderr).toContain(
      "no GL account with external id or number 'Rent'; did you mean 6100 Rent (rent)?",
    );
    expect(file.stderr).toContain("unknown field 'amount': a line amount is amount_atoms");
    expect(file.stderr).not.toContain('amount_atoms is required');
  });

  it('reversals: never dated before the original; a default date in a closed period says to give --date', async () => {
    const { run } = await standardLedger();
    expect(
      (
        await run([
          'je',
          'post',
          '--date',
          '2025-01-10',
          '--debit',
          'rent=5',
          '--credit',
          'checking=5',
        ])
      ).exitCode,
    ).toBe(0);
    const before = await run(['je', 'reverse', 'JE-1', '--date', '2025-01-09']);
    expect([before.exitCode, before.stderr]).toEqual([
      1,
      expect.stringContaining("2025-01-09 is before JE-1's own date, 2025-01-10"),
    ]);
    expect((await run(['close', '--through', '2025-01-31'])).exitCode).toBe(0);
    const closed = await run(['je', 'reverse', 'JE-1']);
    expect([closed.exitCode, closed.stderr]).toEqual([
      1,
      expect.stringContaining('give the reversal a later date with --date'),
    ]);
    expect((await run(['je', 'reverse', 'JE-1', '--date', '2025-02-01'])).exitCode).toBe(0);
  });

  it('"year to date" is the fiscal year to date', async () => {
    const dir = tempDir();
    const ledger = join(dir, 'fy4.sqlite');
    const run = (args: string[]): Promise<RunResult> =>
      books([...args, '--ledger', ledger], { cwd: dir });
    expect(
      (
        await run([
          'init',
          '--first-month',
          '2025-01',
          '--fiscal-year-start-month',
          '4',
          '--chart',
          'standard',
        ])
      ).exitCode,
    ).toBe(0);
    for (const report of ['balance-sheet', 'income-statement']) {
      const r = await run(['report', report, '--end', '2025-06-30', '--format', 'json']);
      expect(JSON.parse(r.stdout).periods[0].start_date, report).toBe('2025-04-01');
    }
    const gl = await run(['report', 'gl', '--end', '2025-06-30', '--format', 'json']);
    expect(JSON.parse(gl.stdout).start_date).toBe('2025-04-01');
  });
});
