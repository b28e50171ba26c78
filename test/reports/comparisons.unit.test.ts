import { describe, expect, it } from 'vitest';
import { comparedCells, comparedColumns, percent } from '../../src/domain/compare.js';
import { shiftMonths } from '../../src/domain/dates.js';
import { occurrences } from '../../src/domain/recurring.js';
import { splitPeriods } from '../../src/domain/periods.js';
import { BudgetCells } from '../../src/domain/budget.js';
import type { ReportAccount } from '../../src/domain/statement.js';

describe('Change and % Change', () => {
  it.each([
    // actual, base, change, % change
    [150n, 100n, 50n, '50.0%'],
    [50n, 100n, -50n, '-50.0%'],
    // A negative base: the change is read against its size, so a smaller loss is an improvement.
    [-50n, -100n, 50n, '50.0%'],
    [-150n, -100n, -50n, '-50.0%'],
    [100n, -100n, 200n, '200.0%'],
    // A zero or missing base: the change is what there is, the percentage blank.
    [100n, 0n, 100n, null],
    [100n, null, 100n, null],
    [null, 100n, -100n, '-100.0%'],
    [null, null, null, null],
    // One decimal, rounded half away from zero, exactly.
    [1n, 3n, -2n, '-66.7%'],
    [2n, 3n, -1n, '-33.3%'],
    [10_001n, 10_000n, 1n, '0.0%'],
    [10_005n, 10_000n, 5n, '0.1%'],
    [9_995n, 10_000n, -5n, '-0.1%'],
  ] as const)('actual %s against %s: change %s, %s', (actual, base, change, pct) => {
    expect(comparedCells(actual, base, 'previous-year')).toEqual({ change, percent: pct });
  });

  it.each([
    [90n, 100n, -10n, '90.0%'],
    [120n, 100n, 20n, '120.0%'],
    [0n, 100n, -100n, '0.0%'],
    [50n, 0n, 50n, null],
    [50n, null, 50n, null],
    // A negative budget (a planned loss) divides as it is: % of Budget is actual over budget.
    [-50n, -100n, 50n, '50.0%'],
  ] as const)('budget: actual %s against budget %s: over %s, %s of budget', (a, b, over, pct) => {
    expect(comparedCells(a, b, 'budget')).toEqual({ change: over, percent: pct });
  });

  it('is exact beyond 2^53', () => {
    const big = 2n ** 60n;
    expect(percent(big, big * 2n, true)).toBe('50.0%');
  });
});

describe('compared periods', () => {
  it('moves a date by months, keeping month ends', () => {
    expect(shiftMonths('2024-02-29', -12)).toBe('2023-02-28');
    expect(shiftMonths('2023-02-28', 12)).toBe('2024-02-29');
    expect(shiftMonths('2025-03-31', -1)).toBe('2025-02-28');
    expect(shiftMonths('2025-03-15', -1)).toBe('2025-02-15');
    expect(shiftMonths('2025-01-30', -1)).toBe('2024-12-30');
  });

  it('pairs each period with the one before and the year before, listing each column once', () => {
    const periods = splitPeriods('2025-01-01', '2025-03-31', 'monthly');
    const { columns, comparisons } = comparedColumns(
      periods,
      ['previous-period', 'previous-year', 'budget'],
      'monthly',
      1,
    );
    expect(columns.map((c) => c.id)).toEqual([
      '2025-01',
      '2024-12',
      '2024-01',
      'budget:2025-01',
      '2025-02',
      '2024-02',
      'budget:2025-02',
      '2025-03',
      '2024-03',
      'budget:2025-03',
    ]);
    expect(comparisons.filter((c) => c.period === '2025-02')).toEqual([
      { period: '2025-02', against: '2025-01', kind: 'previous-period' },
      { period: '2025-02', against: '2024-02', kind: 'previous-year' },
      { period: '2025-02', against: 'budget:2025-02', kind: 'budget' },
    ]);
  });

  it('compares a fiscal quarter with the one before it, across the fiscal year', () => {
    const periods = splitPeriods('2025-04-01', '2025-06-30', 'quarterly', 4);
    const { columns } = comparedColumns(periods, ['previous-period'], 'quarterly', 4);
    expect(columns.map((c) => [c.id, c.start_date, c.end_date])).toEqual([
      ['2026-Q1', '2025-04-01', '2025-06-30'],
      ['2025-Q4', '2025-01-01', '2025-03-31'],
    ]);
  });

  it('compares a window cut short with the same days before', () => {
    const periods = splitPeriods('2025-03-01', '2025-03-15', 'monthly');
    const { columns } = comparedColumns(periods, ['previous-year'], 'monthly', 1);
    expect(columns[1]).toMatchObject({
      id: '2024-03',
      start_date: '2024-03-01',
      end_date: '2024-03-15',
    });
  });
});

