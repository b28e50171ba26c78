import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgingBuilder } from '../../src/domain/aging.js';
import type { JournalEntry } from '../../src/domain/entry.js';
import type { ReportAccount } from '../../src/domain/statement.js';
import { fifoAging } from '../support/aging.js';

/** Two receivable accounts and one payable, as reports read the chart. */
const ACCOUNTS: ReportAccount[] = [
  ['ar', 'accounts_receivable'],
  ['ar2', 'accounts_receivable'],
  ['ap', 'accounts_payable'],
].map(([id, type], i) => ({
  key: i + 1,
  id: id!,
  external_id: id!,
  account_number: null,
  name: id!,
  account_type: type as ReportAccount['account_type'],
  parent_key: null,
  is_postable: true,
}));

/** A line of the aged accounts: an invoice or a payment, of a counterparty, on a day of 2025. */
const line = fc.record({
  account: fc.integer({ min: 0, max: 2 }),
  party: fc.constantFrom('ann', 'bob'),
  side: fc.constantFrom('debit' as const, 'credit' as const),
  atoms: fc.integer({ min: 1, max: 100_000 }),
  day: fc.integer({ min: 0, max: 120 }),
});

const dateOf = (day: number) => new Date(Date.UTC(2025, 0, 1 + day)).toISOString().slice(0, 10);

describe('aging (AgingBuilder) against first-in-first-out by hand (test/support/aging.ts)', () => {
  it('gives every counterparty the same buckets, unapplied credit and total', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 5, maxLength: 40, size: 'max' }),
        fc.constantFrom('receivable' as const, 'payable' as const),
        fc.integer({ min: 0, max: 150 }),
        fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
        (lines, type, asOfDay, dueDays) => {
          const asOf = dateOf(asOfDay);
          const limits = [30, 60, 90];
          // One entry per line (its other side elsewhere), JE-1… in posting order.
          const entries = lines.map((l, i) => {
            const a = ACCOUNTS[l.account]!;
            return {
              id: `je_${i}`,
              je_number: `JE-${i + 1}`,
              entry_date: dateOf(l.day),
              memo: null,
              lines: [
                {
                  account_id: a.id,
                  account_type: a.account_type,
                  line_type: l.side,
                  amount_atoms: l.atoms,
                  counterparty_type: 'customer',
                  counterparty_external_id: l.party,
                },
              ],
            };
          });
          const oracle = fifoAging(entries as unknown as JournalEntry[], {
            type,
            asOf,
            limits,
            dueDays,
          });
          const aged = ACCOUNTS.filter(
            (a) =>
              a.account_type ===
              (type === 'receivable' ? 'accounts_receivable' : 'accounts_payable'),
          );
          const builder = new AgingBuilder(
            {
              type,
              as_of: asOf,
              buckets: limits,
              due_days: dueDays,
              counterparty: null,
              accounts: [],
            },
            aged,
          );
          // The general ledger's order: by account, then date, then entry.
          const rows = entries
            .map((e, seq) => ({
              e,
              seq,
              a: ACCOUNTS.find((x) => x.id === e.lines[0]!.account_id)!,
            }))
            .filter(({ e, a }) => aged.includes(a) && e.entry_date <= asOf)
            .sort(
              (x, y) =>
                x.a.key - y.a.key || x.e.entry_date.localeCompare(y.e.entry_date) || x.seq - y.seq,
            );
          for (const { e, seq, a } of rows)
            builder.add({
              key: a.key,
              entry_id: e.id,
              je_number: e.je_number,
              entry_date: e.entry_date,
              memo: null,
              line_memo: null,
              counterparty_type: 'customer',
              counterparty_external_id: e.lines[0]!.counterparty_external_id,
              counterparty_name: e.lines[0]!.counterparty_external_id,
              line_type: e.lines[0]!.line_type,
              amount_atoms: e.lines[0]!.amount_atoms,
              seq: seq + 1,
              line_no: 1,
            });
          const report = builder.build('USD');
          const built = Object.fromEntries(
            report.rows.map((r) => [
              r.counterparty_external_id,
              {
                amounts: Object.fromEntries(
                  Object.entries(r.amounts).map(([k, v]) => [k, Number(v)]),
                ),
                unapplied: Number(r.unapplied),
                total: Number(r.total),
              },
            ]),
          );
          expect(built).toEqual(oracle);
        },
      ),
      { seed: 34, numRuns: 300 },
    );
  });
});
