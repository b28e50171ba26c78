import fc from 'fast-check';

// Every postable account of the standard chart, with the counterparty its lines need.
export const ACCOUNTS: [string, string | null][] = [
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
/** A random balanced entry of 2025 on the standard chart: up to five debits and one credit. */
export const entry = fc
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
