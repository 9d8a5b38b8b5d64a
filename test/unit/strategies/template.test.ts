import { describe, expect, it } from 'vitest';
import { closeTimeOf, type Candle } from '../../../src/market/candle.js';
import { Decimal } from '../../../src/market/decimal.js';
import { runStrategy } from '../../../src/strategy/testing.js';
import template from '../../../strategies/template.js';
import { candlesFromCloses } from './candles.js';

describe('strategies/template', () => {
  it('buys when the close crosses above its EMA and sells the position when it crosses below', () => {
    // An EMA of 3 needs 11 closes to forget its seed (the template's warm-up): nothing before the 11th.
    const closes = [...Array<number>(11).fill(10), 12, 8];
    const candles = candlesFromCloses('AAPLUSDT', closes);
    const r = runStrategy(template, candles, {
      params: { period: 3, quoteAmount: '50' },
    });
    expect(template.warmUp({ period: 3, quoteAmount: new Decimal(50) } as never)).toEqual({
      candles: 11,
      source: 'declared',
    });
    expect(r.intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['buy:entry', 'sell:exit']);
    // emittedAt is the close of the candle decided on: the cross up at 12 (the 12th), down at 8 (the 13th).
    expect(r.emittedAt).toEqual([11, 12].map((i) => closeTimeOf(candles[i] as Candle)));
    expect(r.portfolio.position('AAPLUSDT').quantity.isZero()).toBe(true);
  });
});
