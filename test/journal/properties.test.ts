import fc from 'fast-check';
import { entry } from '../support/arbitraries.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cell } from '../../src/domain/balanceSheet.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';

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
