import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountType } from '../../src/domain/accounts.js';
import { dayAfter, parts } from '../../src/domain/dates.js';
import type { AccountRef, ValidationContext } from '../../src/domain/entry.js';
import { validateEntry } from '../../src/domain/validation.js';
import {
  atomsToDecimal,
  formatAmount,
  MAX_ATOMS,
  parseDecimal,
  plainDecimalAtoms,
} from '../../src/domain/money.js';
import { fiscalYearStart, splitPeriods, type PeriodType } from '../../src/domain/periods.js';
import { CsvParser } from '../../src/import/csvParser.js';
import { KeyTable, textKey } from '../../src/import/keyTable.js';

// Seeded, so that a failure reproduces; each property runs a few hundred cases in well under a second.
const runs = { seed: 20261122, numRuns: 300 };

const ACCOUNTS: AccountRef[] = (
  [
    'bank',
    'other_current_asset',
    'fixed_asset',
    'credit_card',
    'other_current_liability',
    'equity',
    'income',
    'expense',
  ] as AccountType[]
).map((t, i) => ({
  key: i + 1,
  id: `acct_${i}`,
  external_id: `a${i}`,
  account_number: String(1000 + i),
  name: t,
  account_type: t,
  is_active: true,
  is_postable: true,
  currency: null,
}));

const ctx: ValidationContext = {
  entity: {
    id: 'ent',
    name: 'Test',
    currency: 'USD',
    books_start: '2025-01-01',
    fiscal_year_start_month: 1,
    lock_date: null,
  },
  account: (id) => ACCOUNTS.find((a) => a.external_id === id),
  counterparty: () => undefined,
  jeNumberTaken: () => false,
};

const account = fc.constantFrom(...ACCOUNTS.map((a) => a.external_id));
/** Debit amounts, and the same total cut into credit amounts at random points. */
const balancedLines = fc
  .tuple(
    fc.array(fc.integer({ min: 1, max: 10 ** 12 }), { minLength: 1, maxLength: 12 }),
    fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 11 }),
  )
  .chain(([debits, cuts]) => {
    const total = debits.reduce((s, a) => s + a, 0);
    const points = [
      ...new Set(cuts.map((c) => Math.floor(c * total)).filter((p) => p > 0 && p < total)),
    ].sort((a, b) => a - b);
    const credits = [...points, total].map((p, i, all) => p - (i === 0 ? 0 : all[i - 1]!));
    const sides = [
      ...debits.map((a) => ['debit', a] as const),
      ...credits.map((a) => ['credit', a] as const),
    ];
    return fc.tuple(
      fc.constant(sides),
      fc.array(account, { minLength: sides.length, maxLength: sides.length }),
      fc.constant(total),
    );
  })
  .map(([sides, accounts, total]) => ({
    lines: sides.map(([line_type, amount_atoms], i) => ({
      gl_account_id: accounts[i]!,
      line_type,
      amount_atoms,
    })),
    total,
  }));

describe('entries (properties)', () => {
  it('a balanced entry of valid lines is always accepted, with its exact total', () => {
    fc.assert(
      fc.property(balancedLines, fc.integer({ min: 0, max: 364 }), ({ lines, total }, day) => {
        const r = validateEntry({ entry_date: dayPlus('2025-01-01', day), lines }, ctx);
        expect(r.problems).toEqual([]);
        expect(r.entry!.total_atoms).toBe(total);
      }),
      runs,
    );
  });

  it('an entry whose debits and credits differ is always refused as unbalanced', () => {
    fc.assert(
      fc.property(
        balancedLines,
        fc.nat(),
        fc.integer({ min: 1, max: 10 ** 6 }),
        ({ lines }, which, extra) => {
          const i = which % lines.length;
          const changed = lines.map((l, j) =>
            j === i ? { ...l, amount_atoms: l.amount_atoms + extra } : l,
          );
          const r = validateEntry({ entry_date: '2025-03-01', lines: changed }, ctx);
          expect(r.entry).toBeNull();
          expect(r.problems.map((p) => p.reason)).toContain('unbalanced');
        },
      ),
      runs,
    );
  });
});

function dayPlus(date: string, days: number): string {
  let d = date;
  for (let i = 0; i < days; i++) d = dayAfter(d);
  return d;
}

