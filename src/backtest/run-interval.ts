// The interval a backtest runs at, as a live bot runs at its configured one: the one asked for (the backtest
// file's `interval`), else the data's when the strategy declares it, else the strategy's first. Data at a finer
// interval that divides it is resampled (the one resampler, src/market/resample.ts); anything else is refused.
import { CANDLE_INTERVALS, INTERVAL_MS, type CandleInterval } from '../api/index.js';
import { resampleProblem } from '../market/resample.js';
import { StrategyDefinitionError, type Strategy } from '../strategy/contract.js';
import { CandleFileError, type CandleSource } from '../data/format.js';
import { resampledSource } from '../data/resampled-source.js';

/** The sources at the run's interval, and the data's interval when they were resampled from it. */
export interface RunSources {
  readonly interval: CandleInterval;
  readonly resampledFrom: CandleInterval | undefined;
  readonly sources: readonly CandleSource[];
}

/** Whether candles of `data` make candles of `run`: the same interval, or a whole multiple of it. */
const makes = (data: CandleInterval, run: CandleInterval): boolean =>
  data === run || resampleProblem(data, run) === undefined;

/**
 * The interval a run of `strategy` on `data` candles runs at: `asked` when given, else `data` when the strategy
 * declares it (a run at the data's interval is what it always was), else the strategy's first declared one.
 */
export function runIntervalOf(
  strategy: Pick<Strategy, 'intervals'>,
  asked: CandleInterval | undefined,
  data: CandleInterval,
): CandleInterval {
  if (asked !== undefined) return asked;
  return strategy.intervals.includes(data) ? data : (strategy.intervals[0] ?? data);
}

/**
 * Why `dataset` (candles of `data`) cannot run at `run`, with the fix; undefined when it can. The intervals the
 * data can make are offered among those the strategy declares.
 */
export function runIntervalProblem(
  dataset: string,
  data: CandleInterval,
  run: CandleInterval,
  strategy: Pick<Strategy, 'intervals'>,
): string | undefined {
  if (makes(data, run)) return undefined;
  const why =
    INTERVAL_MS[run] < INTERVAL_MS[data]
      ? `${run} candles cannot be made from longer ${data} ones`
      : `${run} is not a whole number of ${data} candles`;
  const finer = CANDLE_INTERVALS.filter((i) => i !== run && makes(i, run));
  const give = finer.length > 0 ? `${run} data or data that divides it (${finer.join(', ')})` : `${run} data`;
  const can = strategy.intervals.filter((i) => makes(data, i));
  const set =
    can.length > 0
      ? `, or set interval to one this data makes that the strategy declares (${can.join(', ')})`
      : '';
  return `dataset ${dataset} holds ${data} candles and the run's interval is ${run}: ${why}; give ${give}${set}`;
}

/**
 * The sources of a run at its interval (see `runIntervalOf`), resampled when the data is finer. Refuses an
 * interval the strategy does not declare, and data that cannot make it, with a sentence. Sources of another
 * interval than the first's are left as they are: the lanes refuse them (one interval per run).
 */
export function atRunInterval(
  o: {
    readonly strategy: Strategy;
    readonly interval?: CandleInterval | undefined;
    readonly dataset: string;
  },
  sources: readonly CandleSource[],
): RunSources {
  const data = sources[0]?.meta.interval;
  if (data === undefined) return { interval: '1m', resampledFrom: undefined, sources };
  const interval = runIntervalOf(o.strategy, o.interval, data);
  if (!o.strategy.intervals.includes(interval))
    throw new StrategyDefinitionError(
      `strategy "${o.strategy.name}" declares the intervals ${o.strategy.intervals.join(', ')}, and the run's interval is ${interval}: set interval to one of them`,
    );
  const problem = runIntervalProblem(o.dataset, data, interval, o.strategy);
  if (problem !== undefined) throw new CandleFileError(problem);
  if (interval === data) return { interval, resampledFrom: undefined, sources };
  return {
    interval,
    resampledFrom: data,
    sources: sources.map((s) => (s.meta.interval === data ? resampledSource(s, interval) : s)),
  };
}
