import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  convert,
  crossRate,
  impliedRate,
  invertRate,
  parseRate,
  rateOf,
} from '../../src/domain/fx.js';

describe('rates', () => {
  it('takes plain positive decimals of at most 12 significant digits, as written', () => {
    expect(parseRate('1.1050')).toMatchObject({ ok: true, rate: { text: '1.1050', scale: 4 } });
    expect(parseRate('0.000000123456789012').ok).toBe(true);
    for (const bad of ['', '-1.1', '1,1', '1e3', '0', '0.000', ' 1.1', '1.1234567890123', 1.1])
      expect(parseRate(bad).ok).toBe(false);
  });
});

describe('conversion to the functional currency', () => {
  it('rounds half to even, exactly, across exponents (JPY 0, USD 2, KWD 3)', () => {
    expect(convert(100000n, rateOf('1.105'), 'EUR', 'USD')).toBe(110500n);
    // 0.5 cent ties: 1 EUR cent at 0.5 is half a cent, to even 0; 3 cents at 0.5 is 1.5, to 2.
    expect(convert(1n, rateOf('0.5'), 'EUR', 'USD')).toBe(0n);
    expect(convert(3n, rateOf('0.5'), 'EUR', 'USD')).toBe(2n);
    // JPY 12,345 at 0.0067 USD = 82.7115 USD → 8271 cents.
    expect(convert(12345n, rateOf('0.0067'), 'JPY', 'USD')).toBe(8271n);
    // KWD 1.2345 is not a KWD amount; KWD 1.235 (1235 fils) at 3.25 = 4.01375 USD → 401 cents.
    expect(convert(1235n, rateOf('3.25'), 'KWD', 'USD')).toBe(401n);
    // KWD 0.010 (10 fils) at 3.25 = 0.0325 USD → 3 cents; KWD 0.030 at 0.5 = 0.015 → 2 (even).
    expect(convert(10n, rateOf('3.25'), 'KWD', 'USD')).toBe(3n);
    expect(convert(30n, rateOf('0.5'), 'KWD', 'USD')).toBe(2n);
    // Into JPY: USD 10.05 at 150.5 = 1512.525 → 1513 yen.
    expect(convert(1005n, rateOf('150.5'), 'USD', 'JPY')).toBe(1513n);
  });

  it('is the exact product, rounded half to even, for any amount and rate', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n - 1n }),
        fc.integer({ min: 0, max: 11 }),
        fc.constantFrom(
          ['EUR', 'USD'],
          ['JPY', 'USD'],
          ['KWD', 'USD'],
          ['USD', 'JPY'],
          ['KWD', 'JPY'],
        ),
        (atoms, digits, scale, [from, to]) => {
          const text = scale === 0 ? String(digits) : (Number(digits) / 10 ** scale).toFixed(scale);
          const r = parseRate(text);
          fc.pre(r.ok);
          const got = convert(atoms, rateOf(text), from!, to!);
          // Exact value × 2·10^k compared with the neighbours: |2·(got·D − N)| ≤ D, even on a tie.
          const exp = { EUR: 2, USD: 2, JPY: 0, KWD: 3 } as Record<string, number>;
          const shift = exp[to!]! - exp[from!]!;
          const rate = rateOf(text);
          const N = atoms * rate.digits * 10n ** BigInt(Math.max(shift, 0));
          const D = 10n ** BigInt(rate.scale) * 10n ** BigInt(Math.max(-shift, 0));
          const twice = 2n * (got * D - N);
          expect(twice <= D && twice >= -D).toBe(true);
          if (twice === D || twice === -D) expect(got % 2n).toBe(0n);
        },
      ),
    );
  });
});

describe('implied, inverted and crossed rates', () => {
  it('keeps what the bank converted to 10 significant digits', () => {
    expect(impliedRate(100000, 110500, 'EUR', 'USD')).toBe('1.105');
    expect(impliedRate(300, 100, 'EUR', 'USD')).toBe('0.3333333333');
    expect(impliedRate(3, 2, 'EUR', 'USD')).toBe('0.6666666667');
    expect(impliedRate(1000, 667, 'JPY', 'USD')).toBe('0.00667');
  });

  it('inverts a quote and crosses two through a third currency', () => {
    expect(invertRate(rateOf('1.25'))).toBe('0.8');
    expect(invertRate(rateOf('3'))).toBe('0.333333333333');
    // EUR quotes USD 1.10 and GBP 0.85: one GBP is 1.10 / 0.85 USD.
    expect(crossRate(rateOf('1.10'), rateOf('0.85'))).toBe('1.29411764706');
  });
});
