import { describe, expect, it } from 'vitest';
import { until } from '../support/ledgers.js';
import { books, onTerminal, serve, standardLedger } from '../support/helpers.js';

describe('on a terminal', () => {
  it('interactive entry checks a date when it is typed and asks again; Ctrl-C cancels, posting nothing', async () => {
    const { dir, ledger } = await standardLedger();
    const t = onTerminal(['je', 'post', '--ledger', ledger], dir);
    await until(() => t.seen().includes('Entry date'), 'the date prompt');
    t.type('\u0015'); // clear the suggested date (Ctrl-U)
    t.type('2024-12-31\r');
    await until(
      () => /before the books start|First Month of Books/i.test(t.seen()),
      'the refusal of the date',
    );
    expect(t.seen()).not.toContain('Memo');
    t.type('\u0003'); // Ctrl-C
    const r = await t.child;
    expect(r.exitCode).toBe(130);
    expect(t.seen()).toContain('nothing was posted');
  });

  it('an account typed ahead of the list (a paste) is never taken for the one the list showed before', async () => {
    const { dir, ledger } = await standardLedger();
    const t = onTerminal(
      ['je', 'post', '--ledger', ledger, '--date', '2025-03-01', '--memo', 'paste'],
      dir,
    );
    await until(() => t.seen().includes('Entry date'), 'the date prompt');
    t.type('\r');
    await until(() => t.seen().includes('Account'), 'the account prompt');
    t.type('rent\r');
    // Either the typed text's own choice was taken, or the question is asked again: never checking.
    await until(
      () => /debit or credit\?/.test(t.seen()) || t.seen().includes('had not caught up'),
      'the next question',
    );
    const seen = t.seen();
    expect(seen).not.toMatch(/Operating Checking: debit or credit\?/);
    t.type('\u0003');
    expect((await t.child).exitCode).toBe(130);
  });

  it('uses colour unless NO_COLOR is set to something (an empty NO_COLOR does not count)', async () => {
    const { dir, ledger } = await standardLedger();
    const args = [
      'report',
      'balance-sheet',
      '--start',
      '2025-01-01',
      '--end',
      '2025-01-31',
      '--ledger',
      ledger,
    ];
    const bold = '\u001b[1m';
    for (const [env, coloured] of [
      [{ NO_COLOR: '' }, true],
      [{}, true],
      [{ NO_COLOR: '1' }, false],
    ] as const) {
      const t = onTerminal(args, dir, env);
      expect((await t.child).exitCode).toBe(0);
      expect(t.seen().includes(bold), JSON.stringify(env)).toBe(coloured);
    }
  });
});

describe('small things a person reads', () => {
  it('books check says what it checked; books serve on a taken port says the port is taken', async () => {
    const { dir, ledger } = await standardLedger();
    const check = await books(['check', '--ledger', ledger], { cwd: dir });
    expect(check.exitCode).toBe(0);
    expect(check.stdout).toMatch(
      /: ok \(0 entries, 0 lines, \d+ accounts, 0 monthly totals checked\)/,
    );
    const first = await serve(ledger);
    try {
      const port = new URL(first.url).port;
      const second = await books(['serve', '--port', port, '--ledger', ledger], { cwd: dir });
      expect(second.exitCode).toBe(4);
      expect(second.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await first.stop();
    }
  });
});
