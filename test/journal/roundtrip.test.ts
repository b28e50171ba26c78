import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { cli } from '../support/cli.js';
import { copyTemplate } from '../support/ledgers.js';

const ACCOUNTS: [string, string | null][] = [
  ['checking', null],
  ['ar', 'customer'],
  ['ap', 'vendor'],
  ['sales', null],
  ['rent', null],
  ['loan', null],
  ['capital', null],
];
const PARTIES: Record<string, string[]> = { customer: ['C001', 'C002'], vendor: ['V001', 'V002'] };
// Text as people type it, with the delimiter, quotes, letters beyond ASCII, surrounding spaces and a
// byte-order mark: a memo is stored as given on every path.
const text = fc.stringMatching(/^[A-Za-z0-9 ,"'é€;\uFEFF-]{0,24}$/);

const line = fc.record({
  account: fc.constantFrom(...ACCOUNTS),
  party: fc.nat({ max: 1 }),
  amount: fc.integer({ min: 1, max: 10 ** 11 }),
  memo: fc.option(
    text.filter((s) => s.length > 0),
    { nil: undefined },
  ),
});
const entry = fc.record({
  date: fc.date({
    min: new Date('2025-01-01T00:00:00Z'),
    max: new Date('2026-12-31T00:00:00Z'),
    noInvalidDate: true,
  }),
  memo: fc.option(
    text.filter((s) => s.length > 0),
    { nil: undefined },
  ),
  number: fc.option(fc.integer({ min: 500, max: 10 ** 6 }), { nil: undefined }),
  adjusting: fc.boolean(),
  debit: line,
  credit: line,
});

function body(e: fc.RecordValue<typeof entry.constraints> & Record<string, any>) {
  const lineOf = (l: any, side: string, amount: number) => ({
    gl_account_id: l.account[0],
    line_type: side,
    amount_atoms: amount,
    ...(l.memo ? { memo: l.memo } : {}),
    ...(l.account[1]
      ? {
          counterparty_type: l.account[1],
          counterparty_external_id: PARTIES[l.account[1]]![l.party],
        }
      : {}),
  });
  return {
    entry_date: e.date.toISOString().slice(0, 10),
    ...(e.memo ? { memo: e.memo } : {}),
    ...(e.number !== undefined ? { je_number: `JE-${e.number}` } : {}),
    ...(e.adjusting ? { is_adjusting: true } : {}),
    lines: [lineOf(e.debit, 'debit', e.debit.amount), lineOf(e.credit, 'credit', e.debit.amount)],
  };
}

describe('the journal out and back in (property)', () => {
  it('je list --format csv into a fresh ledger with the same chart: the same journal and reports', async () => {
    let key = 0;
    let posted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 12 }), async (entries) => {
        const { dir, ledger: from } = copyTemplate('standard');
        const l = SqliteLedger.open(from);
        try {
          for (const e of entries)
            await l.journal.post(body(e as any), { idempotencyKey: `rt-${++key}` }).catch(() => {});
        } finally {
          await l.close();
        }
        const run = (args: string[], ledger: string, input?: string) =>
          cli([...args, '--ledger', ledger], {
            cwd: dir,
            ...(input !== undefined ? { input } : {}),
          });
        const journal = await run(['je', 'list', '--format', 'csv'], from);
        expect(journal.exitCode, journal.stderr).toBe(0);
        posted += journal.stdout.split('\n').length - 2;
        const { ledger: to } = copyTemplate('standard');
        const imported = await run(['je', 'import', '-'], to, journal.stdout);
        expect(imported.exitCode, imported.stderr).toBe(0);
        for (const args of [
          ['je', 'list', '--format', 'csv'],
          [
            'report',
            'balance-sheet',
            '--start',
            '2025-01-01',
            '--end',
            '2026-12-31',
            '--format',
            'json',
          ],
          ['report', 'tb', '--as-of', '2026-12-31', '--worksheet', '--format', 'json'],
          [
            'report',
            'pnl',
            '--start',
            '2025-01-01',
            '--end',
            '2026-12-31',
            '--period',
            'quarterly',
            '--format',
            'csv',
          ],
        ]) {
          const [a, b] = [await run(args, from), await run(args, to)];
          expect(b.stdout, args.join(' ')).toBe(a.stdout);
        }
      }),
      { seed: 20261123, numRuns: 15 },
    );
    // Entries the ledger refuses (a number drawn twice) are left out; most post.
    expect(posted).toBeGreaterThan(100);
  });

  it('the chart and counterparties listed as CSV import into an empty ledger as they were', async () => {
    const { dir, ledger: from } = copyTemplate('standard');
    const to = `${dir}/empty.sqlite`;
    expect((await cli(['init', '--ledger', to], { cwd: dir })).exitCode).toBe(0);
    expect(
      (await cli(['accounts', 'list', '--format', 'json', '--ledger', to], { cwd: dir })).stdout,
    ).toContain('"data": []');
    for (const [list, imp] of [
      [
        ['accounts', 'list'],
        ['accounts', 'import', '-'],
      ],
      [
        ['counterparties', 'list'],
        ['counterparties', 'import', '-'],
      ],
    ]) {
      const out = await cli([...list!, '--format', 'csv', '--ledger', from], { cwd: dir });
      expect((await cli([...imp!, '--ledger', to], { cwd: dir, input: out.stdout })).exitCode).toBe(
        0,
      );
      expect((await cli([...list!, '--format', 'csv', '--ledger', to], { cwd: dir })).stdout).toBe(
        out.stdout,
      );
    }
  });
});
