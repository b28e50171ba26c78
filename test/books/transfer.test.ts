import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DumpRecord } from '../../src/domain/dump.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { FIXTURES as FIXTURE_DIR, snapshot } from '../support/helpers.js';
import { cli } from '../support/cli.js';
import { copyTemplate, emptyLedger } from '../support/ledgers.js';
import { pgFixture, type FixtureLedger } from '../support/fixtures.js';
import { FEBRUARY_MATCHED, JANUARY } from '../support/reconcile.js';

// A ledger dumped and restored into a new one is the same ledger: every report, the journal with its
// ids and numbers, the keys, and a clean check.

const COMPARED = [
  ['report', 'balance-sheet', '--start', '2025-01-01', '--end', '2026-12-31', '--format', 'json'],
  [
    'report',
    'income-statement',
    '--start',
    '2025-01-01',
    '--end',
    '2026-12-31',
    '--period',
    'quarterly',
  ],
  ['report', 'tb', '--as-of', '2026-12-31', '--worksheet', '--format', 'json'],
  ['report', 'gl', '--start', '2025-01-01', '--end', '2026-12-31', '--format', 'csv'],
  ['je', 'list', '--format', 'json'],
  ['je', 'list', '--format', 'csv'],
  ['accounts', 'list', '--format', 'json'],
  ['counterparties', 'list', '--format', 'json'],
  ['keys', 'list', '--format', 'json'],
  ['entity', 'show', '--format', 'json'],
  ['check', '--format', 'json'],
  ['reconcile', 'status', '--account', 'checking', '--format', 'json'],
  ['reconcile', 'list', '--account', 'checking', '--format', 'json'],
  [
    'report',
    'reconciliation',
    '--account',
    'checking',
    '--statement-date',
    '2025-01-31',
    '--format',
    'json',
  ],
  [
    'report',
    'reconciliation',
    '--account',
    'checking',
    '--statement-date',
    '2025-02-28',
    '--format',
    'json',
  ],
  ['export', 'hledger'],
  ['budgets', 'list', '--format', 'csv'],
  ['recurring', 'list', '--format', 'json'],
  [
    ...['report', 'pnl', '--start', '2025-01-01', '--end', '2025-06-30', '--period', 'quarterly'],
    ...['--compare', 'budget', '--format', 'json'],
  ],
];

/** Dumps `from` into a new ledger, and holds everything a user can read of the two to be the same. */
async function roundTrip(from: string): Promise<string> {
  const to = emptyLedger();
  const source = SqliteLedger.open(from);
  const target = SqliteLedger.open(to);
  try {
    await target.maintenance.restore(source.maintenance.dump());
  } finally {
    await source.close();
    await target.close();
  }
  for (const args of COMPARED) {
    const [a, b] = [await cli([...args, '--ledger', from]), await cli([...args, '--ledger', to])];
    expect(b.exitCode, `${args.join(' ')}: ${b.stderr}`).toBe(a.exitCode);
    expect(b.stdout, args.join(' ')).toBe(a.stdout);
  }
  expect((await cli(['check', '--ledger', to])).exitCode).toBe(0);
  return to;
}

/**
 * Into an entity of a database (SQLite's dump, PostgreSQL's restore), and back into a file
 * (PostgreSQL's dump, SQLite's restore): the same answers to `compared` at each step.
 */
async function throughPostgres(
  ledger: string,
  compared: string[][],
  then?: (pg: FixtureLedger, back: string) => Promise<void>,
): Promise<void> {
  const pg = await pgFixture.create(ledger);
  const back = emptyLedger();
  try {
    const target = SqliteLedger.open(back);
    await target.maintenance.restore(pg.store.maintenance.dump());
    await target.close();
    for (const args of compared) {
      const [a, b, c] = [
        await cli([...args, '--ledger', ledger]),
        await pg.books(args),
        await cli([...args, '--ledger', back]),
      ];
      expect(a.stdout.length, args.join(' ')).toBeGreaterThan(100);
      expect(b.stdout, args.join(' ')).toBe(a.stdout);
      expect(c.stdout, args.join(' ')).toBe(a.stdout);
    }
    await then?.(pg, back);
    expect(await pg.check()).toEqual([]);
  } finally {
    await pg.close();
  }
}

async function collect(ledger: string): Promise<DumpRecord[]> {
  const l = SqliteLedger.open(ledger);
  try {
    const out: DumpRecord[] = [];
    for await (const r of l.maintenance.dump()) out.push(r);
    return out;
  } finally {
    await l.close();
  }
}

