import { beforeAll, describe, expect, it } from 'vitest';
import { books, snapshot, standardLedger, writeFile, type RunResult } from '../support/helpers.js';

// Every refusal of `books je post`: exit 1, the CAPI code in the message, every problem listed, and the
// ledger's content exactly as it was.
let L: Awaited<ReturnType<typeof standardLedger>>;

beforeAll(async () => {
  L = await standardLedger();
  const extra = writeFile(
    L.dir,
    'extra.csv',
    'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
      'old-bank,1090,Closed Bank Account,bank,cash,true,false,\n' +
      'eur-bank,1040,Euro Account,bank,cash,true,true,EUR\n',
  );
  expect((await L.run(['accounts', 'import', extra])).exitCode).toBe(0);
  // One good entry so that "unchanged" compares a ledger with content.
  expect(
    (
      await L.run([
        'je',
        'post',
        '--date',
        '2025-03-01',
        '--debit',
        'checking=100',
        '--credit',
        'sales=100',
      ])
    ).exitCode,
  ).toBe(0);
}, 60_000);

async function refused(args: string[], input?: string): Promise<RunResult> {
  const before = snapshot(L.ledger);
  const r = await L.run(args, input);
  expect(r.exitCode, r.stderr).toBe(1);
  expect(snapshot(L.ledger)).toBe(before);
  return r;
}

async function refusedJson(args: string[], input?: string) {
  const r = await refused([...args, '--format', 'json'], input);
  const body = JSON.parse(r.stdout) as {
    error: {
      code: string;
      message: string;
      errors: { path: string; reason: string; message: string }[];
    };
  };
  return body.error;
}

const post = (...lines: string[]) => ['je', 'post', '--date', '2025-03-02', ...lines];
const body = (lines: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ entry_date: '2025-03-02', lines, ...extra });
const line = (
  gl_account_id: string,
  line_type: string,
  amount_atoms: unknown,
  extra: Record<string, unknown> = {},
) => ({ gl_account_id, line_type, amount_atoms, ...extra });

