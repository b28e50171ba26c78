import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CashFlowStatement } from '../../src/domain/cashFlow.js';
import type { JournalEntry } from '../../src/domain/entry.js';
import type { Ledger } from '../../src/ledger/port.js';
import type { ReportQuery } from '../../src/domain/periods.js';
import { entry } from '../support/arbitraries.js';
import { oracleCashFlow } from '../support/cashFlowOracle.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';

const big = (v: number | bigint | null | undefined) => BigInt(v ?? 0);

async function entriesOf(store: Ledger): Promise<JournalEntry[]> {
  const out: JournalEntry[] = [];
  for await (const e of store.journal.list({})) out.push(e);
  return out;
}

/**
 * What a cash-flow statement must be, column by column: cash at beginning plus the net change is
 * cash at end, which is the balance sheet's cash; the net change is the three sections; Net Income
 * is the income statement's; and every account's row is what the journal's lines say.
 */
export async function expectSound(
  ledger: Ledger,
  store: Ledger,
  q: ReportQuery,
): Promise<CashFlowStatement> {
  const [cf, is, bs, accounts, entries] = await Promise.all([
    ledger.reports.cashFlow(q),
    ledger.reports.incomeStatement(q),
    ledger.reports.balanceSheet(q),
    ledger.chart.accounts(),
    entriesOf(store),
  ]);
  const oracle = oracleCashFlow(entries, accounts, cf.periods);
  const summary = (kind: string) => cf.summary.find((s) => s.kind === kind)!.amounts;
  const netIncome = is.summary.find((s) => s.account_kind === 'net_income')!.amounts;
  const bank = bs.sections[0]!.children.find((g) => g.name === 'Bank');
  for (const p of cf.periods) {
    const sections = cf.sections.reduce((sum, s) => sum + big(s.total.amounts[p.id]), 0n);
    expect(big(summary('net_change_in_cash')[p.id])).toBe(sections);
    expect(big(summary('cash_beginning')[p.id]) + sections).toBe(big(summary('cash_end')[p.id]));
    expect(big(summary('cash_end')[p.id])).toBe(big(bank?.balances[p.id]));
    expect(big(summary('cash_end')[p.id])).toBe(oracle.cashAtEnd[p.id]);
    expect(big(summary('cash_beginning')[p.id])).toBe(oracle.cashAtStart[p.id]);
    expect(cf.sections[0]!.rows[0]!.amounts[p.id]).toBe(netIncome[p.id]);
    expect(big(netIncome[p.id])).toBe(oracle.netIncome[p.id]);
  }
  for (const s of cf.sections) {
    const got: Record<string, Record<string, bigint>> = {};
    for (const r of s.rows.filter((r) => r.kind === 'account')) {
      got[r.account_id!] = {};
      for (const p of cf.periods)
        if (r.amounts[p.id] !== null) got[r.account_id!]![p.id] = big(r.amounts[p.id]);
    }
    expect(got).toEqual(oracle.rows[s.kind] ?? {});
    for (const p of cf.periods) {
      const rows = s.rows.reduce((sum, r) => sum + big(r.amounts[p.id]), 0n);
      expect(big(s.total.amounts[p.id])).toBe(rows);
    }
  }
  return cf;
}

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'the cash-flow statement on %s (property)',
  (_name, fixture) => {
    let L: FixtureLedger;
    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
    });
    afterAll(async () => L?.close());

    it('holds cash at beginning + net change = cash at end = the balance sheet; agrees with the journal', async () => {
      let key = 0;
      const periods = fc.constantFrom('monthly', 'quarterly', 'yearly') as fc.Arbitrary<
        ReportQuery['period_type']
      >;
      await fc.assert(
        fc.asyncProperty(
          fc.array(entry, { minLength: 1, maxLength: 6 }),
          periods,
          fc.integer({ min: 1, max: 12 }),
          async (entries, period_type, from) => {
            for (const e of entries)
              await L.ledger.journal.post(e, { idempotencyKey: `cf-${++key}` });
            const start_date = `2025-${String(from).padStart(2, '0')}-01`;
            await expectSound(L.ledger, L.store, {
              start_date,
              end_date: '2025-12-31',
              period_type,
            });
          },
        ),
        { seed: 20261126, numRuns: 20 },
      );
    });

    it('compares with the previous period, and refuses a budget', async () => {
      const q: ReportQuery = {
        start_date: '2025-04-01',
        end_date: '2025-06-30',
        period_type: 'monthly',
        compare: ['previous-period'],
      };
      const cf = await expectSound(L.ledger, L.store, q);
      expect(cf.comparisons?.map((c) => c.against)).toEqual(['2025-03', '2025-04', '2025-05']);
      await expect(L.ledger.reports.cashFlow({ ...q, compare: ['budget'] })).rejects.toMatchObject({
        code: 'invalid_parameters',
      });
    });
  },
);
