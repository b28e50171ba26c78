import { describe, expect, it } from 'vitest';
import {
  checkReportQuery,
  fiscalYearStart,
  fiveYearsAfter,
  splitPeriods,
  windowTooLong,
} from '../../src/domain/periods.js';
import { dayAfter, dayBefore } from '../../src/domain/dates.js';

const brief = (start: string, end: string, type: 'monthly' | 'quarterly' | 'yearly', fy = 1) =>
  splitPeriods(start, end, type, fy).map((p) => `${p.id}|${p.label}|${p.start_date}|${p.end_date}`);

describe('splitPeriods', () => {
  it('clips the first and last months to the window', () => {
    expect(brief('2026-01-15', '2026-03-10', 'monthly')).toEqual([
      '2026-01|Jan 2026|2026-01-15|2026-01-31',
      '2026-02|Feb 2026|2026-02-01|2026-02-28',
      '2026-03|Mar 2026|2026-03-01|2026-03-10',
    ]);
  });

  it('ends February on the 29th in a leap year', () => {
    expect(brief('2024-02-01', '2024-02-29', 'monthly')).toEqual([
      '2024-02|Feb 2024|2024-02-01|2024-02-29',
    ]);
    expect(brief('2100-02-01', '2100-03-01', 'monthly')[0]).toBe(
      '2100-02|Feb 2100|2100-02-01|2100-02-28',
    );
  });

  it('makes calendar quarters and years, clipped', () => {
    expect(brief('2025-02-10', '2025-08-05', 'quarterly')).toEqual([
      '2025-Q1|Q1 2025|2025-02-10|2025-03-31',
      '2025-Q2|Q2 2025|2025-04-01|2025-06-30',
      '2025-Q3|Q3 2025|2025-07-01|2025-08-05',
    ]);
    expect(brief('2024-06-30', '2026-01-01', 'yearly')).toEqual([
      '2024|2024|2024-06-30|2024-12-31',
      '2025|2025|2025-01-01|2025-12-31',
      '2026|2026|2026-01-01|2026-01-01',
    ]);
  });

  it('makes fiscal quarters and years named by the year they end in', () => {
    expect(brief('2025-03-15', '2026-05-31', 'yearly', 4)).toEqual([
      '2025|FY2025|2025-03-15|2025-03-31',
      '2026|FY2026|2025-04-01|2026-03-31',
      '2027|FY2027|2026-04-01|2026-05-31',
    ]);
    expect(brief('2025-04-01', '2025-12-31', 'quarterly', 4)).toEqual([
      '2026-Q1|Q1 FY2026|2025-04-01|2025-06-30',
      '2026-Q2|Q2 FY2026|2025-07-01|2025-09-30',
      '2026-Q3|Q3 FY2026|2025-10-01|2025-12-31',
    ]);
    expect(brief('2026-01-01', '2026-03-31', 'quarterly', 4)).toEqual([
      '2026-Q4|Q4 FY2026|2026-01-01|2026-03-31',
    ]);
    expect(brief('2025-11-20', '2026-02-02', 'quarterly', 11).map((s) => s.split('|')[0])).toEqual([
      '2026-Q1',
      '2026-Q2',
    ]);
  });

  it('keeps monthly columns calendar months whatever the fiscal year', () => {
    expect(brief('2025-03-01', '2025-04-30', 'monthly', 4)).toEqual(
      brief('2025-03-01', '2025-04-30', 'monthly', 1),
    );
  });

  it.each([
    ['2021-01-01', '2025-12-31', 'monthly', 1],
    ['2024-02-29', '2029-02-27', 'quarterly', 7],
    ['2023-05-17', '2023-05-17', 'yearly', 1],
    ['2020-12-31', '2025-06-01', 'yearly', 10],
  ] as const)(
    'covers %s..%s (%s, fiscal start %i) exactly once, in order',
    (start, end, type, fy) => {
      const ps = splitPeriods(start, end, type, fy);
      expect(ps[0]!.start_date).toBe(start);
      expect(ps[ps.length - 1]!.end_date).toBe(end);
      for (let i = 1; i < ps.length; i++)
        expect(ps[i]!.start_date).toBe(dayAfter(ps[i - 1]!.end_date));
      for (const p of ps) expect(p.start_date <= p.end_date).toBe(true);
      expect(new Set(ps.map((p) => p.id)).size).toBe(ps.length);
    },
  );
});

describe('the 5-year rule (CAPI69)', () => {
  it('allows up to the day before start + 5 years and refuses that day', () => {
    expect(windowTooLong('2021-01-01', '2025-12-31')).toBe(false);
    expect(windowTooLong('2021-01-01', '2026-01-01')).toBe(true);
    expect(windowTooLong('2021-06-15', '2026-06-14')).toBe(false);
    expect(windowTooLong('2021-06-15', '2026-06-15')).toBe(true);
  });

  it('takes 29 February + 5 years as 28 February', () => {
    expect(fiveYearsAfter('2024-02-29')).toBe('2029-02-28');
    expect(windowTooLong('2024-02-29', '2029-02-27')).toBe(false);
    expect(windowTooLong('2024-02-29', '2029-02-28')).toBe(true);
    expect(windowTooLong('2023-02-28', '2028-02-27')).toBe(false);
    expect(windowTooLong('2023-02-28', '2028-02-28')).toBe(true);
  });
});

describe('fiscal year and day arithmetic', () => {
  it('finds the fiscal year start', () => {
    expect(fiscalYearStart('2025-03-31', 4)).toBe('2024-04-01');
    expect(fiscalYearStart('2025-04-01', 4)).toBe('2025-04-01');
    expect(fiscalYearStart('2025-12-31', 1)).toBe('2025-01-01');
  });

  it('steps days over month, year and leap edges', () => {
    expect(dayBefore('2024-03-01')).toBe('2024-02-29');
    expect(dayBefore('2025-01-01')).toBe('2024-12-31');
    expect(dayAfter('2024-02-28')).toBe('2024-02-29');
    expect(dayAfter('2023-02-28')).toBe('2023-03-01');
  });
});

describe('checkReportQuery', () => {
  it('defaults the period type to monthly and checks each parameter', () => {
    expect(checkReportQuery({ start_date: '2025-01-01', end_date: '2025-03-31' })).toEqual({
      query: { start_date: '2025-01-01', end_date: '2025-03-31', period_type: 'monthly' },
    });
    const bad = checkReportQuery({ start_date: '2025-02-30', period_type: 'weekly' });
    expect('problems' in bad && bad.problems.map((p) => `${p.path}:${p.reason}`)).toEqual([
      'start_date:invalid_date',
      'end_date:missing_parameter',
      'period_type:invalid_period_type',
    ]);
    const backwards = checkReportQuery({ start_date: '2025-02-01', end_date: '2025-01-31' });
    expect('problems' in backwards && backwards.problems[0]!.reason).toBe('end_before_start');
  });
});