describe('je post refuses, naming the code and every problem, and changes nothing', () => {
  it('an unbalanced entry', async () => {
    const r = await refused(post('--debit', 'checking=1,250.00', '--credit', 'sales=1200'));
    expect(r.stderr).toContain(
      'error CAPI33: entry is not balanced: debits 1,250.00 ≠ credits 1,200.00',
    );
  });

  it.each([
    [
      'an unknown account',
      '9999',
      'unknown_account',
      "no account '9999': name it by external id or account number",
    ],
    ['an inactive account', 'old-bank', 'inactive_account', 'is inactive'],
    ['an unpostable (header) account', 'cash', 'unpostable_account', 'cannot be posted to'],
    [
      'an account kept in another currency, given no amount in it',
      'eur-bank',
      'fx_missing',
      'is kept in EUR',
    ],
  ])('%s', async (_name, account, reason, text) => {
    const e = await refusedJson(post('--debit', `${account}=10`, '--credit', 'sales=10'));
    expect(e.code).toBe('CAPI33');
    const path = reason === 'fx_missing' ? 'lines[0].fx' : 'lines[0].gl_account_id';
    expect(e.errors).toEqual([expect.objectContaining({ path, reason })]);
    expect(e.errors[0]!.message).toContain(text);
  });

  it.each([
    ['a receivable line without a counterparty', 'ar=10', 'need a customer counterparty'],
    ['an unknown customer', 'ar=10@customer:C999', "no customer with external id 'C999'"],
    ['a vendor on a receivable line', 'ar=10@vendor:V001', 'need a customer, not a vendor'],
    ['an inactive counterparty', 'ap=10@vendor:V005', 'is inactive'],
  ])('an invalid counterparty: %s', async (_name, debit, text) => {
    const e = await refusedJson(post('--debit', debit, '--credit', 'sales=10'));
    expect(e.code).toBe('CAPI33');
    expect(e.errors).toHaveLength(1);
    expect(e.errors[0]).toMatchObject({ reason: 'invalid_counterparty' });
    expect(e.errors[0]!.message).toContain(text);
  });

  it('a currency other than the functional currency', async () => {
    const e = await refusedJson(
      post('--currency', 'EUR', '--debit', 'checking=10', '--credit', 'sales=10'),
    );
    expect(e.errors).toEqual([
      expect.objectContaining({ path: 'currency', reason: 'currency_mismatch' }),
    ]);
  });

  it('invalid line amounts: zero, negative, fractional, a string, missing', async () => {
    const e = await refusedJson(
      ['je', 'post', '--file', '-'],
      body([
        line('checking', 'debit', 0),
        line('sales', 'credit', -5),
        line('sales', 'credit', 1.5),
        line('sales', 'credit', '100'),
        line('sales', 'credit', undefined),
      ]),
    );
    expect(e.code).toBe('CAPI33');
    expect(e.errors.map((p) => p.path)).toEqual(
      [0, 1, 2, 3, 4].map((i) => `lines[${i}].amount_atoms`),
    );
    expect(new Set(e.errors.map((p) => p.reason))).toEqual(new Set(['invalid_amount']));
  });

  it('an amount beyond 2^53 - 1 atoms', async () => {
    const e = await refusedJson(
      ['je', 'post', '--file', '-'],
      '{"entry_date":"2025-03-02","lines":[' +
        '{"gl_account_id":"checking","line_type":"debit","amount_atoms":9007199254740993},' +
        '{"gl_account_id":"sales","line_type":"credit","amount_atoms":9007199254740993}]}',
    );
    expect(e.errors.map((p) => [p.path, p.reason])).toEqual([
      ['lines[0].amount_atoms', 'invalid_amount'],
      ['lines[1].amount_atoms', 'invalid_amount'],
    ]);
  });

  it('a debit total beyond 2^53 - 1 atoms', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const e = await refusedJson(
      ['je', 'post', '--file', '-'],
      body([
        line('checking', 'debit', max),
        line('savings', 'debit', 1),
        line('sales', 'credit', max),
        line('services', 'credit', 1),
      ]),
    );
    expect(e.errors).toEqual([
      expect.objectContaining({ path: 'lines', reason: 'total_too_large' }),
    ]);
  });

  it('fewer than 2 lines', async () => {
    const e = await refusedJson(post('--debit', 'checking=10'));
    expect(e.errors.map((p) => p.reason)).toEqual(['line_count', 'unbalanced']);
  });

  it('more than 1000 lines', async () => {
    const lines = [
      ...Array.from({ length: 1000 }, () => line('checking', 'debit', 1)),
      line('sales', 'credit', 1000),
    ];
    const e = await refusedJson(['je', 'post', '--file', '-'], body(lines));
    expect(e.errors).toEqual([expect.objectContaining({ path: 'lines', reason: 'line_count' })]);
  });

  it('an entry dated before the books start', async () => {
    const r = await refused([
      'je',
      'post',
      '--date',
      '2024-12-31',
      '--debit',
      'checking=10',
      '--credit',
      'sales=10',
    ]);
    expect(r.stderr).toContain(
      'error CAPI33: --date: 2024-12-31 is before the books start on 2025-01-01',
    );
  });

  it('an impossible date is a flag that cannot be read: exit 2, naming the flag', async () => {
    const before = snapshot(L.ledger);
    const r = await L.run([
      'je',
      'post',
      '--date',
      '2025-02-29',
      '--debit',
      'checking=10',
      '--credit',
      'sales=10',
      '--format',
      'json',
    ]);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: 'usage',
      errors: [{ path: '--date', reason: 'invalid_date' }],
    });
    expect(snapshot(L.ledger)).toBe(before);
  });

  it('unknown fields in the body', async () => {
    const e = await refusedJson(
      ['je', 'post', '--file', '-'],
      body([line('checking', 'debit', 5, { colour: 'red' }), line('sales', 'credit', 5)], {
        attachments: [],
      }),
    );
    expect(e.errors.map((p) => p.path).sort()).toEqual(['attachments', 'lines[0].colour']);
  });

  it('a body that names a key twice (the last value would win silently)', async () => {
    const text = `{"entry_date":"2025-03-02","lines":[
      {"gl_account_id":"checking","line_type":"debit","amount_atoms":5,"amount_atoms":100},
      {"gl_account_id":"sales","line_type":"credit","amount_atoms":100}]}`;
    const e = await refusedJson(['je', 'post', '--file', '-'], text);
    expect(e).toMatchObject({ code: 'CAPI33', errors: [{ reason: 'invalid_json' }] });
    expect(e.message).toContain('"amount_atoms" is given twice');
  });

  it('a body that is not JSON', async () => {
    const e = await refusedJson(['je', 'post', '--file', '-'], '{"entry_date": ');
    expect(e).toMatchObject({ code: 'CAPI33', errors: [{ reason: 'invalid_json' }] });
  });

  it('every problem of one entry at once', async () => {
    const r = await refused(post('--debit', '9999=10', '--debit', 'ar=5', '--credit', 'cash=20'));
    expect(r.stderr).toMatch(/^error CAPI33: entry is invalid: 4 problems/);
    for (const text of [
      "no account '9999'",
      'need a customer counterparty',
      'cannot be posted to',
      'entry is not balanced: debits 15.00 ≠ credits 20.00',
    ]) {
      expect(r.stderr).toContain(text);
    }
  });

  it('an amount with more decimals than the currency has', async () => {
    const r = await refused(post('--debit', 'checking=10.005', '--credit', 'sales=10.005'));
    expect(r.stderr).toContain('error CAPI33');
    expect(r.stderr).toContain("'10.005' has 3 decimals; USD has 2");
  });
});