describe('dump and restore', () => {
  it('the demo ledger, with reversals, keys, a lock date and numbers beyond 2^53, comes back the same', async () => {
    const { dir, ledger } = copyTemplate('demo', 'demo.sqlite');
    const run = (...args: string[]) => cli([...args, '--ledger', ledger], { cwd: dir });
    expect((await run('je', 'reverse', 'JE-1', '--date', '2025-01-05')).exitCode).toBe(0);
    const post = [
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'rent=1',
      '--credit',
      'checking=1',
    ];
    expect((await run(...post, '--je-number', 'JE-9007199254740993')).exitCode).toBe(0);
    expect(
      await run(...post, '--je-number', 'INV (7)', '--adjusting', '--reason', 'r'),
    ).toMatchObject({
      exitCode: 0,
    });
    expect((await run('keys', 'create', '--permission', 'customer_api:read')).exitCode).toBe(0);
    expect((await run('close', '--through', '2025-01-31')).exitCode).toBe(0);
    const to = await roundTrip(ledger);
    // What numbering reads comes back too: the next automatic number is the same on both.
    const next = async (l: string) =>
      JSON.parse(
        (
          await cli([
            ...post.slice(0, 2),
            '--date',
            '2025-03-01',
            ...post.slice(4),
            '--format',
            'json',
            '--ledger',
            l,
          ])
        ).stdout,
      ).je_number as string;
    expect(await next(to)).toBe(await next(ledger));
  }, 60_000);

  it('a reconciled bank account comes back the same, moved to PostgreSQL and back', async () => {
    const { dir, ledger } = copyTemplate('demo', 'demo.sqlite');
    const acct = ['--account', 'checking'];
    const run = async (...args: string[]) => {
      const r = await cli([...args, '--ledger', ledger], { cwd: dir });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    // January finished; February imported and matched, a line ignored, one ticked: every state.
    for (const step of [...JANUARY, ...FEBRUARY_MATCHED]) await run(...step);
    const status = JSON.parse(await run('reconcile', 'status', ...acct, '--format', 'json'));
    await run(
      'reconcile',
      'ignore',
      ...acct,
      '--statement-line',
      status.unmatched_statement_lines[0].id,
    );
    await run('reconcile', 'clear', ...acct, '--line', status.uncleared_lines.at(-1).line_id);
    await roundTrip(ledger);
    await throughPostgres(ledger, COMPARED.slice(-8, -3));
  }, 120_000);

  it('budgets and recurring entries come back the same, moved to PostgreSQL and back', async () => {
    const { dir, ledger } = copyTemplate('demo', 'demo.sqlite');
    const run = async (...args: string[]) => {
      const r = await cli([...args, '--ledger', ledger], { cwd: dir });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    };
    await run('budgets', 'import', join(FIXTURE_DIR, 'demo/budget-2025.csv'));
    await run(
      ...['recurring', 'add', '--name', 'Rent', '--every', 'month', '--day', '31'],
      ...['--start', '2026-01-31', '--end', '2026-12-31', '--debit', 'rent=3000'],
      ...['--credit', 'checking=3000', '--memo', 'Rent'],
    );
    await roundTrip(ledger);
    await throughPostgres(ledger, COMPARED.slice(-3), async (pg, back) => {
      // The templates' occurrences are known as posted on every store: a run on each posts the same.
      const runs = await Promise.all([
        cli(['recurring', 'run', '--through', '2026-03-31', '--format', 'json', '--ledger', back]),
        pg.books(['recurring', 'run', '--through', '2026-03-31', '--format', 'json']),
      ]);
      for (const r of runs) expect(JSON.parse(r.stdout).posted).toHaveLength(3);
    });
  }, 120_000);

  it('random ledgers from the property tests come back the same', async () => {
    const line = fc.record({
      account: fc.constantFrom('checking', 'rent', 'sales', 'ar', 'ap', 'loan'),
      amount: fc.integer({ min: 1, max: 10 ** 12 }),
      memo: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    });
    const entry = fc.record({
      day: fc.integer({ min: 1, max: 700 }),
      adjusting: fc.boolean(),
      debit: line,
      credit: line,
      reverse: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 15 }), async (entries) => {
        const { ledger } = copyTemplate('standard');
        const l = SqliteLedger.open(ledger);
        try {
          let k = 0;
          for (const e of entries) {
            const date = new Date(Date.UTC(2025, 0, e.day)).toISOString().slice(0, 10);
            const side = (x: typeof e.debit, t: string) => ({
              gl_account_id: x.account,
              line_type: t,
              amount_atoms: e.debit.amount,
              ...(x.memo !== undefined ? { memo: x.memo } : {}),
              ...(x.account === 'ar'
                ? { counterparty_type: 'customer', counterparty_external_id: 'C001' }
                : {}),
              ...(x.account === 'ap'
                ? { counterparty_type: 'vendor', counterparty_external_id: 'V001' }
                : {}),
            });
            const body = {
              entry_date: date,
              is_adjusting: e.adjusting,
              lines: [side(e.debit, 'debit'), side(e.credit, 'credit')],
            };
            const posted = await l.journal.post(body, { idempotencyKey: `t${++k}` });
            if (e.reverse) await l.journal.reverse(posted.id, { idempotencyKey: `r${k}` });
          }
        } finally {
          await l.close();
        }
        await roundTrip(ledger);
      }),
      { seed: 20261124, numRuns: 12 },
    );
  }, 120_000);

  it('refuses a ledger that holds anything, and a dump that is cut off or out of order, changing nothing', async () => {
    const { ledger } = copyTemplate('demo', 'demo.sqlite');
    const records = await collect(ledger);
    const standard = copyTemplate('standard').ledger;
    const into = async (file: string, rs: unknown[]) => {
      const before = snapshot(file);
      const l = SqliteLedger.open(file);
      try {
        await l.maintenance.restore(
          (async function* () {
            yield* rs;
          })(),
        );
        throw new Error('restored');
      } catch (e) {
        expect(snapshot(file)).toBe(before);
        return (e as Error).message;
      } finally {
        await l.close();
      }
    };
    expect(await into(standard, records)).toMatch(/already holds accounts/);
    expect(await into(emptyLedger(), records.slice(0, -1))).toMatch(/cut off/);
    const entryAt = records.findIndex((r) => r.type === 'entry');
    const shuffled = [...records];
    shuffled.splice(entryAt, 0, shuffled.splice(1, 1)[0]!);
    expect(await into(emptyLedger(), shuffled)).toMatch(/record \d+ of the dump/);
    const wrongCount = records.map((r) =>
      r.type === 'end' ? { ...r, counts: { ...r.counts, lines: 1 } } : r,
    );
    expect(await into(emptyLedger(), wrongCount)).toMatch(/the dump says lines 1/);
  }, 60_000);
});
