import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  books,
  demoLedger,
  expectSameReport,
  FIXTURES,
  serve,
  type RunResult,
} from '../support/helpers.js';

interface Account {
  id: string;
  external_id: string;
  account_number: string;
  name: string;
  account_type: string;
  parent_id: string | null;
}
interface Entry {
  entry_date: string;
  je_number: string;
  memo: string | null;
  is_adjusting: boolean;
  lines: {
    account_id: string;
    line_type: string;
    amount_atoms: number;
    memo: string | null;
    counterparty_type: string | null;
    counterparty_external_id: string | null;
  }[];
}
type Cells = Record<string, number | null>;
interface IsNode {
  account_id: string | null;
  name: string;
  account_kind: string;
  amounts: Cells;
  own_amounts: Cells;
  transaction_counts: Record<string, number>;
  children: IsNode[];
}
interface Line {
  date: string;
  account: string;
  net: number;
  adjusting: boolean;
  je: string;
  entry: Entry;
  line: Entry['lines'][number];
}

const CREDIT_POSITIVE = new Set(['income', 'other_income']);
const PL = new Set(['income', 'cost_of_goods_sold', 'expense', 'other_income', 'other_expense']);
const fyBegin = (d: string, fy: number) => {
  const [y, m] = [Number(d.slice(0, 4)), Number(d.slice(5, 7))];
  return `${m >= fy ? y : y - 1}-${String(fy).padStart(2, '0')}-01`;
};

async function facts(run: (args: string[]) => Promise<RunResult>) {
  const json = async (args: string[]) =>
    JSON.parse((await run([...args, '--format', 'json'])).stdout);
  const accounts = (await json(['accounts', 'list'])).data as Account[];
  const entries = (await json(['je', 'list'])).data as Entry[];
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const lines: Line[] = entries.flatMap((e) =>
    e.lines.map((l) => ({
      date: e.entry_date,
      account: l.account_id,
      net: l.line_type === 'debit' ? l.amount_atoms : -l.amount_atoms,
      adjusting: e.is_adjusting,
      je: e.je_number,
      entry: e,
      line: l,
    })),
  );
  const under = (id: string, root: string): boolean =>
    id === root || (byId.get(id)!.parent_id !== null && under(byId.get(id)!.parent_id!, root));
  return { accounts, entries, lines, byId, under };
}
type Facts = Awaited<ReturnType<typeof facts>>;

const sum = (ls: Line[]) => (ls.length ? ls.reduce((s, l) => s + l.net, 0) : null);
const signed = (k: number, v: number | null) => (v === null ? null : k * v + 0);

function checkIncomeStatement(is: any, f: Facts): number {
  let cells = 0;
  const visit = (n: IsNode) => {
    const a = f.byId.get(n.account_id!)!;
    const sign = CREDIT_POSITIVE.has(a.account_type) ? -1 : 1;
    for (const p of is.periods) {
      const within = f.lines.filter((l) => l.date >= p.start_date && l.date <= p.end_date);
      const all = within.filter((l) => f.under(l.account, a.id));
      expect(n.amounts[p.id], `${n.name} ${p.id}`).toBe(signed(sign, sum(all)));
      expect(n.own_amounts[p.id], `${n.name} own ${p.id}`).toBe(
        signed(sign, sum(all.filter((l) => l.account === a.id))),
      );
      expect(n.transaction_counts[p.id]).toBe(all.length);
      cells += 3;
    }
    n.children.forEach(visit);
  };
  const bySection: Record<string, Record<string, number | null>> = {};
  for (const s of is.sections) {
    s.children.forEach(visit);
    bySection[s.account_type] = {};
    for (const p of is.periods) {
      const ls = f.lines.filter(
        (l) =>
          l.date >= p.start_date &&
          l.date <= p.end_date &&
          f.byId.get(l.account)!.account_type === s.account_type,
      );
      const v = signed(CREDIT_POSITIVE.has(s.account_type) ? -1 : 1, sum(ls));
      expect(s.amounts[p.id], `${s.label} ${p.id}`).toBe(v);
      bySection[s.account_type]![p.id] = v;
      cells++;
    }
  }
  for (const p of is.periods) {
    const v = (t: string) => bySection[t]![p.id] ?? 0;
    const pl = f.lines.filter(
      (l) =>
        l.date >= p.start_date &&
        l.date <= p.end_date &&
        PL.has(f.byId.get(l.account)!.account_type),
    );
    const net = is.summary.find((s: any) => s.account_kind === 'net_income').amounts[p.id];
    expect(net ?? 0, `net income ${p.id}`).toBe(-(sum(pl) ?? 0) + 0);
    const gross = is.summary.find((s: any) => s.account_kind === 'gross_profit').amounts[p.id];
    expect(gross ?? 0).toBe(v('income') - v('cost_of_goods_sold'));
    cells += 2;
  }
  return cells;
}

