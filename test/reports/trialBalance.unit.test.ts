import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_TYPES, type AccountType } from '../../src/domain/accounts.js';
import type { ReportAccount } from '../../src/domain/statement.js';
import type { Cumulative } from '../../src/domain/totals.js';
import {
  buildTrialBalance,
  trialBalanceCuts,
  type Adjustments,
} from '../../src/domain/trialBalance.js';

const TYPES = Object.keys(ACCOUNT_TYPES) as AccountType[];

/** A two-line entry: debit one account, credit another, on a day of 2024 or 2025. */
const entry = fc.record({
  debit: fc.integer({ min: 0, max: 7 }),
  credit: fc.integer({ min: 0, max: 7 }),
  atoms: fc.integer({ min: 1, max: 1_000_000 }),
  day: fc.integer({ min: 0, max: 729 }),
  adjusting: fc.boolean(),
});

const dateOf = (day: number) => new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);

/** Per account, debits minus credits and lines through each cut, as a store sums them. */
function cumulate(
  lines: { key: number; net: bigint; date: string }[],
  cuts: string[],
): Map<number, Cumulative> {
  const out = new Map<number, Cumulative>();
  for (const l of lines) {
    const c = out.get(l.key) ?? { net: cuts.map(() => 0n), count: cuts.map(() => 0) };
    out.set(l.key, c);
    cuts.forEach((cut, i) => {
      if (l.date <= cut) {
        c.net[i]! += l.net;
        c.count[i]!++;
      }
    });
  }
  return out;
}

describe('the trial balance (buildTrialBalance)', () => {
  it('balances, and shows each account at what its lines say, however adjustments are shown', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...TYPES), { minLength: 8, maxLength: 8 }),
        fc.array(entry, { minLength: 1, maxLength: 30, size: 'max' }),
        fc.integer({ min: 0, max: 729 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom<Adjustments>('include', 'exclude', 'worksheet'),
        (types, entries, asOfDay, fy, adjustments) => {
          const accounts: ReportAccount[] = types.map((t, i) => ({
            key: i + 1,
            id: `acct_${i}`,
            external_id: `a${i}`,
            account_number: String(1000 + i),
            name: `A${i}`,
            account_type: t,
            parent_key: null,
            is_postable: true,
          }));
          const asOf = dateOf(asOfDay);
          const cuts = trialBalanceCuts(asOf, fy);
          const lines = entries.flatMap((e) => [
            { key: e.debit + 1, net: BigInt(e.atoms), date: dateOf(e.day), adj: e.adjusting },
            { key: e.credit + 1, net: -BigInt(e.atoms), date: dateOf(e.day), adj: e.adjusting },
          ]);
          const tb = buildTrialBalance({
            accounts,
            asOf,
            fiscalYearStartMonth: fy,
            currency: 'USD',
            cuts,
            totals: cumulate(lines, cuts),
            adjusting: cumulate(
              lines.filter((l) => l.adj),
              cuts,
            ),
            adjustments,
          });
          const [dr, cr] =
            adjustments === 'worksheet'
              ? ['adjusted_debit', 'adjusted_credit']
              : ['debit', 'credit'];
          expect(BigInt(tb.totals[dr]!)).toBe(BigInt(tb.totals[cr]!));
          if (adjustments === 'worksheet')
            expect(BigInt(tb.totals.unadjusted_debit!)).toBe(BigInt(tb.totals.unadjusted_credit!));
          // A balance-sheet account shows its balance as of the date; profit and loss the fiscal year's.
          const start = cuts[0]!;
          for (const a of accounts) {
            const pl = ACCOUNT_TYPES[a.account_type].section === 'profit_and_loss';
            const mine = lines.filter(
              (l) =>
                l.key === a.key &&
                l.date <= asOf &&
                (!pl || l.date > start) &&
                // Left out: the adjusting entries of the fiscal year to date (earlier ones are history).
                (adjustments !== 'exclude' || !l.adj || l.date <= start),
            );
            const want = mine.reduce((s, l) => s + l.net, 0n);
            const row = tb.rows.find((r) => r.account_id === a.id);
            const got = row ? BigInt(row[dr] ?? 0) - BigInt(row[cr] ?? 0) : 0n;
            expect(got, `${a.account_type} ${a.id}`).toBe(want);
          }
        },
      ),
      { seed: 34, numRuns: 300 },
    );
  });
});
