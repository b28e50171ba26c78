import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { books, demoLedger, FIXTURES } from '../support/helpers.js';

/**
 * A small reader of the hledger journal books writes: account declarations with their types, and
 * transactions of postings with an amount each. Returns each account's balance in atoms.
 */
function hledgerBalances(text: string): {
  types: Map<string, string>;
  balances: Map<string, bigint>;
} {
  const types = new Map<string, string>();
  const balances = new Map<string, bigint>();
  let sum = 0n;
  for (const line of text.split('\n')) {
    const declared = /^account (.+?) {2}; type: (\w)/.exec(line);
    if (declared) types.set(declared[1]!, declared[2]!);
    const posting = /^ {4}(.+?) {2,}(-?\d+)\.(\d{2}) USD/.exec(line);
    if (posting) {
      const [whole, cents] = [posting[2]!, BigInt(posting[3]!)];
      const signed = whole.startsWith('-')
        ? -(BigInt(whole.slice(1)) * 100n + cents)
        : BigInt(whole) * 100n + cents;
      balances.set(posting[1]!, (balances.get(posting[1]!) ?? 0n) + signed);
      sum += signed;
    }
    // Each transaction balances: the sum is back to zero when the next one starts.
    if (/^\d{4}-\d{2}-\d{2} /.test(line)) expect(sum).toBe(0n);
  }
  expect(sum).toBe(0n);
  return { types, balances };
}

describe('books export', () => {
  let demo: Awaited<ReturnType<typeof demoLedger>>;
  beforeAll(async () => {
    demo = await demoLedger();
    const adjusting = [
      'je',
      'post',
      '--date',
      '2025-12-31',
      '--adjusting',
      '--memo',
      'Accrual, "year end"',
    ];
    adjusting.push('--debit', 'utilities=410.25', '--credit', 'accrued=410.25');
    expect((await demo.run(adjusting)).exitCode).toBe(0);
  });

  it.each([
    ['hledger', 'export.journal'],
    ['beancount', 'export.beancount'],
  ])('%s: the golden file', async (peer, file) => {
    const r = await demo.run(['export', peer]);
    expect(r.exitCode, r.stderr).toBe(0);
    const golden = join(FIXTURES, 'golden', file);
    // UPDATE_GOLDEN=1 rewrites the files after a deliberate change to the output; review the diff.
    if (process.env.UPDATE_GOLDEN) writeFileSync(golden, r.stdout);
    expect(r.stdout).toBe(readFileSync(golden, 'utf8'));
  });

  it("hledger's balances, read back, are the balance sheet's and the income statement's", async () => {
    const text = (await demo.run(['export', 'hledger', '--to', '2025-12-31'])).stdout;
    const { types, balances } = hledgerBalances(text);
    const sheet = JSON.parse(
      (
        await demo.run([
          'report',
          'balance-sheet',
          '--start',
          '2025-12-01',
          '--end',
          '2025-12-31',
          '--format',
          'json',
        ])
      ).stdout,
    );
    const accounts = JSON.parse((await demo.run(['accounts', 'list', '--format', 'json'])).stdout)
      .data as { id: string; name: string; parent_id: string | null }[];
    const byId = new Map(accounts.map((a) => [a.id, a]));
    // Each account's hledger name ends in its books name; its own balance is books' own balance.
    const ownOf = new Map<string, bigint>();
    const walk = (n: any, sign: bigint) => {
      if (n.account_id) ownOf.set(n.account_id, sign * BigInt(n.own_balances['2025-12'] ?? 0));
      n.children.forEach((c: any) => walk(c, sign));
    };
    for (const s of sheet.sections)
      s.children.forEach((c: any) => walk(c, s.account_type === 'assets' ? 1n : -1n));
    let compared = 0;
    for (const [id, own] of ownOf) {
      const path: string[] = [];
      for (let a = byId.get(id); a; a = a.parent_id ? byId.get(a.parent_id) : undefined)
        path.unshift(a.name);
      const name = [...types.keys()].find((n) => n.endsWith(`:${path.join(':')}`))!;
      expect(name, path.join(':')).toBeDefined();
      expect(balances.get(name) ?? 0n, name).toBe(own);
      compared++;
    }
    expect(compared).toBeGreaterThan(15);
    // Profit and loss: revenues and expenses together are minus the year's net income.
    const net = [...balances]
      .filter(([n]) => ['R', 'X'].includes(types.get(n)!))
      .reduce((s, [, v]) => s + v, 0n);
    const equity = sheet.sections.find((s: any) => s.account_type === 'equity');
    const ni = equity.children.find((c: any) => c.account_kind === 'net_income');
    expect(-net).toBe(BigInt(ni.balances['2025-12']));
  });

  it('refuses another peer (exit 2)', async () => {
    const r = await demo.run(['export', 'ledger']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("'ledger' is not hledger or beancount");
  });
});

describe('je list filters', () => {
  it('by account (a parent covers those below it), counterparty, text and count', async () => {
    const demo = await demoLedger();
    const csv = async (...args: string[]) => {
      const r = await demo.run(['je', 'list', '--format', 'csv', ...args]);
      expect(r.exitCode, r.stderr).toBe(0);
      return r.stdout.trim().split('\n').slice(1);
    };
    const all = await csv();
    const entriesOf = (rows: string[]) => new Set(rows.map((r) => r.split(',')[0]));
    const withAccount = (ids: string[]) =>
      entriesOf(all.filter((r) => ids.includes(r.split(',')[7]!)));
    expect(entriesOf(await csv('--account', '1000'))).toEqual(
      withAccount(['checking', 'savings', 'petty-cash', 'cash']),
    );
    expect(entriesOf(await csv('--counterparty', 'customer:C002'))).toEqual(
      entriesOf(all.filter((r) => r.endsWith(',customer,C002'))),
    );
    const rent = await csv('--search', 'RENT');
    expect(rent.length).toBeGreaterThan(10);
    expect(rent.every((r) => /rent/i.test(r.split(',')[3]!))).toBe(true);
    expect(entriesOf(await csv('--limit', '3')).size).toBe(3);
    const bad = await demo.run(['je', 'list', '--counterparty', 'client:C1']);
    expect([bad.exitCode, bad.stderr]).toEqual([2, expect.stringContaining('--counterparty')]);
  });
});

describe('books export of a zero-decimal currency', () => {
  it('declares the commodity with a decimal mark, as hledger requires, and writes whole amounts', async () => {
    const dir = (await import('../support/helpers.js')).tempDir();
    const ledger = join(dir, 'jpy.sqlite');
    const run = (args: string[]) => books([...args, '--ledger', ledger], { cwd: dir });
    expect(
      (await run(['init', '--currency', 'JPY', '--first-month', '2025-01', '--chart', 'standard']))
        .exitCode,
    ).toBe(0);
    expect(
      (
        await run([
          'je',
          'post',
          '--date',
          '2025-01-05',
          '--debit',
          'rent=5000',
          '--credit',
          'checking=5000',
        ])
      ).exitCode,
    ).toBe(0);
    const text = (await run(['export', 'hledger'])).stdout;
    expect(text).toContain('commodity 100000. JPY');
    expect(text).toMatch(/Rent +5000 JPY/);
  });
});