function checkTrialBalance(tb: any, f: Facts, fy: number, mode: 'include' | 'exclude'): number {
  const fyStart = fyBegin(tb.as_of, fy);
  // The adjustments are the adjusting entries of the fiscal year to date; earlier ones are booked.
  const adjustment = (l: Line) => l.adjusting && l.date >= fyStart;
  const lines = f.lines.filter((l) => l.date <= tb.as_of && (mode === 'include' || !adjustment(l)));
  const expected = new Map<string, { net: number; n: number }>();
  let prior = 0;
  let priorLines = 0;
  for (const l of lines) {
    const pl = PL.has(f.byId.get(l.account)!.account_type);
    if (pl && l.date < fyStart) {
      prior += l.net;
      priorLines++;
      continue;
    }
    const e = expected.get(l.account) ?? { net: 0, n: 0 };
    expected.set(l.account, { net: e.net + l.net, n: e.n + (l.date >= fyStart ? 1 : 0) });
  }
  const rows = tb.rows.filter((r: any) => r.account_kind === 'regular');
  const shown = [...expected].filter(([, e]) => e.net !== 0 || e.n > 0).map(([id]) => id);
  expect(rows.map((r: any) => r.account_id).sort()).toEqual(shown.sort());
  for (const r of rows) {
    const net = expected.get(r.account_id)!.net;
    expect([r.debit, r.credit], r.name).toEqual([net > 0 ? net : null, net < 0 ? -net : null]);
  }
  const re = tb.rows.find((r: any) => r.account_kind === 'retained_earnings');
  if (priorLines)
    expect([re.debit, re.credit]).toEqual([prior > 0 ? prior : null, prior < 0 ? -prior : null]);
  else expect(re).toBeUndefined();
  expect(tb.totals.debit).toBe(tb.totals.credit);
  return rows.length * 2;
}

function checkGeneralLedger(gl: any, f: Facts, fy: number): number {
  let cells = 0;
  for (const a of gl.accounts) {
    const acct = f.byId.get(a.account_id)!;
    const from = PL.has(acct.account_type) ? fyBegin(gl.start_date, fy) : '';
    const before = f.lines.filter(
      (l) => l.account === a.account_id && l.date < gl.start_date && l.date >= from,
    );
    expect(a.opening, `${acct.name} opening`).toBe(sum(before));
    const within = f.lines
      .filter((l) => l.account === a.account_id && l.date >= gl.start_date && l.date <= gl.end_date)
      .sort((x, y) =>
        x.date < y.date ? -1 : x.date > y.date ? 1 : Number(x.je.slice(3)) - Number(y.je.slice(3)),
      );
    let balance = a.opening ?? 0;
    // Profit and loss starts again at each new fiscal year: its balance is the fiscal year's.
    let year = fyBegin(gl.start_date, fy);
    expect(a.lines.length, acct.name).toBe(within.length);
    within.forEach((l, i) => {
      if (PL.has(acct.account_type) && fyBegin(l.date, fy) !== year)
        [balance, year] = [0, fyBegin(l.date, fy)];
      balance += l.net;
      const got = a.lines[i];
      expect([
        got.entry_date,
        got.je_number,
        got.memo,
        got.line_memo,
        got.counterparty_external_id,
      ]).toEqual([l.date, l.je, l.entry.memo, l.line.memo, l.line.counterparty_external_id]);
      expect([got.debit, got.credit, got.balance]).toEqual([
        l.net > 0 ? l.net : null,
        l.net < 0 ? -l.net : null,
        balance,
      ]);
      cells += 3;
    });
    // Closing is the balance of the window end's fiscal year.
    expect(a.closing).toBe(
      PL.has(acct.account_type) && fyBegin(gl.end_date, fy) !== year ? 0 : balance,
    );
    expect([a.debit_total, a.credit_total]).toEqual([
      within.reduce((s, l) => s + Math.max(l.net, 0), 0),
      within.reduce((s, l) => s + Math.max(-l.net, 0), 0),
    ]);
  }
  return cells;
}

