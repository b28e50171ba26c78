import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoLedger, FIXTURES, standardLedger, type RunResult } from '../support/helpers.js';

type Cell = number | null;
interface Node {
  account_id: string | null;
  account_number: string | null;
  name: string;
  account_kind: string;
  is_postable: boolean;
  balances: Record<string, Cell>;
  own_balances: Record<string, Cell>;
  transaction_counts: Record<string, number>;
  children: Node[];
}
interface Sheet {
  periods: { id: string; label: string; start_date: string; end_date: string }[];
  sections: {
    account_type: string;
    label: string;
    balances: Record<string, Cell>;
    children: Node[];
  }[];
  reporting_currency: string;
}
interface Account {
  id: string;
  account_number: string;
  account_type: string;
  parent_id: string | null;
}
interface Entry {
  entry_date: string;
  lines: { account_id: string; line_type: string; amount_atoms: number }[];
}

const SECTION_OF: Record<string, string> = {
  bank: 'assets',
  accounts_receivable: 'assets',
  other_current_asset: 'assets',
  fixed_asset: 'assets',
  other_asset: 'assets',
  accounts_payable: 'liabilities',
  credit_card: 'liabilities',
  other_current_liability: 'liabilities',
  long_term_liability: 'liabilities',
  equity: 'equity',
  income: 'pl',
  other_income: 'pl',
  cost_of_goods_sold: 'pl',
  expense: 'pl',
  other_expense: 'pl',
};

/** Checks every cell of a balance sheet against sums computed here, directly from the posted lines. */
function crossCheck(sheet: Sheet, accounts: Account[], entries: Entry[], fyStart: number): number {
  const lines = entries.flatMap((e) =>
    e.lines.map((l) => ({
      date: e.entry_date,
      account: l.account_id,
      net: l.line_type === 'debit' ? l.amount_atoms : -l.amount_atoms,
    })),
  );
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const top = (a: Account): Account => (a.parent_id ? top(byId.get(a.parent_id)!) : a);
  const inSubtree = (id: string, root: string): boolean =>
    id === root || (byId.get(id)!.parent_id !== null && inSubtree(byId.get(id)!.parent_id!, root));
  const sign = (a: Account) => (SECTION_OF[a.account_type] === 'assets' ? 1 : -1);
  const sum = (pred: (l: (typeof lines)[number]) => boolean) => {
    const hits = lines.filter(pred);
    return hits.length ? hits.reduce((s, l) => s + l.net, 0) : null;
  };
  const signed = (k: number, v: number | null) => (v === null ? null : k * v + 0);
  const fyBegin = (d: string) => {
    const y = Number(d.slice(0, 4));
    const m = Number(d.slice(5, 7));
    return `${m >= fyStart ? y : y - 1}-${String(fyStart).padStart(2, '0')}-01`;
  };
  let cells = 0;
  const last = sheet.periods[sheet.periods.length - 1]!;
  const expectedIds = new Set(
    accounts
      .filter(
        (a) =>
          SECTION_OF[a.account_type] !== 'pl' &&
          lines.some((l) => l.date <= last.end_date && inSubtree(l.account, a.id)),
      )
      .map((a) => a.id),
  );
  const seen = new Set<string>();
  const visit = (n: Node) => {
    for (const p of sheet.periods) {
      const within = (l: (typeof lines)[number]) => l.date >= p.start_date && l.date <= p.end_date;
      if (n.account_kind === 'regular') {
        const a = byId.get(n.account_id!)!;
        const own = sum((l) => l.account === a.id && l.date <= p.end_date);
        const all = sum((l) => inSubtree(l.account, a.id) && l.date <= p.end_date);
        expect(n.own_balances[p.id], `${n.name} own ${p.id}`).toBe(signed(sign(a), own));
        expect(n.balances[p.id], `${n.name} ${p.id}`).toBe(signed(sign(a), all));
        expect(n.transaction_counts[p.id]).toBe(
          lines.filter((l) => inSubtree(l.account, a.id) && within(l)).length,
        );
      } else if (n.account_kind === 'type_group') {
        const members = accounts.filter(
          (a) =>
            SECTION_OF[a.account_type] !== 'pl' &&
            n.children.some((c) => c.account_id === top(a).id),
        );
        const s = sum((l) => members.some((a) => a.id === l.account) && l.date <= p.end_date);
        const sg = members[0] ? sign(members[0]) : 1;
        expect(n.balances[p.id], `${n.name} ${p.id}`).toBe(signed(sg, s));
        expect(n.own_balances[p.id]).toBeNull();
      } else {
        const pl = (l: (typeof lines)[number]) =>
          SECTION_OF[byId.get(l.account)!.account_type] === 'pl';
        const fy = fyBegin(p.end_date);
        const s =
          n.account_kind === 'retained_earnings'
            ? sum((l) => pl(l) && l.date < fy)
            : sum((l) => pl(l) && l.date >= fy && l.date <= p.end_date);
        expect(n.balances[p.id], `${n.name} ${p.id}`).toBe(signed(-1, s));
        expect(n.own_balances[p.id]).toBeNull();
      }
      cells++;
    }
    if (n.account_id) seen.add(n.account_id);
    n.children.forEach(visit);
  };
  for (const s of sheet.sections) {
    for (const p of sheet.periods) {
      const members = (l: (typeof lines)[number]) => {
        const sec = SECTION_OF[byId.get(l.account)!.account_type];
        return sec === s.account_type || (s.account_type === 'equity' && sec === 'pl');
      };
      const total = sum((l) => members(l) && l.date <= p.end_date);
      const childCells = s.children.map((c) => c.balances[p.id]);
      const expected = childCells.every((c) => c === null)
        ? null
        : signed(s.account_type === 'assets' ? 1 : -1, total ?? 0);
      expect(s.balances[p.id], `${s.label} ${p.id}`).toBe(expected);
    }
    s.children.forEach(visit);
  }
  expect([...seen].sort()).toEqual([...expectedIds].sort());
  // The accounting equation, in every column.
  for (const p of sheet.periods) {
    const [a, l, e] = ['assets', 'liabilities', 'equity'].map(
      (t) => sheet.sections.find((s) => s.account_type === t)!.balances[p.id] ?? 0,
    );
    expect(a, `equation ${p.id}`).toBe(l! + e!);
  }
  return cells;
}

