// toFloat stands in for `.toNumber()` where the exits compare prices per candle: it must give the very
// double decimal.js gives (the one nearest the decimal), for every value, or a backtest would trigger an
// exit one tick apart from where the same rules trigger live.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, toFloat } from '../../../src/market/decimal.js';

describe('toFloat', () => {
  it.each([
    '0',
    '-0',
    'NaN',
    'Infinity',
    '-Infinity',
    '1',
    '1.5',
    '95.12',
    '0.1',
    '0.3',
    '100.123456789',
    '9007199254740991', // 2^53 - 1: the largest integer of the fast path
    '9007199254740993', // 2^53 + 1: not a double; parsing rounds it
    '123456789012345678', // beyond 2^53
    '1e22',
    '1e23', // beyond the exact powers of ten
    '1e-22',
    '1.7976931348623157e308',
    '5e-324',
    '1e-400', // underflows to 0
    '-12345.678901',
    '0.000000012345',
  ])('%s is the double toNumber() gives', (v) => {
    const d = new Decimal(v);
    expect(Object.is(toFloat(d), d.toNumber())).toBe(true);
  });

  it('is the double toNumber() gives for any decimal, including results of arithmetic', () => {
    const dec = fc
      .tuple(fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.integer({ min: -5, max: 30 }))
      .map(([units, scale]) => new Decimal(units.toString()).div(new Decimal(10).pow(scale)));
    fc.assert(
      fc.property(dec, dec, (a, b) => {
        for (const d of [a, b, a.plus(b), a.mul(b), a.neg(), b.isZero() ? a : a.div(b)]) {
          const f = toFloat(d);
          if (!Object.is(f, d.toNumber()))
            expect(`${d.toFixed()} -> ${f}`).toBe(`${d.toFixed()} -> ${d.toNumber()}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('is the double toNumber() gives for prices as a venue quotes them (up to 8 places)', () => {
    const price = fc
      .tuple(fc.integer({ min: 1, max: 2_000_000_000 }), fc.integer({ min: 0, max: 8 }))
      .map(([units, places]) => new Decimal(units).div(new Decimal(10).pow(places)));
    fc.assert(
      fc.property(price, (d) => {
        expect(toFloat(d)).toBe(d.toNumber());
      }),
      { numRuns: 5000 },
    );
  });
});
