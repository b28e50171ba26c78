import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/domain/entry.js';
import { FIXTURES as FILES, tempDir } from '../support/helpers.js';
import { FIXTURES, fromTemplate, SEEN, type FixtureLedger } from '../support/fixtures.js';
import { conformance } from '../stores/stores.js';
import { fifoAging } from '../support/aging.js';
import { sayings } from '../support/said.js';

const BUDGET = join(FILES, 'demo/budget-2025.csv');
const cents = (s: string) => Math.round(Number(s) * 100);
/** The budget file as the test reads it: cells by account and period. */
const budgetRows = readFileSync(BUDGET, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split(','))
  .map(([account, period, amount]) => ({
    account: account!,
    period: period!,
    atoms: cents(amount!),
  }));

/** Entries that leave open items: a partial payment, a payment before its invoice, an old bill. */
const OPEN_ITEMS = [
  ['2025-08-01', 'ar=1000@customer:C001', 'sales=1000', 'Invoice 8001'],
  ['2025-09-15', 'checking=300', 'ar=300@customer:C001', 'Part payment 8001'],
  ['2025-10-20', 'ar=450.50@customer:C001', 'sales=450.50', 'Invoice 8002'],
  ['2025-11-05', 'checking=500', 'ar=500@customer:C002', 'Payment before its invoice'],
  ['2025-12-10', 'ar=200@customer:C002', 'sales=200', 'Invoice 8003'],
  ['2025-06-30', 'cogs=812.40', 'ap=812.40@vendor:V002', 'Dairy bill June'],
  ['2025-12-01', 'ap=100@vendor:V002', 'checking=100', 'Part payment of the June bill'],
];

/** What each store answered, ids made neutral: every store must say the same. */
const SAID = new Map<string, string[]>();
const neutral = (json: string) =>
  json
    .replace(/(je|ent)_[A-Za-z0-9_-]+/g, '$1_…')
    .replace(/"(created_at|updated_at)": "[^"]+"/g, '"$1": "…"');

