// Informative timeframes: higher-interval candles built from closed base candles, in one place for the
// live feeds and the backtester. A higher candle is handed out only once it has closed, never partial.
import { INTERVAL_MS, type CandleInterval } from '../api/index.js';
import type { Candle } from './candle.js';

/** Why an informative interval cannot be built from a base interval; undefined when it can. */
export function resampleProblem(base: CandleInterval, target: CandleInterval): string | undefined {
  const b = INTERVAL_MS[base];
  const t = INTERVAL_MS[target];
  if (t <= b) return `informative interval ${target} must be longer than the base interval ${base}`;
  if (t % b !== 0) return `informative interval ${target} is not a whole number of ${base} candles`;
  return undefined;
}

/**
 * Builds `target` candles from closed `base` candles of one symbol. Buckets are aligned to the epoch
 * (UTC), as the venue's candles are. A bucket is emitted when its last base candle closes at the bucket's
 * end, or, after a gap in the data, when the first base candle of a later bucket arrives (still after its
 * close). A first bucket whose opening candle was not seen (the data starts inside it) is dropped: it
 * would be partial.
 */
export class CandleResampler {
  readonly interval: CandleInterval;
  private readonly span: number;
  private readonly step: number;
  private bucket = Number.NaN;
  private open = 0;
  private high = 0;
  private low = 0;
  private close = 0;
  private volume = 0;
  private turnover = 0;
  /** False while the current bucket misses its opening candle. */
  private whole = false;

  constructor(
    readonly symbol: string,
    base: CandleInterval,
    target: CandleInterval,
  ) {
    const problem = resampleProblem(base, target);
    if (problem !== undefined) throw new RangeError(problem);
    this.interval = target;
    this.span = INTERVAL_MS[target];
    this.step = INTERVAL_MS[base];
  }

  /** Takes the next closed base candle (in time order); calls `out` with each higher candle it closes. */
  push(c: Candle, out: (higher: Candle) => void): void {
    const start = c.openTime - (c.openTime % this.span);
    if (start !== this.bucket) {
      // A later bucket: the current one closed in a gap of the data.
      if (!Number.isNaN(this.bucket) && this.whole) out(this.take());
      this.bucket = start;
      this.whole = c.openTime === start;
      this.open = c.open;
      this.high = c.high;
      this.low = c.low;
      this.close = c.close;
      this.volume = c.volume;
      this.turnover = c.turnover;
    } else {
      if (c.high > this.high) this.high = c.high;
      if (c.low < this.low) this.low = c.low;
      this.close = c.close;
      this.volume += c.volume;
      this.turnover += c.turnover;
    }
    if (c.openTime + this.step >= start + this.span) {
      if (this.whole) out(this.take());
      this.bucket = Number.NaN;
    }
  }

  private take(): Candle {
    return {
      symbol: this.symbol,
      interval: this.interval,
      openTime: this.bucket,
      open: this.open,
      high: this.high,
      low: this.low,
      close: this.close,
      volume: this.volume,
      turnover: this.turnover,
    };
  }
}

/**
 * The resamplers of one symbol for a strategy's informative intervals. `push` hands out, for each closed
 * base candle, the higher candles it closes (shortest interval first), then the base candle itself: a
 * strategy deciding on a base candle already sees every higher candle that closed with it.
 */
export class InformativeCandles {
  private readonly resamplers: CandleResampler[];
  constructor(symbol: string, base: CandleInterval, informative: readonly CandleInterval[]) {
    this.resamplers = [...new Set(informative)]
      .sort((a, b) => INTERVAL_MS[a] - INTERVAL_MS[b])
      .map((i) => new CandleResampler(symbol, base, i));
  }
  push(c: Candle, out: (candle: Candle) => void): void {
    for (const r of this.resamplers) r.push(c, out);
    out(c);
  }
}
