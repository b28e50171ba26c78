import { bestFirst } from '../../src/commands/reconcileScreen.js';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Choice, Prompter } from '../../src/cli/prompter.js';
import { errors } from '../../src/domain/errors.js';
import { snapshot } from '../support/helpers.js';
import { cli } from '../support/cli.js';
import { copyTemplate, tempDir } from '../support/ledgers.js';
import { JANUARY } from '../support/reconcile.js';

interface Transcript {
  asked: string[];
  /** What a validation said of an answer it refused (the user then types the next answer). */
  refused: string[];
  /** The default of each select, by message. */
  defaults: [string, unknown][];
}

/**
 * Answers prompts from a script as a person at the terminal would: a refused input is retyped with
 * the next answer; a select or search answer picks the first selectable choice whose name holds it.
 */
function scripted(answers: (string | boolean)[], t: Transcript): Prompter {
  const next = (message: string) => {
    t.asked.push(message);
    if (!answers.length) throw new Error(`no scripted answer for: ${message}`);
    return answers.shift()!;
  };
  const pick = <T>(message: string, choices: Choice<T>[]) => {
    const want = String(next(message));
    const hit = choices.find((c) => c.name.includes(want) && !c.disabled);
    if (!hit)
      throw new Error(
        `no choice '${want}' for '${message}' in ${choices.map((c) => c.name).join(' | ')}`,
      );
    return hit.value;
  };
  return {
    async input(message, options = {}) {
      for (;;) {
        const a = String(next(message));
        const value = a === '' && options.default !== undefined ? options.default : a;
        const ok = options.validate?.(value) ?? true;
        if (ok === true) return value;
        t.refused.push(ok);
      }
    },
    async select(message, choices, options = {}) {
      t.defaults.push([message, options.default]);
      return pick(message, choices);
    },
    async search(message, source) {
      return pick(message, source(''));
    },
    async confirm(message) {
      return Boolean(next(message));
    },
  };
}

async function interactive(
  answers: (string | boolean)[],
  flags: string[] = [],
  template: 'standard' | 'fx' = 'standard',
) {
  const { ledger, dir } = copyTemplate(template);
  const t: Transcript = { asked: [], refused: [], defaults: [] };
  const before = snapshot(ledger);
  const r = await cli(['je', 'post', ...flags, '--ledger', ledger], {
    cwd: dir,
    tty: true,
    now: () => new Date('2025-03-10T12:00:00Z'),
    prompter: scripted(answers, t),
  });
  return { ...r, ...t, changed: snapshot(ledger) !== before, ledger, dir };
}

