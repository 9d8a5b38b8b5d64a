// A candle source at a longer interval than its data's: a backtest at a bot's 5m interval on 1m data. The
// candles are built by the one resampler the live feeds build informative candles with (src/market/resample.ts).
import type { CandleInterval } from '../api/index.js';
import type { Candle } from '../market/candle.js';
import { CandleResampler } from '../market/resample.js';
import { BATCH_SIZE, newBatch, type CandleBatch, type CandleSource } from './format.js';

/**
 * `source` as candles of `interval`, a whole multiple of its own (throws a RangeError otherwise: check with
 * `resampleProblem` first). A bucket is whole or absent: one the data starts or ends inside is dropped, as
 * a live bot never sees a partial candle. `meta.interval` is `interval`; the rest of the metadata is the
 * source's. A source already at `interval` is returned as it is.
 */
export function resampledSource(source: CandleSource, interval: CandleInterval): CandleSource {
  const base = source.meta.interval;
  if (base === interval) return source;
  const { symbol } = source.meta;
  // Built now: an interval that cannot be resampled throws here, not at the first batch.
  void new CandleResampler(symbol, base, interval);
  return {
    meta: { ...source.meta, interval },
    async *batches(): AsyncGenerator<CandleBatch> {
      const resampler = new CandleResampler(symbol, base, interval);
      // One record for every base candle: the resampler copies what it needs.
      const c: { -readonly [K in keyof Candle]: Candle[K] } = {
        symbol,
        interval: base,
        openTime: 0,
        open: 0,
        high: 0,
        low: 0,
        close: 0,
        volume: 0,
        turnover: 0,
      };
      let out = newBatch();
      const put = (h: Candle): void => {
        const i = out.length++;
        out.openTime[i] = h.openTime;
        out.open[i] = h.open;
        out.high[i] = h.high;
        out.low[i] = h.low;
        out.close[i] = h.close;
        out.volume[i] = h.volume;
        out.turnover[i] = h.turnover;
      };
      for await (const b of source.batches()) {
        for (let i = 0; i < b.length; i++) {
          c.openTime = b.openTime[i] as number;
          c.open = b.open[i] as number;
          c.high = b.high[i] as number;
          c.low = b.low[i] as number;
          c.close = b.close[i] as number;
          c.volume = b.volume[i] as number;
          c.turnover = b.turnover[i] as number;
          resampler.push(c, put);
          // A push closes at most two buckets (one left by a gap, its own): room for both.
          if (out.length >= BATCH_SIZE - 1) {
            yield out;
            // A batch may be reused only after the next call: the consumer may still hold this one.
            out = newBatch();
          }
        }
      }
      if (out.length > 0) yield out;
    },
  };
}
