import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { MemoryPortfolio, runStrategy } from '../../../src/strategy/testing.js';
import maCrossover from '../../../strategies/ma-crossover.js';
import { candlesFromCloses, interleave } from './candles.js';

// fast 2 / slow 4: flat, a dip (fast under slow), then a rally (golden cross), then a slide (death cross).
const DIP_RALLY_SLIDE = [10, 10, 10, 10, 9, 8, 8, 12, 14, 15, 15, 11, 8, 7];
const params = { fast: 2, slow: 4, quoteAmount: '250' };

describe('ma-crossover', () => {
  it('emits exactly one buy of the configured quote amount on a golden cross', () => {
    const rally = DIP_RALLY_SLIDE.slice(0, 10);
    const { intents } = runStrategy(maCrossover, candlesFromCloses('AAPLUSDT', rally), {
      params,
      fill: false,
    });
    expect(intents).toHaveLength(1);
    const [buy] = intents;
    expect(buy).toMatchObject({
      symbol: 'AAPLUSDT',
      side: 'buy',
      type: 'market',
      tag: 'golden-cross',
      bot: 'test-bot',
    });
    expect(buy && 'quoteAmount' in buy && buy.quoteAmount).toEqual(new Decimal('250'));
  });

  it('sells the whole position on the death cross that follows', () => {
    const { intents, portfolio } = runStrategy(maCrossover, candlesFromCloses('AAPLUSDT', DIP_RALLY_SLIDE), {
      params,
    });
    expect(intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['buy:golden-cross', 'sell:death-cross']);
    const sell = intents[1];
    // Bought 250 USDT at the close of the crossing candle (12): 20.8333... base coin, all of it sold.
    expect(sell && 'quantity' in sell && sell.quantity).toEqual(new Decimal('250').div(12));
    expect(portfolio.position('AAPLUSDT').quantity.isZero()).toBe(true);
  });

  it('emits no sell on a death cross when it holds nothing', () => {
    const { intents } = runStrategy(
      maCrossover,
      candlesFromCloses('AAPLUSDT', [10, 10, 10, 10, 11, 12, 9, 6]),
      {
        params,
        fill: false,
        portfolio: new MemoryPortfolio(),
      },
    );
    expect(intents.map((i) => i.side)).toEqual(['buy']);
  });

  it('does not treat the first ready candle as a cross, and does not pyramid an existing position', () => {
    const up = [1, 2, 3, 4, 5, 6, 7];
    expect(runStrategy(maCrossover, candlesFromCloses('AAPLUSDT', up), { params }).intents).toEqual([]);
    const portfolio = new MemoryPortfolio();
    portfolio.setPosition('AAPLUSDT', '3', '10');
    const r = runStrategy(maCrossover, candlesFromCloses('AAPLUSDT', DIP_RALLY_SLIDE), {
      params,
      portfolio,
      fill: false,
    });
    expect(r.intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['sell:death-cross']);
    expect(r.intents[0] && 'quantity' in r.intents[0] && r.intents[0].quantity).toEqual(new Decimal('3'));
  });

  it('keeps one indicator per symbol and stamps the bot category on every intent', () => {
    const a = candlesFromCloses('AAPLUSDT', DIP_RALLY_SLIDE);
    const b = candlesFromCloses('TSLAUSDT', [...DIP_RALLY_SLIDE].reverse());
    const { intents } = runStrategy(maCrossover, interleave(a, b), { params, category: 'MARGIN' });
    expect(intents.filter((i) => i.symbol === 'AAPLUSDT').map((i) => i.side)).toEqual(['buy', 'sell']);
    expect(intents.every((i) => i.category === 'MARGIN')).toBe(true);
    // The reversed series runs its own crossings, unaffected by the other symbol.
    const solo = runStrategy(maCrossover, b, { params }).intents.map((i) => i.side);
    expect(intents.filter((i) => i.symbol === 'TSLAUSDT').map((i) => i.side)).toEqual(solo);
  });

  it('buys on every golden cross and sells on every death cross of a reference SMA computation', () => {
    const sma = (xs: number[], i: number, n: number): number | null =>
      i + 1 < n ? null : xs.slice(i + 1 - n, i + 1).reduce((s, x) => s + x, 0) / n;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 5, maxLength: 200 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        (closes, fast, extra) => {
          const slow = fast + extra;
          const expected: string[] = [];
          let above: boolean | undefined;
          let holding = false;
          closes.forEach((_, i) => {
            const f = sma(closes, i, fast);
            const s = sma(closes, i, slow);
            if (f === null || s === null) return;
            const now = f > s;
            if (above !== undefined && now !== above) {
              if (now && !holding) {
                expected.push('buy');
                holding = true;
              } else if (!now && holding) {
                expected.push('sell');
                holding = false;
              }
            }
            above = now;
          });
          const r = runStrategy(maCrossover, candlesFromCloses('NVDAUSDT', closes), {
            params: { fast, slow, quoteAmount: '10' },
          });
          expect(r.intents.map((i) => i.side)).toEqual(expected);
          expect(r.portfolio.position('NVDAUSDT').quantity.gte(0)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a slow period that is not above the fast one, naming the parameter', () => {
    expect(() => runStrategy(maCrossover, [], { params: { fast: 10, slow: 5 } })).toThrow(
      /parameter "slow": slow must be above fast/,
    );
  });
});
