// aboveZero / belowZero stand in for `.gt(0)` / `.lt(0)` on the order path (the gate, the portfolio, the
// venue's matching core): they must answer exactly what decimal.js answers, for every value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, aboveZero, belowZero } from '../../../src/market/decimal.js';

describe('aboveZero and belowZero', () => {
  it.each([
    ['0', false, false],
    ['-0', false, false],
    ['NaN', false, false],
    ['Infinity', true, false],
    ['-Infinity', false, true],
    ['1e-40', true, false],
    ['-1e-40', false, true],
    ['0.00000001', true, false],
    ['-123456789.123456789', false, true],
  ])('%s: above %s, below %s', (v, above, below) => {
    const d = new Decimal(v);
    expect([aboveZero(d), belowZero(d)]).toEqual([above, below]);
    expect([d.gt(0), d.lt(0)]).toEqual([above, below]);
  });

  it('answer what gt(0) and lt(0) answer for any decimal, including results of arithmetic', () => {
    const dec = fc
      .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 30 }))
      .map(([units, scale]) => new Decimal(units.toString()).div(new Decimal(10).pow(scale)));
    fc.assert(
      fc.property(dec, dec, (a, b) => {
        for (const d of [a, b, a.minus(b), a.mul(b), a.neg()]) {
          expect(aboveZero(d)).toBe(d.gt(0));
          expect(belowZero(d)).toBe(d.lt(0));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
