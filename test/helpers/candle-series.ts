// A one-minute candle source of given closes for backtest tests: each candle opens at the previous close,
// its high and low half a point beyond, on the S&P 500 Reality token's rules (or a crypto symbol's).
import type { Instrument } from '../../src/api/index.js';
import { SPX_INSTRUMENT } from '../../src/data/datasets.js';
import { FORMAT_NAME, appendCandle, candlesOf, newBatch, type CandleSource } from '../../src/data/format.js';
import { SYNTHETIC_INSTRUMENT } from '../../src/data/synthetic.js';

/** `symbol`: a crypto symbol such as "AAAUSDT" (price precision 2, quantity precision 5) instead of SPXUSDT. */
export function closesSeries(start: number, closes: readonly number[], symbol?: string): CandleSource {
  return {
    meta: {
      format: FORMAT_NAME,
      version: 1,
      symbol: symbol ?? 'SPXUSDT',
      category: 'SPOT',
      interval: '1m',
      instrument: symbol === undefined ? SPX_INSTRUMENT : SYNTHETIC_INSTRUMENT(symbol, 2),
    },
    async *batches() {
      const b = newBatch(closes.length);
      let prev = closes[0] as number;
      closes.forEach((c, i) => {
        appendCandle(b, start + i * 60_000, prev, Math.max(prev, c) + 0.5, Math.min(prev, c) - 0.5, c, 1, c);
        prev = c;
      });
      yield b;
    },
  };
}

/** One one-minute candle: open time, open, high, low, close. */
export type TimedBar = readonly [t: number, o: number, h: number, l: number, c: number];

/**
 * One-minute AAPLUSDT candles of the given bars, on `instrument`'s rules, each with volume 10 (turnover
 * 10 x close): the backtest side of the paper-parity and exit cases.
 */
export function barsSource(bars: readonly TimedBar[], instrument: Instrument): CandleSource {
  return {
    meta: {
      format: FORMAT_NAME,
      version: 1,
      symbol: 'AAPLUSDT',
      category: 'SPOT',
      interval: '1m',
      instrument,
    },
    async *batches() {
      const b = newBatch(bars.length);
      for (const [t, o, h, l, c] of bars) appendCandle(b, t, o, h, l, c, 10, 10 * c);
      yield b;
    },
  };
}

/** Every candle of a source as [openTime, open, high, low, close, volume, turnover], to compare sources. */
export async function candleRows(src: CandleSource): Promise<number[][]> {
  const out: number[][] = [];
  for await (const c of candlesOf(src))
    out.push([c.openTime, c.open, c.high, c.low, c.close, c.volume, c.turnover]);
  return out;
}
