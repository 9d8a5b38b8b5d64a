// RollingSMA: the O(1) moving average the bundled strategies use. It must agree with the exact mean of
// the window (computed in Decimal) to within a few ulps, however long it runs.
import fc from 'fast-check';
import { SMA } from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { RollingSMA } from '../../../src/strategy/indicators.js';

/** Exact mean of the last n values, as a number (the reference). */
const exactMean = (xs: readonly number[], n: number): number =>
  xs
    .slice(-n)
    .reduce((s, x) => s.plus(x), new Decimal(0))
    .div(n)
    .toNumber();

/** Prices on a cent grid, as recorded candles carry them. */
const cents = fc.integer({ min: 1, max: 10_000_000 }).map((c) => c / 100);

describe('RollingSMA', () => {
  it('is null until the window is full, then the mean of the last `interval` prices', () => {
    const sma = new RollingSMA(3);
    expect(sma.update(1)).toBeNull();
    expect(sma.update(2)).toBeNull();
    expect(sma.isStable).toBe(false);
    expect(sma.update(3)).toBe(2);
    expect(sma.update(10)).toBe(5);
    expect(sma.getResult()).toBe(5);
    expect(sma.isStable).toBe(true);
  });

  it('matches the exact mean of every window to within 4 ulps (random cent prices and periods)', () => {
    fc.assert(
      fc.property(
        fc.array(cents, { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 1, max: 60 }),
        (prices, n) => {
          const sma = new RollingSMA(n);
          const seen: number[] = [];
          for (const p of prices) {
            seen.push(p);
            const got = sma.update(p);
            if (seen.length < n) {
              expect(got).toBeNull();
              continue;
            }
            const want = exactMean(seen, n);
            expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(4 * Number.EPSILON * Math.abs(want));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('replaces the last price with replace=true (a candle still forming), as trading-signals does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cents, fc.boolean()), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        (steps, n) => {
          const ours = new RollingSMA(n);
          const theirs = new SMA(n);
          for (const [p, replace] of steps) {
            const a = ours.update(p, replace);
            const b = theirs.update(p, replace);
            if (b === null) expect(a).toBeNull();
            else expect(Math.abs((a as number) - b)).toBeLessThanOrEqual(1e-9 * Math.abs(b));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('does not drift: after a million updates it still matches the exact mean to within 4 ulps', () => {
    const n = 200;
    const sma = new RollingSMA(n);
    const tail: number[] = [];
    let price = 25_000;
    let seed = 42;
    for (let i = 0; i < 1_000_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      price = Math.max(0.01, Math.round((price + (seed / 2_147_483_648 - 0.5) * 40) * 100) / 100);
      sma.update(price);
      tail.push(price);
      if (tail.length > 2 * n) tail.splice(0, n);
    }
    const want = exactMean(tail, n);
    expect(Math.abs((sma.getResult() as number) - want)).toBeLessThanOrEqual(4 * Number.EPSILON * want);
  });

  it('refuses a period below 1 and a price that is not finite, saying what it got', () => {
    expect(() => new RollingSMA(0)).toThrow(/at least 1, got 0/);
    expect(() => new RollingSMA(2.5)).toThrow(/whole number/);
    expect(() => new RollingSMA(5).update(Number.NaN)).toThrow(/finite price, got NaN/);
  });
});