async function sheetOf(
  run: (args: string[]) => Promise<RunResult>,
  args: string[],
): Promise<Sheet> {
  const r = await run(['report', 'balance-sheet', ...args, '--format', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Sheet;
}

async function ledgerFacts(run: (args: string[]) => Promise<RunResult>) {
  const accounts = (
    JSON.parse((await run(['accounts', 'list', '--format', 'json'])).stdout) as { data: Account[] }
  ).data;
  const entries = (
    JSON.parse((await run(['je', 'list', '--format', 'json'])).stdout) as { data: Entry[] }
  ).data;
  return { accounts, entries };
}

describe('balance sheet figures', () => {
  let calendar: Awaited<ReturnType<typeof demoLedger>>;
  let fiscal: Awaited<ReturnType<typeof demoLedger>>;
  beforeAll(async () => {
    [calendar, fiscal] = await Promise.all([demoLedger(), demoLedger({ fiscalYearStartMonth: 4 })]);
    // A second year, so that retained earnings and a reversal appear.
    for (const l of [calendar, fiscal]) {
      expect(
        (
          await l.run([
            'je',
            'post',
            '--date',
            '2026-01-15',
            '--debit',
            'rent=3000',
            '--credit',
            'checking=3000',
          ])
        ).exitCode,
      ).toBe(0);
      expect(
        (
          await l.run([
            'je',
            'post',
            '--date',
            '2026-02-10',
            '--debit',
            'ar=500@customer:C002',
            '--credit',
            'sales=500',
          ])
        ).exitCode,
      ).toBe(0);
      expect((await l.run(['je', 'reverse', 'JE-2', '--date', '2026-02-11'])).exitCode).toBe(0);
    }
  });

  it.each([
    [
      'monthly, clipped at both ends',
      ['--start', '2025-01-15', '--end', '2025-11-20', '--period', 'monthly'],
    ],
    [
      'quarterly over two years',
      ['--start', '2025-01-01', '--end', '2026-03-31', '--period', 'quarterly'],
    ],
    [
      'yearly, starting before the books',
      ['--start', '2023-06-01', '--end', '2026-12-31', '--period', 'yearly'],
    ],
    ['monthly, one clipped column', ['--start', '2026-02-11', '--end', '2026-02-11']],
  ])('every cell matches the lines: calendar year, %s', async (_n, args) => {
    const sheet = await sheetOf(calendar.run, args);
    const cells = crossCheck(
      sheet,
      ...(Object.values(await ledgerFacts(calendar.run)) as [Account[], Entry[]]),
      1,
    );
    expect(cells).toBeGreaterThan(sheet.periods.length * 20);
  });

  it.each([
    ['quarterly', ['--start', '2025-02-10', '--end', '2026-03-31', '--period', 'quarterly']],
    ['yearly', ['--start', '2025-01-01', '--end', '2026-12-31', '--period', 'yearly']],
    ['monthly', ['--start', '2025-03-01', '--end', '2025-05-31']],
  ])('every cell matches the lines: fiscal year from April, %s', async (_n, args) => {
    const sheet = await sheetOf(fiscal.run, args);
    crossCheck(sheet, ...(Object.values(await ledgerFacts(fiscal.run)) as [Account[], Entry[]]), 4);
    const equity = sheet.sections.find((s) => s.account_type === 'equity')!;
    expect(equity.children.map((c) => c.account_kind)).toContain('retained_earnings');
  });

  it('shows null before an account is first used and a number after; 0 where postings net to zero', async () => {
    const sheet = await sheetOf(calendar.run, ['--start', '2025-01-01', '--end', '2025-12-31']);
    const find = (nodes: Node[], name: string): Node | undefined =>
      nodes.flatMap((n) =>
        n.name === name ? [n] : [find(n.children, name)].filter((x): x is Node => !!x),
      )[0];
    const all = sheet.sections.flatMap((s) => s.children);
    const draws = find(all, "Owner's Draws")!;
    expect(Object.values(draws.balances)).toEqual([
      null,
      null,
      null,
      null,
      null,
      -500000,
      -500000,
      -500000,
      -500000,
      -500000,
      -500000,
      -1000000,
    ]);
    const ap = find(all, 'Accounts Payable')!;
    expect(Object.values(ap.balances).every((v) => v === 0)).toBe(true);
    expect(find(all, 'Retained Earnings')).toBeUndefined();
    expect(find(all, 'Old Cash Register')).toBeUndefined();
  });

  it('refuses a window over 5 years (CAPI69, exit 1) and bad flags (exit 2)', async () => {
    const ok = await calendar.run([
      'report',
      'balance-sheet',
      '--start',
      '2021-01-01',
      '--end',
      '2025-12-31',
      '--period',
      'yearly',
    ]);
    expect(ok.exitCode).toBe(0);
    const long = await calendar.run([
      'report',
      'balance-sheet',
      '--start',
      '2021-01-01',
      '--end',
      '2026-01-01',
    ]);
    expect(long.exitCode).toBe(1);
    expect(long.stderr).toContain('error CAPI69');
    for (const [args, text] of [
      [['--end', '2025-02-30'], "--end: '2025-02-30' is not a date"],
      [
        ['--start', '2025-06-01', '--end', '2025-05-31'],
        'end_date 2025-05-31 is before start_date 2025-06-01',
      ],
      [['--period', 'weekly'], "argument 'weekly' is invalid"],
      [['--depth', '-1'], '--depth'],
    ] as const) {
      const r = await calendar.run(['report', 'balance-sheet', ...args]);
      expect(r.exitCode, `${args}`).toBe(2);
      expect(r.stderr).toContain(text);
    }
  });

  it('an empty ledger reports empty sections that still balance', async () => {
    const { run } = await standardLedger();
    const sheet = await sheetOf(run, ['--start', '2025-01-01', '--end', '2025-03-31']);
    expect(
      sheet.sections.map((s) => [s.account_type, s.children.length, Object.values(s.balances)]),
    ).toEqual([
      ['assets', 0, [null, null, null]],
      ['liabilities', 0, [null, null, null]],
      ['equity', 0, [null, null, null]],
    ]);
    const table = await run([
      'report',
      'balance-sheet',
      '--start',
      '2025-01-01',
      '--end',
      '2025-03-31',
    ]);
    expect(table.stdout).toContain('Total Liabilities and Equity');
    // A blank cell means nothing was posted, as in the JSON's null: totals too, never 0.00.
    expect(table.stdout).toMatch(/^Total Liabilities$/m);
    expect(table.stdout).toMatch(/^Total Liabilities and Equity$/m);
    expect(table.stdout).not.toContain('0.00');
  });
});

describe('balance sheet golden files (demo ledger, quarterly, clipped window)', () => {
  let demo: Awaited<ReturnType<typeof demoLedger>>;
  const args = [
    'report',
    'balance-sheet',
    '--start',
    '2025-01-15',
    '--end',
    '2025-11-20',
    '--period',
    'quarterly',
  ];
  beforeAll(async () => {
    demo = await demoLedger();
  });

  /** Account ids are random per ledger; name them by account number so the file is stable. */
  async function stableIds(text: string): Promise<string> {
    const { accounts } = await ledgerFacts(demo.run);
    return accounts.reduce(
      (t, a) => t.replaceAll(`"${a.id}"`, `"id-of-${a.account_number}"`),
      text,
    );
  }

  it.each([
    ['table', 'balance-sheet.txt', [] as string[]],
    ['table split to fit 72 columns, depth 2', 'balance-sheet-narrow.txt', ['--depth', '2']],
    ['table split to fit 80 columns', 'balance-sheet-80.txt', []],
    ['table split to fit 120 columns', 'balance-sheet-120.txt', []],
    ['csv', 'balance-sheet.csv', ['--format', 'csv']],
    ['csv in atoms', 'balance-sheet-atoms.csv', ['--format', 'csv', '--atoms']],
    ['json', 'balance-sheet.json', ['--format', 'json']],
  ])('%s', async (name, file, extra) => {
    const r = await demo.run([...args, ...extra], undefined);
    expect(r.exitCode, r.stderr).toBe(0);
    let out = r.stdout;
    if (name.startsWith('table split')) {
      const columns = Number(/fit (\d+)/.exec(name)![1]);
      const narrow = await import('../support/helpers.js').then((h) =>
        h.books([...args, ...extra, '--ledger', demo.ledger], {
          cwd: demo.dir,
          env: { COLUMNS: String(columns) },
        }),
      );
      out = narrow.stdout;
      expect(Math.max(...out.split('\n').map((l) => l.length))).toBeLessThanOrEqual(columns);
    }
    if (file.endsWith('.json')) out = await stableIds(out);
    const golden = join(FIXTURES, 'golden', file);
    // UPDATE_GOLDEN=1 rewrites the files after a deliberate change to the output; review the diff.
    if (process.env.UPDATE_GOLDEN) writeFileSync(golden, out);
    expect(out).toBe(readFileSync(golden, 'utf8'));
  });

  it('--output writes the same bytes to a file', async () => {
    const out = join(demo.dir, 'bs.csv');
    const r = await demo.run([...args, '--format', 'csv', '--output', out]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(
      readFileSync(join(FIXTURES, 'golden', 'balance-sheet.csv'), 'utf8'),
    );
  });
});
