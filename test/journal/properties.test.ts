import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cell } from '../../src/domain/balanceSheet.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';

// Every postable account of the standard chart, with the counterparty its lines need.
const ACCOUNTS: [string, string | null][] = [
  ['checking', null],
  ['savings', null],
  ['petty-cash', null],
  ['ar', 'customer'],
  ['inventory', null],
  ['prepaid', null],
  ['equipment', null],
  ['vehicles', null],
  ['accum-depr', null],
  ['deposits', null],
  ['ap', 'vendor'],
  ['credit-card', null],
  ['payroll-liab', null],
  ['sales-tax', null],
  ['loan', null],
  ['capital', null],
  ['draws', null],
  ['opening-equity', null],
  ['sales', null],
  ['services', null],
  ['interest-income', null],
  ['cogs', null],
  ['rent', null],
  ['utilities', null],
  ['payroll', null],
  ['office', null],
  ['software', null],
  ['insurance', null],
  ['depreciation', null],
  ['bank-fees', null],
  ['interest-expense', null],
];
const COUNTERPARTIES: Record<string, string[]> = {
  customer: ['C001', 'C002', 'C003', 'C004'],
  vendor: ['V001', 'V002', 'V003', 'V004'],
};

const line = fc.tuple(fc.constantFrom(...ACCOUNTS), fc.nat({ max: 3 }));
const entry = fc
  .record({
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    debits: fc.array(fc.tuple(line, fc.integer({ min: 1, max: 10 ** 9 })), {
      minLength: 1,
      maxLength: 5,
    }),
    credit: line,
  })
  .map(({ month, day, debits, credit }) => {
    const total = debits.reduce((s, [, a]) => s + a, 0);
    return {
      entry_date: `2025-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      lines: [
        ...debits.map(([l, amount]) => ({
          ...account(l),
          line_type: 'debit',
          amount_atoms: amount,
        })),
        { ...account(credit), line_type: 'credit', amount_atoms: total },
      ],
    };
  });

/** A line's account, with a counterparty of the type its account needs. */
function account([[id, cpType], i]: [[string, string | null], number]): Record<string, unknown> {
  return {
    gl_account_id: id,
    ...(cpType
      ? { counterparty_type: cpType, counterparty_external_id: COUNTERPARTIES[cpType]![i]! }
      : {}),
  };
}

const n = (c: Cell | undefined) => BigInt(c ?? 0);

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'posting random balanced entries on %s (property)',
  (_name, fixture) => {
    let L: FixtureLedger;
    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
    });
    afterAll(async () => L?.close());

    it('always posts them, and assets equal liabilities plus equity in every column, with check passing', async () => {
      let posted = 0;
      let key = 0;
      const ledger = L.ledger;
      await fc.assert(
        fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 8 }), async (entries) => {
          // Posted together: one transaction, a savepoint each (group commit).
          const results = await Promise.all(
            entries.map((e) => ledger.journal.post(e, { idempotencyKey: `prop-${++key}` })),
          );
          posted += results.length;
          expect(results.every((r) => r.status === 'posted')).toBe(true);
          for (const period_type of ['monthly', 'quarterly'] as const) {
            const sheet = await ledger.reports.balanceSheet({
              start_date: '2025-01-01',
              end_date: '2025-12-31',
              period_type,
            });
            const [assets, liabilities, equity] = sheet.sections;
            for (const p of sheet.periods)
              expect(n(assets!.balances[p.id])).toBe(
                n(liabilities!.balances[p.id]) + n(equity!.balances[p.id]),
              );
          }
          expect(await L.check()).toEqual([]);
        }),
        { seed: 20261122, numRuns: 40 },
      );
      const numbers: string[] = [];
      for await (const e of L.store.journal.list({})) numbers.push(e.je_number);
      expect(numbers).toHaveLength(posted);
      expect(new Set(numbers)).toEqual(
        new Set(Array.from({ length: posted }, (_, i) => `JE-${i + 1}`)),
      );
    });
  },
);
