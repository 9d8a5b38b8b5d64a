// The indicators of 'tradebot': every one answers null until it is stable (one wrapper over trading-signals),
// and RollingSMA, the O(1) moving average the bundled strategies use, agrees with the exact mean of the
// window (computed in Decimal) to within a few ulps, however long it runs.
import fc from 'fast-check';
import * as TS from 'trading-signals';
import { SMA } from 'trading-signals';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as tradebot from '../../../src/index.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RollingSMA, nullUntilStable } from '../../../src/strategy/indicators.js';

/** Closes that wander, and candles around them (ATR reads high, low and close). */
const closes = Array.from({ length: 80 }, (_, i) => 100 + 10 * Math.sin(i / 3) + i / 10);
const hlc = closes.map((close) => ({ high: close + 1, low: close - 1, close }));

describe("the indicators exported from 'tradebot'", () => {
  it('EMA answers null until it has seen `interval` prices, then what trading-signals computes', () => {
    const ours = new tradebot.EMA(5);
    const theirs = new TS.EMA(5);
    closes.forEach((c, i) => {
      const a = ours.update(c, false);
      const b = theirs.update(c, false);
      // trading-signals' own EMA answers a number from the first price: a strategy that checks for null
      // (as the template does) traded on four prices of a 5-period average.
      expect(b).not.toBeNull();
      if (i < 4) {
        expect(a).toBeNull();
        expect(ours.isStable).toBe(false);
        expect(ours.getResult()).toBeNull();
      } else expect(a).toBe(b);
    });
  });

  const cases = [
    ['EMA', () => new tradebot.EMA(20), closes, 20],
    ['SMA', () => new tradebot.SMA(20), closes, 20],
    ['RSI', () => new tradebot.RSI(14), closes, 15],
    ['ATR', () => new tradebot.ATR(14), hlc, 14],
    ['BollingerBands', () => new tradebot.BollingerBands(20, 2), closes, 21],
    [
      'MACD',
      () => new tradebot.MACD(new tradebot.EMA(12), new tradebot.EMA(26), new tradebot.EMA(9)),
      closes,
      34,
    ],
  ] as const;

  it.each(cases)(
    '%s answers null until it is stable (input %#), never a value or an object with nulls inside before',
    (_name, make, inputs, firstInput) => {
      const ind = make() as { update(x: unknown, r?: boolean): unknown; readonly isStable: boolean };
      inputs.forEach((x, i) => {
        const r = ind.update(x, false);
        expect(r === null, `input ${i + 1}`).toBe(i + 1 < firstInput);
        expect(ind.isStable, `input ${i + 1}`).toBe(r !== null);
        if (r !== null && typeof r === 'object')
          for (const v of Object.values(r)) expect(typeof v, `input ${i + 1}`).toBe('number');
      });
    },
  );

  it('MACD of its own EMAs is the MACD of trading-signals once stable, and null before (not a null signal)', () => {
    const ours = new tradebot.MACD(new tradebot.EMA(3), new tradebot.EMA(6), new tradebot.EMA(4));
    const theirs = new TS.MACD(new TS.EMA(3), new TS.EMA(6), new TS.EMA(4));
    closes.forEach((c, i) => {
      const a = ours.update(c, false);
      const b = theirs.update(c, false);
      // Theirs answers from input 6 with a signal average of one value; ours waits for 6 + 4 - 1.
      if (i + 1 < 9) expect(a).toBeNull();
      else expect(a).toEqual(b);
    });
  });

  it('bands read before the warm-up are null, so `bands.lower` cannot be read off an empty result', () => {
    const bb = new tradebot.BollingerBands(20, 2);
    expect(bb.update(100, false)).toBeNull();
    expect(() => bb.getResultOrThrow()).toThrow(TS.NotEnoughDataError);
    // The types say so: a strategy must check for null before it reads a band.
    expectTypeOf(bb.update(100)).toEqualTypeOf<{ lower: number; middle: number; upper: number } | null>();
    expectTypeOf(new tradebot.EMA(3).update(1)).toEqualTypeOf<number | null>();
  });

  it('wraps any other trading-signals indicator the same way', () => {
    const DEMA = nullUntilStable(TS.DEMA);
    const dema = new DEMA(5);
    expect(new TS.DEMA(5).update(100, false)).not.toBeNull();
    const out = closes.slice(0, 12).map((c) => dema.update(c));
    expect(out.findIndex((v) => v !== null)).toBe(new TS.DEMA(5).getRequiredInputs() - 1);
    expect(DEMA.name).toBe('DEMA');
  });
});

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