describe('interactive je post (on a terminal)', () => {
  it('builds an entry with account search and running totals, validates it, and posts on confirmation', async () => {
    const r = await interactive([
      '',
      'March rent',
      'Rent',
      'Debit',
      '1,500',
      '',
      'Add a line',
      'Operating Checking',
      'Credit',
      '',
      '',
      'Review and post',
      true,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('debits 1,500.00   credits 0.00   out of balance by 1,500.00');
    expect(r.stderr).toContain('debits 1,500.00   credits 1,500.00   balanced');
    expect(r.stdout).toMatch(/Posted JE-1 .* 2025-03-10/);
    expect(r.asked).toContain('Post this entry?');
  });

  it('takes a line of an account kept in euros as its euro amount and rate, or what the bank converted', async () => {
    const answers = [
      '',
      'Euro deposit',
      'Euro Bank Account',
      'Debit',
      '1000.00',
      '1000.00 @ 1.105',
      '',
    ];
    answers.push('Add a line', 'Operating Checking', 'Credit', '', '', 'Review and post', true);
    const r = await interactive(answers, [], 'fx');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.refused[0]).toContain('write the EUR amount and its rate');
    expect(r.stderr).toContain('debits 1,105.00   credits 1,105.00   balanced');
    const e = await cli(['je', 'show', 'JE-1', '--format', 'json', '--ledger', r.ledger]);
    expect(JSON.parse(e.stdout).lines[0]).toMatchObject({
      amount_atoms: 110500,
      fx: { currency: 'EUR', amount_atoms: 100000, rate: '1.105' },
    });
  });

  it('posts an accrual built at the terminal with its reversal when asked to (--auto-reverse)', async () => {
    const answers = ['', 'Accrued rent', 'Rent', 'Debit', '900', '', 'Add a line'];
    answers.push('Operating Checking', 'Credit', '', '', 'Review and post', true);
    const r = await interactive(answers, ['--auto-reverse']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Posted JE-1 .* 2025-03-10\s+reversed/);
    expect(r.stdout).toContain('reversed by: JE-2');
    const reversal = await cli(['je', 'show', 'JE-2', '--format', 'json', '--ledger', r.ledger]);
    expect(JSON.parse(reversal.stdout)).toMatchObject({
      entry_date: '2025-04-01',
      memo: 'Reversal of JE-1',
    });
  });

  it('refuses a date before the books start when it is typed, and asks again', async () => {
    const r = await interactive([
      '2024-12-31',
      '2025-03-01',
      '',
      'Accounts Receivable',
      'Debit',
      '200',
      'Harbor Cafe',
      '',
      'Add a line',
      'Sales',
      'Credit',
      '',
      '',
      'Review and post',
      true,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.refused).toEqual(['2024-12-31 is before the books start on 2025-01-01']);
    expect(r.stdout).toMatch(/Posted JE-1 .* 2025-03-01/);
  });

  it('lets any part be changed before posting; declining goes back to the choices', async () => {
    const r = await interactive([
      '',
      '',
      'Rent',
      'Debit',
      '10',
      '',
      'Add a line',
      'Savings',
      'Credit',
      '',
      '',
      'Review and post',
      false,
      'Change the date',
      '2025-03-04',
      'Review and post',
      true,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('Not posted; change the entry, or cancel.');
    expect(r.stdout).toMatch(/Posted JE-1 .* 2025-03-04/);
  });

  it('takes a memo for each line, and marks the entry adjusting (or not) from the choices', async () => {
    const r = await interactive([
      '',
      'Accrued utilities',
      'Utilities',
      'Debit',
      '410.25',
      'Estimated from the February bill',
      'Add a line',
      'Accrued Liabilities',
      'Credit',
      '',
      '',
      'Make it an adjusting entry',
      'Make it a regular entry',
      'Make it an adjusting entry',
      'Review and post',
      true,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.asked.filter((m) => m === 'Line memo (optional)')).toHaveLength(2);
    const shown = await cli(['je', 'show', 'JE-1', '--ledger', r.ledger, '--format', 'json'], {
      cwd: r.dir,
    });
    const entry = JSON.parse(shown.stdout);
    expect(entry.is_adjusting).toBe(true);
    expect(entry.lines.map((l: { memo: string | null }) => l.memo)).toEqual([
      'Estimated from the February bill',
      null,
    ]);
  });

  it('keeps the order of choices and never makes removing or cancelling the default; both ask to confirm', async () => {
    const r = await interactive([
      '',
      '',
      'Rent',
      'Credit',
      '10',
      '',
      'Remove a line',
      '1. credit rent',
      false,
      'Cancel',
      false,
      'Cancel',
      true,
    ]);
    expect(r.exitCode).toBe(130);
    expect(r.changed).toBe(false);
    expect(r.defaults.filter(([m]) => m.endsWith('debit or credit?')).map(([, d]) => d)).toEqual([
      'debit',
    ]);
    for (const [, d] of r.defaults.filter(([m]) => m === 'Next'))
      expect(['add', 'review']).toContain(d);
    expect(r.asked).toContain('Remove line 1?');
    expect(r.asked).toContain('Cancel this entry? Nothing will be posted.');
  });

  it('shows inactive and header accounts as such, and does not let them be chosen', async () => {
    const { ledger, dir } = copyTemplate('standard');
    const chart =
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n';
    const inactive = join(dir, 'inactive.csv');
    writeFileSync(inactive, chart + 'petty-cash,1030,Petty Cash,bank,cash,true,false,\n');
    expect(
      (await cli(['accounts', 'import', inactive, '--ledger', ledger], { cwd: dir })).exitCode,
    ).toBe(0);
    const t: Transcript = { asked: [], refused: [], defaults: [] };
    let seen: Choice<unknown>[] = [];
    const p = scripted(['', ''], t);
    const prompter: Prompter = {
      ...p,
      async search(_m, source) {
        seen = source('cash');
        throw errors.cancelled();
      },
    };
    const r = await cli(['je', 'post', '--ledger', ledger], { cwd: dir, tty: true, prompter });
    expect(r.exitCode).toBe(130);
    expect(seen.find((c) => c.name.includes('Cash and Bank'))?.disabled).toContain('header');
    expect(seen.find((c) => c.name.includes('Petty Cash'))?.disabled).toContain('inactive');
  });
});

describe('the reconciliation screen (books reconcile --account A, on a terminal)', () => {
  const JAN = join(import.meta.dirname, '../../fixtures/reconcile/checking-2025-01.csv');

  async function screen(
    answers: (string | boolean)[],
    cancelAt?: string,
    before: string[][] = [['reconcile', 'import', JAN, '--account', 'checking']],
  ) {
    const { ledger, dir } = copyTemplate('demo');
    for (const args of before) {
      const r = await cli([...args, '--ledger', ledger], { cwd: dir });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    const t: Transcript = { asked: [], refused: [], defaults: [] };
    const p = scripted(answers, t);
    // Ctrl-C at the question named: what was saved before it stays.
    const cancel = <T>(message: string, ask: () => Promise<T>) =>
      cancelAt !== undefined && message.startsWith(cancelAt)
        ? Promise.reject(errors.cancelled())
        : ask();
    const prompter: Prompter = {
      input: (m, o) => cancel(m, () => p.input(m, o)),
      select: (m, c, o) => cancel(m, () => p.select(m, c, o)),
      search: (m, s) => cancel(m, () => p.search(m, s)),
      confirm: (m, d) => cancel(m, () => p.confirm(m, d)),
    };
    const r = await cli(['reconcile', '--account', 'checking', '--ledger', ledger], {
      cwd: dir,
      tty: true,
      prompter,
    });
    const status = await cli(
      ['reconcile', 'status', '--account', 'checking', '--ledger', ledger, '--format', 'json'],
      { cwd: dir },
    );
    return { ...r, ...t, status: JSON.parse(status.stdout), ledger };
  }

  it('shows the balances and difference, takes proposed matches, posts bank-only lines, finishes at 0', async () => {
    // The statement's running balance gives its closing balance: nothing to type.
    const r = await screen([
      true,
      'Handle an unmatched',
      'MONTHLY SERVICE FEE',
      'Create an entry',
      'Bank Fees',
      'Handle an unmatched',
      'INTEREST PAID',
      'Create an entry',
      'Interest Income',
      'Finish',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.asked).toContain('Accept the 15 proposed match(es)?');
    // Before the bank-only lines: the fee and the interest make the difference; after them, none.
    expect(r.stderr).toContain('balance 36,485.17   cleared 36,494.46   difference (9.29)');
    expect(r.stderr).toContain('balance 36,485.17   cleared 36,485.17   difference 0.00');
    expect(r.stderr).toContain('Reconciled through 2025-01-31');
    expect(r.status.last_reconciliation.statement_balance_atoms).toBe(3648517);
    expect(r.status.matched).toBe(17);
  });

  it('does not offer to finish while there is a difference, and Ctrl-C keeps what was saved', async () => {
    const r = await screen([true], 'What next?');
    expect(r.exitCode).toBe(130);
    expect(r.status.matched).toBe(15);
    expect(r.status.last_reconciliation).toBeNull();
    // Finish is not selectable at a difference: the scripted person cannot pick it.
    const finish = await screen([false, 'Finish']);
    expect(finish.exitCode).not.toBe(0);
    expect(finish.stderr).toContain("no choice 'Finish'");
    expect(finish.status.last_reconciliation).toBeNull();
  });

  it('asks for the next statement once the last one is reconciled, and keeps the balance typed', async () => {
    const march = join(tempDir(), 'march.csv');
    writeFileSync(march, 'date,description,amount\n2025-02-03,FEE,-1.00\n');
    const acct = ['--account', 'checking'];
    const setup = [...JANUARY, ['reconcile', 'import', march, ...acct]];
    const answers = ['2025-01-15', '2025-02-28', '100.00', 'Handle an unmatched', 'FEE'];
    const r = await screen([...answers, 'Create an entry', 'Bank Fees', 'Leave'], undefined, setup);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.refused).toEqual(['a date after 2025-01-31, the last reconciled']);
    expect(r.asked.filter((q) => q === 'What next?')).toHaveLength(2);
    // The date and balance typed are the statement's closing balance from now on.
    expect(r.status.statement).toEqual({ date: '2025-02-28', balance_atoms: 10000 });
    // The account being reconciled is not offered as its own offset.
    const own = await screen(
      [...answers, 'Create an entry', 'Operating Checking'],
      undefined,
      setup,
    );
    expect(own.exitCode).not.toBe(0);
    expect(own.stderr).toContain("no choice 'Operating Checking' for 'Offset account'");
  });

  it('shows the proposed matches before asking, and on Ctrl-C says exactly what was saved', async () => {
    const r = await screen([true], 'What next?');
    expect(r.exitCode).toBe(130);
    const shown = r.stderr.indexOf('OWNER INVESTMENT');
    expect(shown).toBeGreaterThan(-1);
    expect(r.stderr).toContain('JE-1:1');
    expect(r.stderr).toContain('cancelled; saved before it: 15 match(es) accepted');
    const none = await screen([false], 'What next?');
    expect(none.stderr).toContain('cancelled; nothing was saved');
  });

  it('lists the candidates of a hand match best first: the exact amount, then the nearest date', () => {
    const line = (id: string, date: string, amount: number, memo = '') =>
      ({
        line_id: id,
        entry_date: date,
        amount_atoms: amount,
        je_number: `JE-${id}`,
        memo,
      }) as never;
    const lines = [
      line('1', '2025-01-02', -500),
      line('2', '2025-01-20', -1250),
      line('3', '2025-01-09', -1250),
      line('4', '2025-01-10', -700, 'cheque 1043'),
      line('5', '2025-01-10', -700),
    ];
    const order = bestFirst(lines, { date: '2025-01-10', reference: '1043' }, -1250n).map(
      (l: { line_id: string }) => l.line_id,
    );
    expect(order).toEqual(['3', '2', '4', '5', '1']);
  });
});
