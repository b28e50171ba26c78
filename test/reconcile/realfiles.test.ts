import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { books, ROOT, tempDir } from '../support/helpers.js';
import { FIXTURES, type FixtureLedger } from '../support/fixtures.js';
import { sayings } from '../support/said.js';

/**
 * Real bank statements (test/reconcile/realfiles/README.md): each imports into an account of its own as the
 * bank wrote it, with at most the flags given once for that account, or is refused naming why.
 */
interface Expected {
  file: string;
  account_type: 'bank' | 'credit_card';
  currency: string;
  flags?: string[];
  refused?: string[];
  lines?: number;
  skipped_zero?: number;
  money_in?: string;
  money_out?: string;
  start?: string;
  end?: string;
  closing?: { date: string; balance: string } | null;
}

const EXPECTED: Expected[] = JSON.parse(
  readFileSync(join(ROOT, 'test/reconcile/realfiles/expected.json'), 'utf8'),
);

/** The folder of the real files: $BOOKS_REALFILES, else shared/realfiles beside the repository. */
function realFiles(): string {
  if (process.env.BOOKS_REALFILES) return process.env.BOOKS_REALFILES;
  for (let dir = ROOT; ; dir = dirname(dir)) {
    const there = join(dir, 'shared/realfiles/files');
    if (existsSync(there) || dirname(dir) === dir) return there;
  }
}
const DIR = realFiles();
/** A decimal of two places as cents, exactly. */
const cents = (v: string) => {
  const m = /^(-?)(\d+)\.(\d\d)$/.exec(v)!;
  return (m[1] ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
};
const account = (i: number) => `real-${String(i + 1).padStart(2, '0')}`;

/** A ledger with one account per file, of the file's type and currency. */
async function chartLedger(): Promise<string> {
  const dir = tempDir();
  const chart = join(dir, 'accounts.csv');
  writeFileSync(
    chart,
    'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,' +
      'currency\n' +
      EXPECTED.map(
        (e, i) =>
          `${account(i)},${1100 + i},${e.file},${e.account_type},,true,true,` +
          `${e.currency === 'USD' ? '' : e.currency}\n`,
      ).join('') +
      'equity,3000,Equity,equity,,true,true,\n',
  );
  const ledger = join(dir, 'books.sqlite');
  const r = await books(['init', '--ledger', ledger, '--first-month', '2010-01', '--chart', chart]);
  expect(r.exitCode, r.stderr).toBe(0);
  return ledger;
}

describe('the real statements', () => {
  it(`are in ${DIR} (set BOOKS_REALFILES to their folder)`, () => {
    for (const e of EXPECTED) expect(existsSync(join(DIR, e.file)), e.file).toBe(true);
  });
});

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'real bank statements on %s',
  (_name, fixture) => {
    let L: FixtureLedger;
    const { json, refused } = sayings(
      () => L,
      [],
      (t) => t,
    );
    beforeAll(async () => {
      L = await fixture.create(await chartLedger());
    }, 120_000);
    afterAll(() => L?.close());

    it.each(EXPECTED.map((e, i) => [e.file, e, account(i)] as const))(
      '%s',
      async (_file, e, acct) => {
        const args = ['reconcile', 'import', resolve(DIR, e.file), '--account', acct];
        if (e.refused) return refused([...args, ...(e.flags ?? [])], 1, ...e.refused);
        const r = await json([...args, ...(e.flags ?? [])]);
        expect(r).toMatchObject({
          imported: e.lines,
          skipped: 0,
          start: e.start,
          end: e.end,
          skipped_zero: e.skipped_zero,
          closing_balance: e.closing ? cents(e.closing.balance) : null,
        });
        // What the ledger now holds: the lines' sums each way, and the statement's closing date.
        const status = await json(['reconcile', 'status', '--account', acct]);
        const amounts: number[] = status.unmatched_statement_lines.map(
          (l: { amount_atoms: number }) => l.amount_atoms,
        );
        const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
        expect([
          sum(amounts.filter((a) => a > 0)),
          Math.abs(sum(amounts.filter((a) => a < 0))),
        ]).toEqual([cents(e.money_in!), cents(e.money_out!)]);
        expect(status.statement).toEqual(
          e.closing ? { date: e.closing.date, balance_atoms: cents(e.closing.balance) } : null,
        );
        // Next month's file of the account needs no flags.
        const again = await json(args);
        expect([again.imported, again.skipped]).toEqual([0, e.lines]);
      },
    );

    it('books check proves the ledger', async () => {
      expect(await L.check()).toEqual([]);
    });
  },
);