describe('recurring occurrences', () => {
  const t = (
    every: 'month' | 'quarter' | 'year' | 'week',
    start: string,
    day: number | null,
    end: string | null = null,
  ) => ({
    name: 'x',
    every,
    day,
    start_date: start,
    end_date: end,
  });

  it('keeps month ends: the 31st is the 28th or 29th in February, the 30th in April', () => {
    expect(occurrences(t('month', '2024-01-31', 31), '2024-04-30')).toEqual([
      '2024-01-31',
      '2024-02-29',
      '2024-03-31',
      '2024-04-30',
    ]);
    expect(occurrences(t('month', '2025-01-15', 31), '2025-03-01')).toEqual([
      '2025-01-31',
      '2025-02-28',
    ]);
  });

  it('posts nothing before its start or after its end, and every quarter, year or week', () => {
    expect(occurrences(t('month', '2025-01-20', 5), '2025-03-31')).toEqual([
      '2025-02-05',
      '2025-03-05',
    ]);
    expect(occurrences(t('quarter', '2025-01-31', null, '2025-12-31'), '2026-12-31')).toEqual([
      '2025-01-31',
      '2025-04-30',
      '2025-07-31',
      '2025-10-31',
    ]);
    expect(occurrences(t('year', '2024-02-29', null), '2027-12-31')).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
    ]);
    // 2025-01-01 is a Wednesday; day 5 is Friday.
    expect(occurrences(t('week', '2025-01-01', 5), '2025-01-20')).toEqual([
      '2025-01-03',
      '2025-01-10',
      '2025-01-17',
    ]);
    expect(occurrences(t('week', '2025-01-01', null), '2025-01-15')).toEqual([
      '2025-01-01',
      '2025-01-08',
      '2025-01-15',
    ]);
  });
});

describe('budget cells', () => {
  const acct = (key: number, account_type: ReportAccount['account_type']): ReportAccount => ({
    key,
    id: `acct_${key}`,
    external_id: `a${key}`,
    account_number: null,
    name: `A${key}`,
    account_type,
    parent_key: null,
    is_postable: true,
  });
  const rows = [
    { account_key: 1, period: '2026-01', amount_atoms: 100 },
    { account_key: 1, period: '2026-02', amount_atoms: 200 },
    { account_key: 1, period: '2026-03', amount_atoms: 300 },
    { account_key: 2, period: '2026-Q1', amount_atoms: 999 },
    { account_key: 2, period: '2026-01', amount_atoms: 1 },
    { account_key: 3, period: '2026-01', amount_atoms: 5_000 },
    { account_key: 3, period: '2026-02', amount_atoms: 6_000 },
  ];
  const columns = splitPeriods('2026-01-01', '2026-06-30', 'quarterly').map((p) => ({
    ...p,
    id: `budget:${p.id}`,
    budget: true,
  }));
  const cells = new BudgetCells(rows, columns, 1);

  it('sums the months of a quarter without a row of its own; a row of its own wins', () => {
    expect(cells.cell(acct(1, 'income'), 0)).toBe(600n);
    expect(cells.cell(acct(2, 'expense'), 0)).toBe(999n);
    expect(cells.cell(acct(1, 'income'), 1)).toBe(null);
  });

  it("takes a balance-sheet account's balance at the column's end: its quarter's row, else its last month's", () => {
    const bs = new BudgetCells(
      [
        { account_key: 3, period: '2026-01', amount_atoms: 5_000 },
        { account_key: 3, period: '2026-03', amount_atoms: 6_000 },
        { account_key: 3, period: '2026-Q2', amount_atoms: 7_000 },
        { account_key: 3, period: '2026-06', amount_atoms: 1 },
      ],
      columns,
      1,
      'quarterly',
    );
    expect(bs.cell(acct(3, 'bank'), 0)).toBe(6_000n);
    expect(bs.cell(acct(3, 'bank'), 1)).toBe(7_000n);
    // A month's column takes its month's row, not the quarter's it ends.
    const june = splitPeriods('2026-06-01', '2026-06-30', 'monthly').map((p) => ({
      ...p,
      budget: true,
    }));
    const monthly = new BudgetCells(
      [
        { account_key: 3, period: '2026-Q2', amount_atoms: 7_000 },
        { account_key: 3, period: '2026-06', amount_atoms: 1 },
      ],
      june,
      1,
      'monthly',
    );
    expect(monthly.cell(acct(3, 'bank'), 0)).toBe(1n);
  });

  it("gives a balance sheet's budget net income as the fiscal year's budget to date, rows of its own first", () => {
    const accounts = [acct(1, 'income'), acct(2, 'expense'), acct(3, 'bank')];
    expect(cells.netIncome(accounts, 0)).toBe(600n - 999n);
  });

  it('counts the whole periods inside a column: quarters for a year, nothing of a year cut short', () => {
    const quarters = [
      { account_key: 1, period: '2026-Q1', amount_atoms: 10 },
      { account_key: 1, period: '2026-Q2', amount_atoms: 20 },
      { account_key: 1, period: '2026-07', amount_atoms: 1 },
      { account_key: 2, period: '2026', amount_atoms: 1_200 },
    ];
    const year = (start: string, end: string) =>
      splitPeriods(start, end, 'yearly').map((p) => ({ ...p, budget: true }));
    const whole = new BudgetCells(quarters, year('2026-01-01', '2026-12-31'), 1);
    expect(whole.cell(acct(1, 'income'), 0)).toBe(31n);
    expect(whole.cell(acct(2, 'expense'), 0)).toBe(1_200n);
    const cut = new BudgetCells(quarters, year('2026-01-01', '2026-03-31'), 1);
    expect(cut.cell(acct(1, 'income'), 0)).toBe(10n);
    expect(cut.cell(acct(2, 'expense'), 0)).toBe(null);
  });
});