/** An adjusting entry and a second year, so that the worksheet and prior years have something to show. */
async function extend(run: (args: string[]) => Promise<RunResult>) {
  for (const args of [
    [
      'je',
      'post',
      '--date',
      '2025-12-31',
      '--adjusting',
      '--memo',
      'Accrued utilities',
      '--debit',
      'utilities=410.25',
      '--credit',
      'accrued=410.25',
    ],
    ['je', 'post', '--date', '2026-01-15', '--debit', 'rent=3000', '--credit', 'checking=3000'],
  ]) {
    const r = await run(args);
    expect(r.exitCode, r.stderr).toBe(0);
  }
}

const VARIANTS = [
  ['calendar', 1, ''],
  ['fiscal year from April', 4, '-fy4'],
] as const;

describe.each(VARIANTS)('close reports on the demo ledger, %s', (_name, fy, suffix) => {
  let demo: Awaited<ReturnType<typeof demoLedger>>;
  let f: Facts;
  const json = async (args: string[]) => {
    const r = await demo.run([...args, '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  beforeAll(async () => {
    demo = await demoLedger({ fiscalYearStartMonth: fy });
    await extend(demo.run);
    f = await facts(demo.run);
  });

  it.each([
    ['monthly', ['--start', '2025-01-01', '--end', '2025-12-31']],
    [
      'quarterly, clipped',
      ['--start', '2025-02-10', '--end', '2026-01-20', '--period', 'quarterly'],
    ],
    [
      'yearly over two years',
      ['--start', '2025-01-01', '--end', '2026-12-31', '--period', 'yearly'],
    ],
  ])('every cell of the income statement matches the lines: %s', async (_n, args) => {
    const is = await json(['report', 'income-statement', ...args]);
    expect(checkIncomeStatement(is, f)).toBeGreaterThan(is.periods.length * 20);
  });

  it.each(['2025-03-31', '2025-12-31', '2026-02-28'])(
    'every cell of the trial balance matches the lines as of %s',
    async (asOf) => {
      checkTrialBalance(await json(['report', 'trial-balance', '--as-of', asOf]), f, fy, 'include');
      checkTrialBalance(
        await json(['report', 'tb', '--as-of', asOf, '--unadjusted']),
        f,
        fy,
        'exclude',
      );
    },
  );

  it('every line of the general ledger matches the lines', async () => {
    const gl = await json([
      'report',
      'general-ledger',
      '--start',
      '2025-06-01',
      '--end',
      '2026-01-31',
    ]);
    expect(checkGeneralLedger(gl, f, fy)).toBeGreaterThan(1000);
    const cash = await json([
      'report',
      'gl',
      '--account',
      '1000',
      '--start',
      '2025-06-01',
      '--end',
      '2025-06-30',
    ]);
    expect(cash.accounts.map((a: any) => a.account_number)).toEqual(['1010', '1020']);
    checkGeneralLedger(cash, f, fy);
    const customer = await json([
      'report',
      'gl',
      '--counterparty',
      'customer:C002',
      '--start',
      '2025-01-01',
      '--end',
      '2025-12-31',
    ]);
    const withC002 = f.lines.filter(
      (l) => l.line.counterparty_external_id === 'C002' && l.date <= '2025-12-31',
    );
    expect(customer.accounts.flatMap((a: any) => a.lines).length).toBe(withC002.length);
  });

  /** Account and entry ids are random per ledger; name them by number so that the file is stable. */
  const stable = (text: string) =>
    f.accounts
      .reduce((t, a) => t.replaceAll(a.id, `id-of-${a.account_number}`), text)
      .replace(/je_[\w-]+/g, 'je_id');

  it.each([
    [
      'income-statement.txt',
      [
        'report',
        'income-statement',
        '--start',
        '2025-01-01',
        '--end',
        '2025-12-31',
        '--period',
        'quarterly',
      ],
    ],
    [
      'income-statement.csv',
      ['report', 'pnl', '--start', '2025-01-01', '--end', '2025-06-30', '--format', 'csv'],
    ],
    [
      'income-statement.json',
      ['report', 'pnl', '--start', '2025-02-01', '--end', '2025-03-31', '--format', 'json'],
    ],
    ['trial-balance.txt', ['report', 'trial-balance', '--as-of', '2026-01-31']],
    ['trial-balance-worksheet.txt', ['report', 'tb', '--as-of', '2025-12-31', '--worksheet']],
    ['trial-balance-tree.txt', ['report', 'tb', '--as-of', '2025-12-31', '--tree']],
    [
      'trial-balance.csv',
      ['report', 'tb', '--as-of', '2025-12-31', '--worksheet', '--format', 'csv'],
    ],
    ['trial-balance.json', ['report', 'tb', '--as-of', '2026-01-31', '--format', 'json']],
    [
      'general-ledger.txt',
      [
        'report',
        'general-ledger',
        '--account',
        'cash',
        '--start',
        '2025-12-01',
        '--end',
        '2025-12-31',
      ],
    ],
    [
      'general-ledger.csv',
      [
        'report',
        'gl',
        '--account',
        '6000',
        '--start',
        '2025-11-01',
        '--end',
        '2025-12-31',
        '--format',
        'csv',
      ],
    ],
    [
      'general-ledger.json',
      [
        'report',
        'gl',
        '--account',
        '4200',
        '--start',
        '2025-12-01',
        '--end',
        '2025-12-31',
        '--format',
        'json',
      ],
    ],
  ])('golden %s', async (file, args) => {
    const r = await demo.run(args);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = stable(r.stdout);
    const golden = join(FIXTURES, 'golden', file.replace('.', `${suffix}.`));
    // UPDATE_GOLDEN=1 rewrites the files after a deliberate change to the output; review the diff.
    if (process.env.UPDATE_GOLDEN) writeFileSync(golden, out);
    expect(out).toBe(readFileSync(golden, 'utf8'));
  });

  it('a remote profile through books serve prints the same reports', async () => {
    const created = await demo.run([
      'keys',
      'create',
      '--permission',
      'customer_api:read',
      '--format',
      'json',
    ]);
    const key = JSON.parse(created.stdout).key as string;
    const server = await serve(demo.ledger);
    try {
      const env = {
        BOOKS_CONFIG: join(demo.dir, 'config.json'),
        BOOKS_API_KEY: key,
        BOOKS_PROFILE: 'office',
      };
      expect(
        (await books(['profile', 'add', 'office', '--url', server.url], { cwd: demo.dir, env }))
          .exitCode,
      ).toBe(0);
      for (const args of [
        ['report', 'pnl', '--start', '2025-01-01', '--end', '2025-12-31', '--format', 'csv'],
        ['report', 'tb', '--as-of', '2025-12-31', '--worksheet'],
        ['report', 'gl', '--start', '2025-01-01', '--end', '2025-12-31', '--format', 'csv'],
        // Flag for flag: a window from --end alone starts at the entity's fiscal year, and a table
        // is headed by the entity's name, as locally.
        ['report', 'pnl', '--end', '2025-12-31', '--period', 'quarterly'],
        ['report', 'balance-sheet', '--end', '2025-11-30', '--period', 'quarterly'],
        ['report', 'cf', '--end', '2025-12-31', '--period', 'quarterly'],
        [
          'report',
          'cash-flow',
          '--end',
          '2025-06-30',
          '--compare',
          'previous-year',
          '--format',
          'csv',
        ],
        ['report', 'gl', '--account', 'checking', '--end', '2025-12-31'],
        ['entity', 'show'],
        ['entity', 'show', '--format', 'json'],
      ]) {
        const local = await demo.run(args);
        const remote = await books(args, { cwd: demo.dir, env });
        expect(remote.stderr).toBe('');
        expectSameReport(remote.stdout, local.stdout);
      }
    } finally {
      await server.stop();
    }
  });
});

describe('close report flags', () => {
  it('refuses what cannot be read (exit 2, naming the flag) and a long window (CAPI69, exit 1)', async () => {
    const demo = await demoLedger();
    for (const [args, text] of [
      [['report', 'tb', '--as-of', '2025-02-30'], "--as-of: '2025-02-30' is not a date"],
      [['report', 'tb', '--unadjusted', '--worksheet'], '--unadjusted and --worksheet'],
      [['report', 'gl', '--counterparty', 'client:C1', '--end', '2025-01-31'], '--counterparty'],
      [['report', 'pnl', '--period', 'weekly'], "argument 'weekly' is invalid"],
    ] as const) {
      const r = await demo.run([...args]);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(text);
    }
    const unknown = await demo.run(['report', 'gl', '--account', 'Rentt']);
    expect([unknown.exitCode, unknown.stderr]).toEqual([
      1,
      expect.stringContaining("--account: no account 'Rentt'"),
    ]);
    expect(unknown.stderr).toContain('did you mean 6100 Rent (rent)?');
    for (const args of [
      ['report', 'pnl', '--start', '2020-01-01', '--end', '2025-01-01'],
      ['report', 'gl', '--start', '2020-01-01', '--end', '2025-01-01'],
    ]) {
      const r = await demo.run(args);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('CAPI69');
      expect(r.stdout).toBe('');
    }
  });
});
