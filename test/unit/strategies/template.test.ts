import { describe, expect, it } from 'vitest';
import { runStrategy } from '../../../src/strategy/testing.js';
import template from '../../../strategies/template.js';
import { candlesFromCloses } from './candles.js';

describe('strategies/template', () => {
  it('buys when the close crosses above its EMA and sells the position when it crosses below', () => {
    const closes = [10, 10, 10, 9, 9, 12, 13, 8, 7];
    const r = runStrategy(template, candlesFromCloses('AAPLUSDT', closes), {
      params: { period: 3, quoteAmount: '50' },
    });
    expect(r.intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['buy:entry', 'sell:exit']);
    expect(r.portfolio.position('AAPLUSDT').quantity.isZero()).toBe(true);
  });
});
