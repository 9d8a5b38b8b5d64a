// `--from` loads the warm-up before the range (freqtrade loads its startup candles before --timerange): a run
// asked to start at 02:00 with a 50-candle warm-up replays the 50 candles before 02:00 without trading, so
// its first decision that may trade is the 02:00 candle's, as in a run that had been going since earlier.
import { INTERVAL_MS, type CandleInterval } from '../api/index.js';
import { mergeByTime } from '../data/merge-sources.js';
import type { CandleSource } from '../data/format.js';
import { parseStrategyParams } from '../strategy/params.js';
import type { BacktestOptions } from './options.js';
import { atRunInterval } from './run-interval.js';

/** The warm-up's candles found before `from`. */
export interface WarmUpBefore {
  /** Open time of the first of them: the replay starts there. */
  readonly from: number;
  /** Candles of the run's interval found before `from`, and how many the warm-up wanted. */
  readonly candles: number;
  readonly wanted: number;
}

/**
 * Candles of the run's interval a warm-up of `n` spans: an informative interval counts in candles of its
 * own, so a 5m run with a 1H informative interval and a warm-up of 20 needs 240 of them.
 */
export function warmUpSpan(n: number, base: CandleInterval, informative: readonly CandleInterval[]): number {
  const ratio = Math.max(1, ...informative.map((i) => Math.ceil(INTERVAL_MS[i] / INTERVAL_MS[base])));
  return n * ratio;
}

/**
 * Where a run with `from` starts so that the strategy's warm-up ends just before it: the open time of the
 * warm-up's first candle before `from` (at the run's interval), or undefined when there is no `from`, no
 * warm-up, no candle before it or none in the range. Reads the data up to `from` only.
 */
export async function warmUpBefore(o: BacktestOptions): Promise<WarmUpBefore | undefined> {
  if (o.from === undefined) return undefined;
  const warmUp = o.strategy.warmUp(parseStrategyParams(o.strategy, o.params ?? {}));
  if (warmUp.candles <= 0) return undefined;
  const data: readonly CandleSource[] = Array.isArray(o.source) ? o.source : [o.source as CandleSource];
  const { interval, sources } = atRunInterval(o, data);
  const wanted = warmUpSpan(warmUp.candles, interval, o.strategy.informative);
  // The last `wanted` distinct open times before `from`, in a ring.
  const ring = new Float64Array(wanted);
  let seen = 0;
  let last = Number.NaN;
  // Whether the range has a candle at all: without one there is nothing to warm up for (and the run says so).
  let inRange = false;
  scan: for await (const b of mergeByTime(sources)) {
    for (let i = 0; i < b.length; i++) {
      const t = b.openTime[i] as number;
      if (t >= o.from) {
        inRange = t <= (o.to ?? Infinity);
        break scan;
      }
      if (t === last) continue;
      last = t;
      ring[seen % wanted] = t;
      seen++;
    }
  }
  if (seen === 0 || !inRange) return undefined;
  const candles = Math.min(seen, wanted);
  return { from: ring[(seen - candles) % wanted] as number, candles, wanted };
}
