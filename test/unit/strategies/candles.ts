// Scripted candle series for strategy tests.
import type { CandleInterval } from '../../../src/api/index.js';
import { INTERVAL_MS } from '../../../src/api/index.js';
import type { Candle } from '../../../src/market/candle.js';

/** Candles whose closes follow `closes`, each opening at the previous close, one interval apart. */
export function candlesFromCloses(
  symbol: string,
  closes: readonly number[],
  opts: { start?: number; interval?: CandleInterval; spread?: number } = {},
): Candle[] {
  const interval = opts.interval ?? '1m';
  const step = INTERVAL_MS[interval];
  const start = opts.start ?? Date.UTC(2026, 0, 5, 15, 0);
  const spread = opts.spread ?? 0;
  let prev = closes[0] ?? 0;
  return closes.map((close, i) => {
    const open = prev;
    prev = close;
    return {
      symbol,
      interval,
      openTime: start + i * step,
      open,
      high: Math.max(open, close) + spread,
      low: Math.min(open, close) - spread,
      close,
      volume: 1,
      turnover: close,
    };
  });
}

/** Interleaves several per-symbol series by openTime (stable), as a multi-symbol feed delivers them. */
export function interleave(...series: Candle[][]): Candle[] {
  return series.flat().sort((a, b) => a.openTime - b.openTime);
}
