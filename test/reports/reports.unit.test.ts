import { glTableWriter, wrap } from '../../src/render/generalLedger.js';
import {
  generalLedgerEvents,
  type GlEvent,
  type GlLineRow,
} from '../../src/domain/generalLedger.js';
import { describe, expect, it } from 'vitest';
import { buildBalanceSheet, cutDates } from '../../src/domain/balanceSheet.js';
import { splitPeriods } from '../../src/domain/periods.js';
import type { ReportAccount } from '../../src/domain/statement.js';
import { cumulate, partialCuts, type Cumulative } from '../../src/domain/totals.js';

const account = (
  key: number,
  type: ReportAccount['account_type'],
  parent: number | null = null,
  number = String(1000 + key),
): ReportAccount => ({
  key,
  id: `acct_${key}`,
  external_id: `a${key}`,
  account_number: number,
  name: `Account ${key}`,
  account_type: type,
  parent_key: parent,
  is_postable: true,
});

/** Cumulative totals at each cut from dated postings (debit positive), as a store would sum them. */
function totalsAt(cuts: string[], postings: [number, string, number][]): Map<number, Cumulative> {
  const out = new Map<number, Cumulative>();
  for (const key of new Set(postings.map(([k]) => k))) {
    const mine = postings.filter(([k]) => k === key);
    out.set(key, {
      net: cuts.map((d) =>
        mine.filter(([, date]) => date <= d).reduce((s, [, , n]) => s + BigInt(n), 0n),
      ),
      count: cuts.map((d) => mine.filter(([, date]) => date <= d).length),
    });
  }
  return out;
}

function sheet(
  accounts: ReportAccount[],
  postings: [number, string, number][],
  start: string,
  end: string,
  fy = 1,
) {
  const periods = splitPeriods(start, end, 'monthly', fy);
  const cuts = cutDates(periods, fy);
  return buildBalanceSheet({
    accounts,
    periods,
    fiscalYearStartMonth: fy,
    currency: 'USD',
    cuts,
    totals: totalsAt(cuts, postings),
  });
}

describe('buildBalanceSheet', () => {
  const chart = [
    account(1, 'bank'),
    account(2, 'bank', 1),
    account(3, 'equity'),
    account(4, 'income'),
    account(5, 'expense'),
    account(6, 'accounts_payable'),
  ];

  it('nests accounts under type groups and parents, with own and total balances, credit-positive on the right', () => {
    const s = sheet(
      chart,
      [
        [2, '2025-01-10', 500],
        [3, '2025-01-10', -500],
        [2, '2025-02-03', 100],
        [4, '2025-02-03', -100],
      ],
      '2025-01-01',
      '2025-02-28',
    );
    const [assets, liabilities, equity] = s.sections;
    expect(assets!.balances).toEqual({ '2025-01': 500, '2025-02': 600 });
    const bank = assets!.children[0]!;
    expect(bank).toMatchObject({
      name: 'Bank',
      account_kind: 'type_group',
      balances: { '2025-02': 600 },
    });
    expect(bank.children[0]).toMatchObject({
      account_number: '1001',
      own_balances: { '2025-01': null },
      balances: { '2025-01': 500 },
    });
    expect(bank.children[0]!.children[0]).toMatchObject({
      own_balances: { '2025-02': 600 },
      transaction_counts: { '2025-01': 1, '2025-02': 1 },
    });
    expect(liabilities!.children).toEqual([]);
    expect(liabilities!.balances).toEqual({ '2025-01': null, '2025-02': null });
    expect(equity!.children.map((c) => [c.name, c.balances])).toEqual([
      ['Equity', { '2025-01': 500, '2025-02': 500 }],
      ['Net Income', { '2025-01': null, '2025-02': 100 }],
    ]);
  });

  it('puts profit and loss before the fiscal year in retained earnings, and the year to date in net income', () => {
    const s = sheet(
      chart,
      [
        [2, '2024-12-31', 70],
        [4, '2024-12-31', -70],
        [2, '2025-01-02', 30],
        [5, '2025-01-02', 10],
        [4, '2025-01-02', -40],
      ],
      '2025-01-01',
      '2025-01-31',
    );
    const equity = s.sections[2]!;
    expect(equity.children.map((c) => [c.account_kind, c.balances['2025-01']])).toEqual([
      ['retained_earnings', 70],
      ['net_income', 30],
    ]);
    expect(s.sections[0]!.balances['2025-01']).toBe(100);
  });

  it('leaves out accounts with nothing on or before the window end, and keeps 0 apart from null', () => {
    const s = sheet(
      chart,
      [
        [2, '2025-01-05', 5],
        [2, '2025-01-06', -5],
        [3, '2025-01-05', -5],
        [3, '2025-01-06', 5],
        [6, '2025-03-01', -9],
      ],
      '2025-01-01',
      '2025-01-31',
    );
    expect(s.sections[0]!.balances).toEqual({ '2025-01': 0 });
    expect(s.sections[1]!.children).toEqual([]);
  });

  it('sums beyond 2^53 exactly (bigint cells)', () => {
    const big = Number.MAX_SAFE_INTEGER;
    const s = sheet(
      chart,
      [
        [2, '2025-01-01', big],
        [2, '2025-01-02', big],
        [3, '2025-01-01', -big],
        [3, '2025-01-02', -big],
      ],
      '2025-01-01',
      '2025-01-31',
    );
    expect(s.sections[0]!.balances['2025-01']).toBe(2n * BigInt(big));
  });
});