describe('money (properties)', () => {
  const exponent = fc.constantFrom(0, 2, 3);
  const atoms = fc.bigInt({ min: 0n, max: BigInt(MAX_ATOMS) });

  it('atoms written as a decimal read back as the same atoms, plain or with thousands separators', () => {
    fc.assert(
      fc.property(atoms, exponent, (a, e) => {
        expect(parseDecimal(atomsToDecimal(a, e), e)).toEqual({ ok: true, atoms: a });
        expect(parseDecimal(formatAmount(a, e), e)).toEqual({ ok: true, atoms: a });
        expect(parseDecimal(atomsToDecimal(-a, e), e)).toEqual({ ok: true, atoms: -a });
      }),
      runs,
    );
  });

  it('the fast path agrees with the general parser wherever it answers', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[0-9]{0,17}(\.[0-9]{0,4})?$/),
      fc.string({ unit: fc.constantFrom(...'0123456789.,- x'), maxLength: 20 }),
    );
    fc.assert(
      fc.property(text, exponent, (t, e) => {
        const fast = plainDecimalAtoms(t, e);
        if (fast === null) return;
        expect(parseDecimal(t, e)).toEqual({ ok: true, atoms: BigInt(fast) });
      }),
      { ...runs, numRuns: 2000 },
    );
  });

  it('more decimals than the currency has are always refused, never rounded', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 10 ** 9 }),
        exponent,
        fc.integer({ min: 1, max: 9 }),
        (whole, e, digit) => {
          const t = `${whole}.${'0'.repeat(e)}${digit}`;
          expect(parseDecimal(t, e)).toMatchObject({ ok: false, reason: 'too_many_decimals' });
          expect(plainDecimalAtoms(t, e)).toBeNull();
        },
      ),
      runs,
    );
  });
});

describe('periods (properties)', () => {
  const day = fc.integer({ min: 0, max: 365 * 30 }).map((n) => dayPlus0(n));
  const type = fc.constantFrom<PeriodType>('monthly', 'quarterly', 'yearly');

  it('the columns cover every day of the window exactly once, in order, each inside one period', () => {
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 0, max: 365 * 5 - 1 }),
        type,
        fc.integer({ min: 1, max: 12 }),
        (start, length, t, fy) => {
          const end = dayPlus(start, length);
          const periods = splitPeriods(start, end, t, fy);
          expect(periods[0]!.start_date).toBe(start);
          expect(periods[periods.length - 1]!.end_date).toBe(end);
          periods.forEach((p, i) => {
            expect(p.start_date <= p.end_date).toBe(true);
            if (i > 0) expect(p.start_date).toBe(dayAfter(periods[i - 1]!.end_date));
            // Start and end fall in the same month, fiscal quarter or fiscal year.
            const bucket = (d: string) => {
              const [y, m] = parts(d);
              const fyFirst = fiscalYearStart(d, fy);
              const monthsIn = y * 12 + m - (Number(fyFirst.slice(0, 4)) * 12 + fy);
              return t === 'monthly'
                ? d.slice(0, 7)
                : t === 'quarterly'
                  ? `${fyFirst}/${Math.floor(monthsIn / 3)}`
                  : fyFirst;
            };
            expect(bucket(p.start_date)).toBe(bucket(p.end_date));
          });
          expect(new Set(periods.map((p) => p.id)).size).toBe(periods.length);
        },
      ),
      { ...runs, numRuns: 200 },
    );
  });
});

/** 2000-01-01 plus n days. */
function dayPlus0(n: number): string {
  const ms = Date.UTC(2000, 0, 1) + n * 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}

describe('CSV reading (properties)', () => {
  const field = fc.string({
    unit: fc.constantFrom(
      'a',
      'B',
      '1',
      ' ',
      ',',
      ';',
      '"',
      '\n',
      '\r',
      '\r\n',
      'é',
      '日',
      '\u00a0',
    ),
    maxLength: 8,
  });
  const table = fc.integer({ min: 1, max: 5 }).chain((width) =>
    fc.array(fc.array(field, { minLength: width, maxLength: width }), {
      minLength: 1,
      maxLength: 12,
    }),
  );

  it('any table written as RFC 4180 CSV reads back cell for cell, however the bytes are cut', () => {
    fc.assert(
      fc.property(
        table,
        fc.constantFrom(',', ';', '\t'),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }),
        (rows, delimiter, eol, cuts) => {
          // A lone empty cell is a blank line, which readers skip: quote it so the row survives.
          const quote = (c: string, alone: boolean) =>
            (alone && c === '') || /[",;\t\r\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c;
          const text =
            rows.map((r) => r.map((c) => quote(c, r.length === 1)).join(delimiter)).join(eol) + eol;
          const bytes = Buffer.from(text, 'utf8');
          const parser = new CsvParser(delimiter);
          const out: string[][] = [];
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length]!;
            out.push(...parser.push(bytes.subarray(at, at + size)).map((r) => r.cells));
            at += size;
          }
          out.push(...parser.end().map((r) => r.cells));
          expect(out).toEqual(rows);
        },
      ),
      runs,
    );
  });
});

describe('KeyTable (properties)', () => {
  it('answers like a Map of the same texts, through any sequence of sets', () => {
    const text = fc.string({
      unit: fc.constantFrom('E', 'J', '-', '0', '1', '9', 'é', '日', ' '),
      maxLength: 20,
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.integer({ min: 1, max: 1000 })), { maxLength: 3000 }),
        fc.array(text, { maxLength: 50 }),
        (sets, probes) => {
          // A small table, so that it grows many times within a case.
          const table = new KeyTable(4);
          const model = new Map<string, number>();
          const k = new Int32Array(4);
          for (const [t, v] of sets) {
            table.set(textKey(t, k), v);
            model.set(t, v);
          }
          for (const t of [...model.keys(), ...probes])
            expect(table.get(textKey(t, k))).toBe(model.get(t) ?? 0);
        },
      ),
      { ...runs, numRuns: 100 },
    );
  });
});
