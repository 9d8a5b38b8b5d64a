// The strategy-side time in force: with no cancel at the venue, a strategy that re-quotes a limit each
// candle stops after N candles of one signal, and starts again at the next signal.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Candle } from '../../../src/market/candle.js';
import { Decimal } from '../../../src/market/decimal.js';
import { TimeInForce, defineStrategy, limit } from '../../../src/strategy/index.js';
import { runStrategy } from '../../../src/strategy/testing.js';

const candle = (i: number, close: number): Candle => ({
  symbol: 'AAPLUSDT',
  interval: '1m',
  openTime: i * 60_000,
  open: close,
  high: close,
  low: close,
  close,
  volume: 1,
  turnover: close,
});

const chaser = defineStrategy({
  name: 'limit-chaser',
  description: 'Quotes a limit buy 1% under each close for 3 candles after each signal (time-in-force test).',
  params: z.object({ signals: z.array(z.number()).default([0, 6]).describe('candle indexes with a signal') }),
  intervals: ['1m'],
  init: () => ({ n: 0, tif: new TimeInForce(3) }),
  onCandle(c, ctx, emit, st) {
    if (ctx.params.signals.includes(st.n++)) st.tif.start(c.symbol);
    if (st.tif.quote(c.symbol))
      emit(
        limit(
          c.symbol,
          'buy',
          new Decimal('1'),
          new Decimal(c.close).mul('0.99'),
          'chase',
          'below the close',
        ),
      );
  },
});

describe('TimeInForce', () => {
  it('stops re-quoting after N candles of a signal and starts again at the next signal', () => {
    const candles = Array.from({ length: 12 }, (_, i) => candle(i, 100 + i));
    const r = runStrategy(chaser, candles, { fill: false });
    // Signals at candles 0 and 6: quotes on 0, 1, 2 and on 6, 7, 8 only.
    expect(r.intents.map((i) => (i.type === 'limit' ? i.price.toFixed() : '-'))).toEqual([
      '99',
      '99.99',
      '100.98',
      '104.94',
      '105.93',
      '106.92',
    ]);
  });

  it('is inactive before a start and after a stop', () => {
    const tif = new TimeInForce(2);
    expect(tif.quote('A')).toBe(false);
    tif.start('A');
    expect(tif.active('A')).toBe(true);
    expect(tif.quote('A')).toBe(true);
    tif.stop('A');
    expect(tif.quote('A')).toBe(false);
    expect(() => new TimeInForce(0)).toThrow(/at least 1/);
  });
});