describe('cumulate (the store sums months; the domain carries them to cut dates)', () => {
  it('adds whole months before a cut and the partial month up to it', () => {
    const cuts = ['2025-01-31', '2025-02-14', '2025-03-31'];
    expect(partialCuts(cuts)).toEqual([{ cut: '2025-02-14', from: '2025-02-01' }]);
    const months = [
      { month: '2025-01', net: 10n, count: 1 },
      { month: '2025-02', net: 20n, count: 2 },
      { month: '2025-03', net: 30n, count: 3 },
    ];
    const partial = (cut: string) => (cut === '2025-02-14' ? { net: 5n, count: 1 } : undefined);
    expect(cumulate(months, cuts, partial, (c) => c === '2025-02-14')).toEqual({
      net: [10n, 15n, 60n],
      count: [1, 2, 6],
    });
  });
});

describe('the general ledger table', () => {
  const head = {
    entity: 'E',
    start_date: '2025-01-01',
    end_date: '2025-12-31',
    reporting_currency: 'USD',
  };
  const line = {
    kind: 'line' as const,
    at: { key: 1, date: '2025-02-01', seq: 1, line_no: 1, balance: 0n, debits: 0n, credits: 0n },
    line: {
      entry_id: 'je_1',
      je_number: 'JE-1',
      entry_date: '2025-02-01',
      memo: 'A memo far longer than the thirty characters of its column',
      line_memo: null,
      counterparty_type: null,
      counterparty_external_id: null,
      counterparty_name: null,
      debit: 100,
      credit: null,
      balance: 100,
    },
  };
  it('cuts a long memo to its column on a terminal, and wraps it whole anywhere else', () => {
    const fitted = glTableWriter(head, 2, true).event(line as GlEvent);
    expect(fitted.split('\n')).toHaveLength(2);
    expect(fitted).toContain('A memo far longer than the th…');
    const whole = glTableWriter(head, 2, false).event(line as GlEvent);
    expect(whole.split('\n').length).toBeGreaterThan(2);
    expect(whole).not.toContain('…');
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrap('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
  });
});

describe('the general ledger as a stream', () => {
  it('closes the store’s lines when its reader stops early (a page of the API)', async () => {
    let closed = false;
    async function* lines(): AsyncGenerator<GlLineRow[]> {
      try {
        for (let n = 1; n <= 3; n++)
          yield [
            {
              key: 1,
              entry_id: `je_${n}`,
              je_number: `JE-${n}`,
              entry_date: '2025-01-0' + n,
              memo: null,
              line_memo: null,
              counterparty_type: null,
              counterparty_external_id: null,
              counterparty_name: null,
              line_type: 'debit',
              amount_atoms: 100,
              seq: n,
              line_no: 1,
            },
          ];
      } finally {
        closed = true;
      }
    }
    const account = {
      key: 1,
      account_id: 'acct_1',
      account_number: '1000',
      name: 'Cash',
      account_type: 'bank' as const,
      opening: null,
      fiscalYearStartMonth: null,
    };
    const window = { start: '2025-01-01', end: '2025-01-31' };
    for await (const e of generalLedgerEvents([account], lines(), window))
      if (e.kind === 'line') break;
    expect(closed).toBe(true);
  });
});