describe('idempotency keys (CAPI34)', () => {
  it('refuses an empty key and one over 128 characters', async () => {
    for (const key of ['', 'k'.repeat(129)]) {
      const e = await refusedJson(
        post('--idempotency-key', key, '--debit', 'checking=10', '--credit', 'sales=10'),
      );
      expect(e.code).toBe('CAPI34');
    }
  });

  it('refuses a key used within the hour, naming the entry it posted, and posts once', async () => {
    const args = post(
      '--idempotency-key',
      'close-2025-03-rent',
      '--debit',
      'rent=3000',
      '--credit',
      'checking=3000',
    );
    const first = await L.run([...args, '--format', 'json']);
    expect(first.exitCode).toBe(0);
    const posted = JSON.parse(first.stdout) as { id: string };
    const e = await refusedJson(args);
    expect(e).toMatchObject({ code: 'CAPI34', existing_journal_entry_id: posted.id });
    const other = await refusedJson(
      post(
        '--idempotency-key',
        'close-2025-03-rent',
        '--debit',
        'rent=1',
        '--credit',
        'checking=1',
      ),
    );
    expect(other.code).toBe('CAPI34');
    expect(other).not.toHaveProperty('existing_journal_entry_id');
  });
});

describe('period rules', () => {
  it('refuses entries on or before the lock date once the books are closed', async () => {
    const { run, ledger } = await standardLedger();
    expect((await run(['close', '--through', '2025-01-31'])).exitCode).toBe(0);
    const before = snapshot(ledger);
    for (const date of ['2025-01-31', '2025-01-15']) {
      const r = await run([
        'je',
        'post',
        '--date',
        date,
        '--debit',
        'checking=10',
        '--credit',
        'sales=10',
      ]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(
        `error CAPI33: --date: ${date} is in a closed period: the books are closed through 2025-01-31`,
      );
    }
    expect(snapshot(ledger)).toBe(before);
    expect(
      (
        await run([
          'je',
          'post',
          '--date',
          '2025-02-01',
          '--debit',
          'checking=10',
          '--credit',
          'sales=10',
        ])
      ).exitCode,
    ).toBe(0);
    const back = await run(['close', '--through', '2024-12-31']);
    expect(back.exitCode).toBe(2);
    expect(back.stderr).toContain('--reopen');
  });

  it('refuses every post with CAPI67 until the First Month of Books is applied', async () => {
    const { run, ledger } = await standardLedger({ firstMonth: null });
    const before = snapshot(ledger);
    const r = await run([
      'je',
      'post',
      '--date',
      '2025-03-02',
      '--debit',
      'checking=10',
      '--credit',
      'sales=10',
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('error CAPI67');
    expect(snapshot(ledger)).toBe(before);
    expect((await run(['books-start', '2025-03'])).exitCode).toBe(0);
    expect(
      (
        await run([
          'je',
          'post',
          '--date',
          '2025-03-02',
          '--debit',
          'checking=10',
          '--credit',
          'sales=10',
        ])
      ).exitCode,
    ).toBe(0);
  });
});

describe('usage errors', () => {
  it('a line flag that is not ACCOUNT=AMOUNT is refused (exit 2)', async () => {
    const r = await L.run([
      ...post('--debit', 'checking', '--credit', 'sales=10'),
      '--format',
      'json',
    ]);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toContain(
      "--debit 'checking' is not ACCOUNT=AMOUNT",
    );
  });

  it('no lines and no terminal is a usage error', async () => {
    const r = await books(['je', 'post', '--ledger', L.ledger]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no lines given');
  });

  it('an unknown flag is a usage error', async () => {
    const r = await L.run(['je', 'post', '--debitt', 'x=1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown option '--debitt'");
  });
});