describe.each(FIXTURES.map((f) => [f.name, f] as const))('close II on %s', (name, fixture) => {
  let L: FixtureLedger;
  const said: string[] = [];
  SAID.set(name, said);
  const { json, refused } = sayings(() => L, said, neutral);
  /** The journal as `je list` lists it (read from the store underneath: a service lists nothing). */
  const journal = async () => {
    const out: JournalEntry[] = [];
    for await (const e of L.store.journal.list({})) out.push(e);
    return out;
  };

  beforeAll(async () => {
    L = await fromTemplate(fixture, 'demo');
    for (const [date, debit, credit, memo] of OPEN_ITEMS) {
      const r = await L.books([
        'je',
        'post',
        '--date',
        date!,
        '--debit',
        debit!,
        '--credit',
        credit!,
        '--memo',
        memo!,
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
    }
  }, 120_000);
  afterAll(async () => L?.close());

  it.each([
    ['receivable', '2025-06-15', []],
    ['receivable', '2025-12-31', []],
    ['receivable', '2026-03-31', ['--buckets', '15,45']],
    ['payable', '2025-12-31', ['--due-days', '30']],
    ['payable', '2025-07-01', []],
  ] as const)(
    'ages %s as of %s customer by customer and bucket by bucket as FIFO over je list, totalling the trial balance',
    async (type, asOf, extra) => {
      const aging = await json(['report', 'aging', '--type', type, '--as-of', asOf, ...extra]);
      const limits = extra[0] === '--buckets' ? extra[1]!.split(',').map(Number) : [30, 60, 90];
      const dueDays = extra[0] === '--due-days' ? Number(extra[1]) : null;
      const expected = fifoAging(await journal(), { type, asOf, limits, dueDays });
      const got = Object.fromEntries(
        aging.rows.map(
          (r: {
            counterparty_external_id: string;
            amounts: object;
            unapplied: number;
            total: number;
          }) => [
            r.counterparty_external_id,
            { amounts: r.amounts, unapplied: r.unapplied, total: r.total },
          ],
        ),
      );
      expect(got).toEqual(expected);
      const tb = await json(['report', 'tb', '--as-of', asOf]);
      const accountType = type === 'receivable' ? 'accounts_receivable' : 'accounts_payable';
      const balance = tb.rows
        .filter((r: { account_type: string }) => r.account_type === accountType)
        .reduce(
          (s: number, r: { debit: number | null; credit: number | null }) =>
            s + (type === 'receivable' ? 1 : -1) * ((r.debit ?? 0) - (r.credit ?? 0)),
          0,
        );
      expect(aging.totals.total).toBe(balance);
    },
  );

  it('shows what a payment before its invoice leaves, and open items under --detail', async () => {
    const early = await json(['report', 'aging', '--type', 'receivable', '--as-of', '2025-11-30']);
    const c002 = early.rows.find(
      (r: { counterparty_external_id: string }) => r.counterparty_external_id === 'C002',
    );
    expect(c002).toMatchObject({ unapplied: -50000, total: -50000, items: [] });
    const table = await L.books([
      'report',
      'aging',
      '--type',
      'receivable',
      '--as-of',
      '2025-12-31',
      '--detail',
    ]);
    expect(table.stdout).toMatch(
      // The demo's payments of later invoices took the oldest items first: what is left is the newest.
      /Harbor Cafe \(customer:C001\)\s+1,150\.50\s+0\.00\s+0\.00\s+0\.00\s+0\.00\s+1,150\.50/,
    );
    expect(table.stdout).toMatch(
      /JE-\d+ 2025-12-18 \(13 days\) Wholesale invoice C001\s+1,150\.50\n/,
    );
    expect(table.stdout).toMatch(
      /Total\s+3,501\.28\s+0\.00\s+0\.00\s+0\.00\s+\(300\.00\)\s+3,201\.28/,
    );
    // Narrowed to the receivable account by name and to one customer: the same rows.
    const all = await json(['report', 'aging', '--type', 'receivable', '--as-of', '2025-12-31']);
    const ar = ['report', 'aging', '--type', 'receivable', '--as-of', '2025-12-31', '--account'];
    expect((await json([...ar, '1100'])).rows).toEqual(all.rows);
    const one = await json([...ar, 'ar', '--counterparty', 'customer:C001']);
    expect(one.rows).toEqual(
      all.rows.filter(
        (r: { counterparty_external_id: string }) => r.counterparty_external_id === 'C001',
      ),
    );
    await refused([...ar, 'ar', '--counterparty', 'customer:C999'], 1, "no customer 'C999'");
    const cps = await json(['counterparties', 'list', '--balances', '--as-of', '2025-12-31']);
    const byId = Object.fromEntries(
      cps.data.map((c: { external_id: string }) => [c.external_id, c]),
    );
    expect(byId.C001).toMatchObject({ receivable_balance: 115050, payable_balance: 0 });
    expect(byId.V002).toMatchObject({ receivable_balance: 0, payable_balance: 71240 });
  });

  it('compares each period with the one before: the compared columns equal that period run alone', async () => {
    const q1 = ['--start', '2025-01-01', '--end', '2025-03-31', '--period', 'monthly'];
    const alone = await json(['report', 'pnl', '--start', '2024-12-01', '--end', '2025-02-28']);
    const compared = await json(['report', 'pnl', ...q1, '--compare', 'previous-period']);
    expect(compared.comparisons).toEqual([
      { period: '2025-01', against: '2024-12', kind: 'previous-period' },
      { period: '2025-02', against: '2025-01', kind: 'previous-period' },
      { period: '2025-03', against: '2025-02', kind: 'previous-period' },
    ]);
    const net = (st: {
      summary: { account_kind: string; amounts: Record<string, number | null> }[];
    }) => st.summary.find((s) => s.account_kind === 'net_income')!.amounts;
    for (const id of ['2024-12', '2025-01', '2025-02'])
      expect(net(compared)[id]).toEqual(net(alone)[id]);
    // CSV names every column once: a compared period that is a column of its own too included.
    const csv = await L.books([
      'report',
      'pnl',
      ...q1,
      '--compare',
      'previous-period',
      '--compare',
      'previous-year',
      '--format',
      'csv',
    ]);
    const head = csv.stdout.split('\n')[0]!.split(',');
    expect(new Set(head).size).toBe(head.length);
    expect(head).toEqual(
      expect.arrayContaining([
        '2025-02',
        'previous-period:2025-02',
        'change:previous-period:2025-02',
        'pct_change:previous-year:2025-02',
      ]),
    );
    const sheet = await json(['report', 'balance-sheet', ...q1, '--compare', 'previous-period']);
    const sheetAlone = await json([
      'report',
      'balance-sheet',
      '--start',
      '2025-01-01',
      '--end',
      '2025-02-28',
    ]);
    expect(sheet.sections[0].balances['2025-02']).toBe(sheetAlone.sections[0].balances['2025-02']);
  });

  it('compares with the budget: a quarter without its own row is the sum of its months', async () => {
    const imported = await json(['budgets', 'import', BUDGET]);
    expect(imported).toEqual({ created: budgetRows.length, updated: 0, unchanged: 0 });
    expect((await json(['budgets', 'import', BUDGET])).unchanged).toBe(budgetRows.length);
    const listed = await json(['budgets', 'list']);
    expect(listed.data).toHaveLength(budgetRows.length);
    const st = await json([
      'report',
      'pnl',
      '--start',
      '2025-01-01',
      '--end',
      '2025-06-30',
      '--period',
      'quarterly',
      '--compare',
      'budget',
    ]);
    const income = st.sections.find((s: { account_type: string }) => s.account_type === 'income');
    const sales = income.children.find(
      (c: { account_number: string }) => c.account_number === '4000',
    );
    const months = (acct: string, ...ids: string[]) =>
      budgetRows
        .filter((r) => r.account === acct && ids.includes(r.period))
        .reduce((s, r) => s + r.atoms, 0);
    expect(sales.own_amounts['budget:2025-Q1']).toBe(
      months('4000', '2025-01', '2025-02', '2025-03'),
    );
    // A quarter's own row wins over its months (cost of goods has only quarter rows).
    const cogs = st.sections.find(
      (s: { account_type: string }) => s.account_type === 'cost_of_goods_sold',
    );
    expect(cogs.amounts['budget:2025-Q2']).toBe(months('5000', '2025-Q2'));
    // Computed rows total their children: the budget's gross profit is its income less its costs.
    const gross = st.summary.find(
      (s: { account_kind: string }) => s.account_kind === 'gross_profit',
    );
    expect(gross.amounts['budget:2025-Q1']).toBe(
      income.amounts['budget:2025-Q1'] - cogs.amounts['budget:2025-Q1'],
    );
    const table = await L.books([
      'report',
      'pnl',
      '--start',
      '2025-01-01',
      '--end',
      '2025-03-31',
      '--period',
      'quarterly',
      '--compare',
      'budget',
    ]);
    expect(table.stdout).toMatch(/Budget\s+Over Budget\s+% of Budget/);
    expect(table.stdout).toMatch(/6100 Rent\s+9,000\.00\s+9,000\.00\s+0\.00\s+100\.0%/);
    // The balance sheet's budget Net Income is the income statement's budget for the year to date.
    const bs = await json([
      'report',
      'balance-sheet',
      '--start',
      '2025-06-01',
      '--end',
      '2025-06-30',
      '--compare',
      'budget',
    ]);
    const equity = bs.sections.find((s: { account_type: string }) => s.account_type === 'equity');
    const ni = equity.children.find(
      (c: { account_kind: string }) => c.account_kind === 'net_income',
    );
    const netIncome = st.summary.find(
      (s: { account_kind: string }) => s.account_kind === 'net_income',
    );
    expect(ni.balances['budget:2025-06']).toBe(
      netIncome.amounts['budget:2025-Q1'] + netIncome.amounts['budget:2025-Q2'],
    );
    await refused(['budgets', 'import', join(FILES, 'demo/accounts.csv')], 1, 'gl_account_id');
  });

  it('posts an accrual with its reversal, linked, on the first of the next month', async () => {
    const e = await json([
      'je',
      'post',
      '--date',
      '2025-12-31',
      '--memo',
      'Accrued utilities',
      '--debit',
      'utilities=410',
      '--credit',
      'accrued=410',
      '--auto-reverse',
    ]);
    expect(e.status).toBe('reversed');
    expect(e.reversed_by_journal_entry_ids).toHaveLength(1);
    const reversal = await json(['je', 'show', e.reversed_by_journal_entry_ids[0]]);
    expect(reversal).toMatchObject({
      entry_date: '2026-01-01',
      memo: `Reversal of ${e.je_number}`,
      original_journal_entry_id: e.id,
      entry_type_label: 'Reversing Journal Entry',
    });
    expect(reversal.lines.map((l: { line_type: string }) => l.line_type)).toEqual([
      'credit',
      'debit',
    ]);
    const accrued = async (asOf: string) =>
      (await json(['report', 'tb', '--as-of', asOf])).rows.find(
        (r: { account_number: string }) => r.account_number === '2200',
      );
    const net = (r: { debit: number | null; credit: number | null } | undefined) =>
      (r?.credit ?? 0) - (r?.debit ?? 0);
    expect(net(await accrued('2025-12-31'))).toBe(41000);
    expect(net(await accrued('2026-01-01'))).toBe(0);
    await refused(
      [
        'je',
        'post',
        '--date',
        '2025-12-31',
        '--debit',
        'utilities=1',
        '--credit',
        'accrued=1',
        '--reverse-on',
        '2025-12-31',
      ],
      1,
      '--reverse-on',
      'not after',
    );
    await refused(
      [
        'je',
        'post',
        '--date',
        '2025-12-30',
        '--debit',
        'utilities=1',
        '--credit',
        'accrued=1',
        '--reverse-on',
        '2025-13-01',
      ],
      2,
      '--reverse-on',
    );
  });

  it("imports accruals with their reversals; a reversal names its accrual's number, renumbered or not", async () => {
    // The file numbers B with the number the accrual takes first: the accrual is renumbered.
    const taken = (await journal()).map((e) => Number(/^JE-(\d+)$/.exec(e.je_number)?.[1] ?? 0));
    const next = `JE-${Math.max(...taken) + 1}`;
    // And C with the number its reversal takes next: both move on, still linked and named.
    const after = `JE-${Math.max(...taken) + 2}`;
    const file = join(tempDir(), 'accruals.csv');
    writeFileSync(
      file,
      [
        'entry,entry_date,je_number,memo,gl_account_id,debit,credit,auto_reverse_on',
        'A,2025-11-30,,Accrual A,utilities,100,,2025-12-01',
        'A,2025-11-30,,,accrued,,100,',
        `B,2025-11-15,${next},Numbered by the file,rent,50,,`,
        `B,2025-11-15,${next},,checking,,50,`,
        `C,2025-11-16,${after},Numbered by the file too,rent,60,,`,
        `C,2025-11-16,${after},,checking,,60,`,
      ].join('\n') + '\n',
    );
    const r = await L.books(['je', 'import', file]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('and 1 automatic reversal');
    // A European file: the column read with the file's own date order and decimal commas.
    const eu = join(tempDir(), 'accruals-eu.csv');
    writeFileSync(
      eu,
      'entry;entry_date;gl_account_id;debit;credit;auto_reverse_on\n' +
        'E;30/11/2025;utilities;10,50;;01/12/2025\nE;30/11/2025;accrued;;10,50;\n',
    );
    const dmy = ['--delimiter', ';', '--decimal-comma', '--date-format', 'DMY'];
    expect((await L.books(['je', 'import', eu, ...dmy])).stdout).toContain(
      'and 1 automatic reversal',
    );
    const entries = await journal();
    const accrual = entries.find((e) => e.memo === 'Accrual A')!;
    expect(accrual.reversed_by_journal_entry_ids).toHaveLength(1);
    expect(entries.find((e) => e.je_number === next)!.memo).toBe('Numbered by the file');
    expect(entries.find((e) => e.je_number === after)!.memo).toBe('Numbered by the file too');
    for (const e of entries.filter((x) => x.original_journal_entry_id)) {
      const original = entries.find((x) => x.id === e.original_journal_entry_id)!;
      expect(e.memo).toBe(`Reversal of ${original.je_number}`);
    }
  });

  it('posts recurring entries once each, month ends kept, and none twice', async () => {
    await json([
      'recurring',
      'add',
      '--name',
      'Depreciation',
      '--every',
      'month',
      '--day',
      '31',
      '--start',
      '2026-01-31',
      '--debit',
      'depreciation=600',
      '--credit',
      'accum-depr=600',
      '--memo',
      'Monthly depreciation',
    ]);
    await json([
      'recurring',
      'add',
      '--name',
      'Loan',
      '--every',
      'quarter',
      '--start',
      '2025-11-15',
      '--end',
      '2026-05-15',
      '--debit',
      'loan=1000',
      '--credit',
      'checking=1000',
    ]);
    await refused(
      [
        'recurring',
        'add',
        '--name',
        'Loan',
        '--every',
        'month',
        '--start',
        '2026-01-01',
        '--debit',
        'loan=1',
        '--credit',
        'checking=1',
      ],
      1,
      'exists',
    );
    await refused(
      [
        'recurring',
        'add',
        '--name',
        'Bad',
        '--every',
        'month',
        '--start',
        '2026-01-01',
        '--debit',
        'nope=1',
        '--credit',
        'checking=1',
      ],
      1,
      'nope',
    );
    const dry = await json(['recurring', 'run', '--through', '2026-03-31', '--dry-run']);
    expect(dry.posted.map((p: { name: string; date: string }) => `${p.name} ${p.date}`)).toEqual([
      'Depreciation 2026-01-31',
      'Depreciation 2026-02-28',
      'Depreciation 2026-03-31',
      'Loan 2025-11-15',
      'Loan 2026-02-15',
    ]);
    const before = (await journal()).length;
    const run = await json(['recurring', 'run', '--through', '2026-03-31']);
    expect(run.posted.map((p: { date: string }) => p.date)).toEqual(
      dry.posted.map((p: { date: string }) => p.date),
    );
    expect((await journal()).length).toBe(before + 5);
    const again = await json(['recurring', 'run', '--through', '2026-03-31']);
    expect(again).toMatchObject({ posted: [], already_posted: 5 });
    // The same template asked for again (a retry whose answer was lost) is the one already there.
    await json([
      ...['recurring', 'add', '--name', 'Loan', '--every', 'quarter', '--start', '2025-11-15'],
      ...['--end', '2026-05-15', '--debit', 'loan=1000', '--credit', 'checking=1000'],
    ]);
    const more = await json(['recurring', 'run', '--through', '2026-12-31']);
    expect(more.posted.map((p: { name: string; date: string }) => `${p.name} ${p.date}`)).toContain(
      'Loan 2026-05-15',
    );
    expect(more.posted.filter((p: { name: string }) => p.name === 'Loan')).toHaveLength(1);
    expect((await json(['recurring', 'list'])).data.map((t: { name: string }) => t.name)).toEqual([
      'Depreciation',
      'Loan',
    ]);
    await json(['recurring', 'remove', 'Loan']);
    await refused(['recurring', 'remove', 'Loan'], 1, 'no recurring entry');
    expect(await L.check()).toEqual([]);
  });

  it('compares with the year before: its columns equal the earlier year run alone, account by account', async () => {
    // The year before is the demo's 2025; 2026 has the recurring entries posted above.
    type Node = { name: string; children: Node[] } & Record<string, unknown>;
    const cells = (st: { sections: Node[] }, field: string, id: string) => {
      const out: Record<string, unknown> = {};
      const walk = (n: Node, path: string) => {
        const v = (n[field] as Record<string, unknown> | undefined)?.[id];
        if (v !== null && v !== undefined) out[`${path}/${n.name}`] = v;
        for (const c of n.children ?? []) walk(c, `${path}/${n.name}`);
      };
      for (const s of st.sections) walk(s as Node, '');
      return out;
    };
    for (const [report, field] of [
      ['pnl', 'amounts'],
      ['balance-sheet', 'balances'],
    ] as const) {
      const compared = await json([
        ...['report', report, '--start', '2026-01-01', '--end', '2026-03-31'],
        ...['--compare', 'previous-year'],
      ]);
      const alone = await json(['report', report, '--start', '2025-01-01', '--end', '2025-03-31']);
      for (const id of ['2025-01', '2025-02', '2025-03']) {
        expect(compared.comparisons).toContainEqual({
          period: id.replace('2025', '2026'),
          against: id,
          kind: 'previous-year',
        });
        expect(cells(compared, field, id)).toEqual(cells(alone, field, id));
      }
    }
    const table = await L.books([
      ...['report', 'pnl', '--start', '2026-01-01', '--end', '2026-01-31'],
      ...['--compare', 'previous-year'],
    ]);
    expect(table.stdout).toMatch(/Jan 2026\s+Jan 2025\s+Change\s+% Change/);
    // Depreciation: 600.00 in January 2026 against 600.00 a year before.
    expect(table.stdout).toMatch(/6700 Depreciation Expense\s+600\.00\s+600\.00\s+0\.00\s+0\.0%/);
  });
});

afterAll(async () => {
  const [first, ...rest] = [...SAID.values()];
  for (const other of rest) expect(other).toEqual(first);
  expect(SEEN.some((r) => r.path.startsWith('/v1/recurring-entries'))).toBe(true);
  expect(SEEN.some((r) => r.path.startsWith('/v1/reports/aging'))).toBe(true);
  expect(await conformance()).toBeGreaterThan(20);
});
