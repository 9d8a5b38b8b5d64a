import { describe, expect, it } from 'vitest';
import { RSI } from 'trading-signals';
import { Decimal } from '../../../src/market/decimal.js';
import { MemoryPortfolio, runStrategy } from '../../../src/strategy/testing.js';
import rsiMeanReversion from '../../../strategies/rsi-mean-reversion.js';
import { candlesFromCloses } from './candles.js';

const params = { period: 3, oversold: 30, overbought: 70, quoteAmount: '40' };
// Warm-up, a slide deep into oversold (staying there), then a rally deep into overbought (staying there).
const SLIDE_RALLY = [50, 51, 50, 51, 48, 44, 40, 36, 33, 30, 34, 39, 45, 52, 60];

describe('rsi-mean-reversion', () => {
  it('buys once when the RSI falls below oversold, however long it stays there', () => {
    const slide = SLIDE_RALLY.slice(0, 10);
    const { intents } = runStrategy(rsiMeanReversion, candlesFromCloses('TSLAUSDT', slide), {
      params,
      fill: false,
    });
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ side: 'buy', type: 'market', tag: 'oversold', symbol: 'TSLAUSDT' });
    expect(intents[0] && 'quoteAmount' in intents[0] && intents[0].quoteAmount).toEqual(new Decimal('40'));
  });

  it('sells the whole position once when the RSI rises above overbought', () => {
    const { intents, portfolio } = runStrategy(rsiMeanReversion, candlesFromCloses('TSLAUSDT', SLIDE_RALLY), {
      params,
    });
    expect(intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['buy:oversold', 'sell:overbought']);
    expect(portfolio.position('TSLAUSDT').quantity.isZero()).toBe(true);
  });

  it('acts on the same RSI values as trading-signals computes', () => {
    const rsi = new RSI(3);
    const values = SLIDE_RALLY.map((c) => rsi.update(c, false));
    const firstLow = values.findIndex((v) => v !== null && v < 30);
    const r = runStrategy(rsiMeanReversion, candlesFromCloses('TSLAUSDT', SLIDE_RALLY, { start: 0 }), {
      params,
      fill: false,
    });
    // The buy is emitted at the close of the candle whose RSI first dips under oversold.
    expect(r.emittedAt[0]).toBe((firstLow + 1) * 60_000);
  });

  it('takes no entry on its first reading after the warm-up: it did not see the RSI enter the zone', () => {
    // Falling from the first close: the RSI is oversold from its first value (candle 4), a zone it did not
    // see it enter (a bot started then, with exactly its warm-up backfilled). It enters it again at candle 12.
    const closes = [50, 48, 46, 44, 42, 50, 55, 60, 50, 45, 40, 35];
    const r = runStrategy(rsiMeanReversion, candlesFromCloses('TSLAUSDT', closes, { start: 0 }), {
      params,
      fill: false,
    });
    expect(r.intents.map((i) => i.side)).toEqual(['buy']);
    expect(r.emittedAt[0]).toBeGreaterThan(8 * 60_000);
  });

  it('emits no sell in overbought while flat, and no buy in oversold while holding', () => {
    const rally = [50, 49, 50, 49, 52, 56, 60, 65];
    expect(runStrategy(rsiMeanReversion, candlesFromCloses('TSLAUSDT', rally), { params }).intents).toEqual(
      [],
    );
    const portfolio = new MemoryPortfolio();
    portfolio.setPosition('TSLAUSDT', '2', '50');
    const r = runStrategy(rsiMeanReversion, candlesFromCloses('TSLAUSDT', SLIDE_RALLY), {
      params,
      portfolio,
      fill: false,
    });
    expect(r.intents.map((i) => i.side)).toEqual(['sell']);
    expect(r.intents[0] && 'quantity' in r.intents[0] && r.intents[0].quantity).toEqual(new Decimal('2'));
  });

  it('refuses overbought at or under oversold and a money amount given as a number', () => {
    expect(() => runStrategy(rsiMeanReversion, [], { params: { oversold: 60, overbought: 40 } })).toThrow(
      /parameter "overbought": overbought must be above oversold/,
    );
    expect(() => runStrategy(rsiMeanReversion, [], { params: { quoteAmount: 40 } })).toThrow(
      /parameter "quoteAmount": must be a decimal string, got the number 40: quote it as "40"/,
    );
  });
});
