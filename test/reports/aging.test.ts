import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/domain/entry.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { fifoAging } from '../support/aging.js';

const CUSTOMERS = ['C001', 'C002', 'C003'];
const VENDORS = ['V001', 'V002'];
const date = fc
  .record({ month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }) })
  .map(
    ({ month, day }) => `2025-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
  );

/**
 * Invoices, bills, payments and credit notes in any order and amount: payments larger than what is
 * open, before their invoices, on either of two receivable accounts when the chart has them.
 */
const entry = fc
  .record({
    date,
    kind: fc.constantFrom('invoice', 'payment', 'bill', 'bill-payment'),
    customer: fc.constantFrom(...CUSTOMERS),
    vendor: fc.constantFrom(...VENDORS),
    amount: fc.integer({ min: 1, max: 5_000_000 }),
  })
  .map(({ date, kind, customer, vendor, amount }) => {
    const cp = kind.startsWith('bill')
      ? { counterparty_type: 'vendor', counterparty_external_id: vendor }
      : { counterparty_type: 'customer', counterparty_external_id: customer };
    const party = kind.startsWith('bill') ? 'ap' : 'ar';
    const other = kind === 'invoice' ? 'sales' : kind === 'bill' ? 'cogs' : 'checking';
    const partyDebit = kind === 'invoice' || kind === 'bill-payment';
    return {
      entry_date: date,
      lines: [
        {
          gl_account_id: party,
          ...cp,
          line_type: partyDebit ? 'debit' : 'credit',
          amount_atoms: amount,
        },
        { gl_account_id: other, line_type: partyDebit ? 'credit' : 'debit', amount_atoms: amount },
      ],
    };
  });

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'aging random ledgers on %s (property)',
  (_name, fixture) => {
    let L: FixtureLedger;
    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
    });
    afterAll(async () => L?.close());

    it("equals FIFO over the journal, bucket by bucket, and totals the trial balance's accounts", async () => {
      let key = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(entry, { minLength: 1, maxLength: 6 }),
          date,
          fc.constantFrom<[number[], number | null]>(
            [[30, 60, 90], null],
            [[10, 20], 15],
            [[45], 0],
          ),
          async (entries, asOf, [limits, dueDays]) => {
            for (const e of entries)
              await L.ledger.journal.post(e, { idempotencyKey: `aging-${++key}` });
            const journal: JournalEntry[] = [];
            for await (const e of L.store.journal.list({})) journal.push(e);
            const tb = await L.ledger.reports.trialBalance({ as_of: asOf, adjustments: 'include' });
            for (const type of ['receivable', 'payable'] as const) {
              const aging = await L.ledger.reports.aging({
                type,
                as_of: asOf,
                buckets: limits,
                ...(dueDays !== null ? { due_days: dueDays } : {}),
              });
              const got = Object.fromEntries(
                aging.rows.map((r) => [
                  r.counterparty_external_id,
                  { amounts: r.amounts, unapplied: r.unapplied, total: r.total },
                ]),
              );
              expect(got).toEqual(fifoAging(journal, { type, asOf, limits, dueDays }));
              const accountType =
                type === 'receivable' ? 'accounts_receivable' : 'accounts_payable';
              const sign = type === 'receivable' ? 1 : -1;
              const balance = tb.rows
                .filter((r) => r.account_type === accountType)
                .reduce((s, r) => s + sign * (Number(r.debit ?? 0) - Number(r.credit ?? 0)), 0);
              expect(Number(aging.totals.total)).toBe(balance);
            }
          },
        ),
        { seed: 20261125, numRuns: 25 },
      );
    });
  },
);
