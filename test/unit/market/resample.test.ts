// The one resampler of informative timeframes: a higher candle only once it has closed, never partial.
import { describe, expect, it } from 'vitest';
import type { Candle } from '../../../src/market/candle.js';
import { CandleResampler, InformativeCandles, resampleProblem } from '../../../src/market/resample.js';

const M = 60_000;
const T0 = Date.UTC(2026, 0, 5, 10, 0); // aligned to 5m and 1H
const c = (k: number, open: number, close: number, volume = 1): Candle => ({
  symbol: 'AAAUSDT',
  interval: '1m',
  openTime: T0 + k * M,
  open,
  high: Math.max(open, close) + 1,
  low: Math.min(open, close) - 1,
  close,
  volume,
  turnover: volume * close,
});

const run = (r: { push(c: Candle, out: (x: Candle) => void): void }, candles: Candle[]) => {
  const out: { after: number; candle: Candle }[] = [];
  candles.forEach((x, k) => r.push(x, (h) => out.push({ after: k, candle: h })));
  return out;
};

describe('CandleResampler', () => {
  it('emits a 5m candle with the 1m candle that closes it, with the open, extremes, close and sums of its five', () => {
    const candles = [c(0, 10, 11), c(1, 11, 14), c(2, 14, 9), c(3, 9, 10), c(4, 10, 12, 3), c(5, 12, 13)];
    const out = run(new CandleResampler('AAAUSDT', '1m', '5m'), candles);
    expect(out).toHaveLength(1);
    // Emitted with candle 4 (the fifth, which closes at T0 + 5m), not before.
    expect(out[0]?.after).toBe(4);
    expect(out[0]?.candle).toEqual({
      symbol: 'AAAUSDT',
      interval: '5m',
      openTime: T0,
      open: 10,
      high: 15, // candle 1: max(11, 14) + 1
      low: 8, // candle 2: min(14, 9) - 1
      close: 12,
      volume: 7, // 1 + 1 + 1 + 1 + 3
      turnover: 11 + 14 + 9 + 10 + 36,
    });
  });

  it('drops a first bucket whose opening candle it never saw (the data starts inside it): it would be partial', () => {
    const out = run(new CandleResampler('AAAUSDT', '1m', '5m'), [c(2, 1, 2), c(3, 2, 3), c(4, 3, 4)]);
    expect(out).toEqual([]);
    const next = run(new CandleResampler('AAAUSDT', '1m', '5m'), [
      c(3, 2, 3),
      c(4, 3, 4),
      ...[5, 6, 7, 8, 9].map((k) => c(k, 1, 2)),
    ]);
    expect(next.map((x) => x.candle.openTime)).toEqual([T0 + 5 * M]);
  });

  it('after a gap, emits the bucket when the first candle of a later bucket arrives, never earlier', () => {
    // Candle 4 (the last of the first bucket) is missing.
    const out = run(new CandleResampler('AAAUSDT', '1m', '5m'), [
      c(0, 1, 2),
      c(1, 2, 3),
      c(2, 3, 4),
      c(3, 4, 5),
      c(6, 5, 6),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]?.after).toBe(4);
    expect(out[0]?.candle).toMatchObject({ openTime: T0, open: 1, close: 5 });
  });

  it('refuses an interval that is not a whole multiple of the base, or not longer', () => {
    expect(resampleProblem('3m', '5m')).toMatch(/not a whole number of 3m/);
    expect(resampleProblem('5m', '5m')).toMatch(/longer than the base/);
    expect(() => new CandleResampler('X', '1H', '5m')).toThrow(RangeError);
    expect(resampleProblem('5m', '1H')).toBeUndefined();
  });
});

describe('InformativeCandles', () => {
  it('hands out the higher candles a base candle closes, shortest first, then the base candle itself', () => {
    const order: string[] = [];
    const inf = new InformativeCandles('AAAUSDT', '1m', ['15m', '5m']);
    for (let k = 0; k < 15; k++)
      inf.push(c(k, 1, 1), (x) => order.push(`${x.interval}@${(x.openTime - T0) / M}`));
    expect(order.slice(-4)).toEqual(['1m@13', '5m@10', '15m@0', '1m@14']);
    expect(order.filter((x) => !x.startsWith('1m@'))).toEqual(['5m@0', '5m@5', '5m@10', '15m@0']);
  });
});
