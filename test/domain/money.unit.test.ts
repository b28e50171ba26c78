import { describe, expect, it } from 'vitest';
import { readAmount } from '../../src/domain/input.js';
import { contextFromChart, validateEntry } from '../../src/domain/validation.js';

const ENTITY = {
  id: 'ent',
  name: 'E',
  currency: 'USD',
  books_start: '2025-01-01',
  fiscal_year_start_month: 1,
  lock_date: null,
};
import {
  atomsToDecimal,
  currencyExponent,
  CURRENCY_CODES,
  formatAmount,
  parseDecimal,
} from '../../src/domain/money.js';
import { normaliseJeNumber } from '../../src/domain/jeNumber.js';

describe('money', () => {
  it('knows ISO 4217 exponents and refuses unknown codes', () => {
    expect([
      currencyExponent('USD'),
      currencyExponent('JPY'),
      currencyExponent('BHD'),
      currencyExponent('XYZ'),
      currencyExponent('usd'),
    ]).toEqual([2, 0, 3, null, null]);
  });

  it.each([
    ['1250', 2, 125000n],
    ['1250.00', 2, 125000n],
    ['1,250.5', 2, 125050n],
    ['-3.05', 2, -305n],
    ['.5', 2, 50n],
    ['0.001', 3, 1n],
    ['1,234,567', 0, 1234567n],
    ['90071992547409.93', 2, 9007199254740993n],
  ])('parses %s with exponent %i exactly', (text, exp, atoms) => {
    expect(parseDecimal(text, exp)).toEqual({ ok: true, atoms });
  });

  it.each([
    ['1.005', 2, 'too_many_decimals'],
    ['5.0', 0, 'too_many_decimals'],
    ['1,25', 2, 'invalid_amount'],
    ['1e3', 2, 'invalid_amount'],
    ['', 2, 'invalid_amount'],
    ['12,34.00', 2, 'invalid_amount'],
    ['$5', 2, 'invalid_amount'],
    ['.', 2, 'invalid_amount'],
  ])('refuses %s (exponent %i)', (text, exp, reason) => {
    expect(parseDecimal(text, exp)).toMatchObject({ ok: false, reason });
  });

  it('formats for people and for machines, round-tripping', () => {
    expect(formatAmount(123456789, 2)).toBe('1,234,567.89');
    expect(formatAmount(-5, 2)).toBe('(0.05)');
    expect(formatAmount(1500, 0)).toBe('1,500');
    expect(formatAmount(-1234567n, 3)).toBe('(1,234.567)');
    expect(formatAmount(12345678901234567890n, 2)).toBe('123,456,789,012,345,678.90');
    for (const [atoms, exp] of [
      [0n, 2],
      [7n, 2],
      [-100n, 2],
      [123456789012345678n, 3],
      [42n, 0],
    ] as const) {
      expect(parseDecimal(atomsToDecimal(atoms, exp), exp)).toEqual({ ok: true, atoms });
    }
  });
});

describe('je_number normalisation', () => {
  it.each([
    ['je-007', 'JE-7', 7],
    ['7', 'JE-7', 7],
    ['JE 7', 'JE-7', 7],
    ['  je0042 ', 'JE-42', 42],
    ['JE-0', 'JE-0', 0],
    ['payroll   march', 'PAYROLL MARCH', null],
    ['JE-99999999999999999999', 'JE-99999999999999999999', null],
  ])('%s → %s', (raw, value, seq) => {
    expect(normaliseJeNumber(raw)).toEqual({ ok: true, value, seq });
  });

  it('refuses empty and over-long numbers', () => {
    expect(normaliseJeNumber('   ').ok).toBe(false);
    expect(normaliseJeNumber('x'.repeat(65)).ok).toBe(false);
    expect(normaliseJeNumber('x'.repeat(64)).ok).toBe(true);
  });
});

describe('the currency table', () => {
  /** Every code Node's ICU has a currency name for: its list, current and withdrawn codes alike. */
  const icuCodes = () => {
    const names = new Intl.DisplayNames('en', { type: 'currency', fallback: 'none' });
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const codes: string[] = [];
    for (const a of letters)
      for (const b of letters)
        for (const c of letters) if (names.of(a + b + c) !== undefined) codes.push(a + b + c);
    return codes;
  };

  it('holds every code ICU lists, with the digits Intl.NumberFormat gives each', () => {
    const codes = icuCodes();
    expect([...CURRENCY_CODES].sort()).toEqual(codes);
    expect(codes).toEqual(expect.arrayContaining(Intl.supportedValuesOf('currency')));
    for (const code of codes) {
      const digits = new Intl.NumberFormat('en', {
        style: 'currency',
        currency: code,
      }).resolvedOptions().maximumFractionDigits;
      expect(currencyExponent(code), code).toBe(digits);
    }
    expect(currencyExponent('CLF')).toBe(4);
    expect(currencyExponent('XYZ')).toBe(null);
    expect(currencyExponent('usd')).toBe(null);
  });

  it('lets every code it lists be an entity’s currency, amounts read to its exponent', () => {
    for (const code of CURRENCY_CODES) {
      const exponent = currencyExponent(code)!;
      const entity = { ...ENTITY, currency: code };
      const ctx = contextFromChart(entity, [], null);
      const body = { entry_date: '2025-02-01', currency: code, lines: [] };
      const currencyProblems = validateEntry(body, ctx).problems.filter(
        (p) => p.path === 'currency',
      );
      expect(currencyProblems, code).toEqual([]);
      const smallest = exponent === 0 ? '1' : `0.${'0'.repeat(exponent - 1)}1`;
      expect(readAmount(smallest, exponent, code), code).toEqual({ ok: true, value: 1 });
      const tooFine = `0.${'0'.repeat(exponent)}1`;
      expect(readAmount(tooFine, exponent, code).ok, code).toBe(false);
    }
  });
});
