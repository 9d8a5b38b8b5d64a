// A backtest job run for research: the run with its metrics (sweeps, walk-forward, the CLI), and the second
// pass over its candles for what the engine does not keep (the buy-and-hold benchmark, each trade's excursions).
import { backtestOptionsOf, openJobSources, type BacktestJob } from '../backtest/run-config.js';
import { runBacktest, type BacktestOptions } from '../backtest/engine.js';
import type { BacktestResult, BacktestTrade } from '../backtest/result.js';
import type { CandleSource } from '../data/format.js';
import { loadStrategy } from '../strategy/loader.js';
import { warmUpBefore, type WarmUpBefore } from '../backtest/warm-up-start.js';
import { metricsOf, type Metrics } from './metrics.js';

/**
 * Runs a job in this thread, on `source` when given (a shared copy of `job.dataset`), else on the dataset itself.
 * With `from` (and no `tradeFrom` of its own) the strategy's warm-up is loaded before it, as freqtrade loads its
 * startup candles before --timerange: `warmUpBefore` says from where.
 */
export async function runJob(
  job: BacktestJob,
  onProgress?: (candles: number) => void,
  source?: CandleSource | CandleSource[],
  more: Pick<BacktestOptions, 'strategyLog' | 'onWarmUpShort'> = {},
): Promise<{ result: BacktestResult; metrics: Metrics; warmUpBefore?: WarmUpBefore | undefined }> {
  const strategy = await loadStrategy(job.strategy, job.strategyLookup);
  const options = backtestOptionsOf(job, strategy, source ?? openJobSources(job));
  const before = job.tradeFrom === undefined ? await warmUpBefore(options) : undefined;
  const result = await runBacktest({
    ...options,
    // The candle before `from` is decided at `from`: nothing trades before the first candle of the range.
    ...(before !== undefined && job.from !== undefined
      ? { from: before.from, tradeFrom: job.from + 1 }
      : { tradeFrom: job.tradeFrom }),
    chart: job.chart,
    onProgress,
    ...more,
  });
  // The metrics on first read: the CLI computes them again with the benchmark, a walk-forward over its window,
  // and over a 1M-candle curve they cost about a tenth of the run.
  let metrics: Metrics | undefined;
  return {
    result,
    get metrics(): Metrics {
      return (metrics ??= metricsOf(result));
    },
    ...(before !== undefined ? { warmUpBefore: before } : {}),
  };
}

/** How far a round trip went against (MAE) and for (MFE) the position, as fractions of its entry price. */
export interface Excursion {
  readonly mae: number;
  readonly mfe: number;
}

export interface RunAnalysis {
  /** Buy-and-hold equity at each equity sample: capital x (last close at or before it) / first open. */
  readonly benchmark: number[];
  /** One per trade, in the order of `result.trades`, from every candle the trade was open through. */
  readonly excursions: Excursion[];
}

/**
 * One more pass over the run's candles for what the engine does not keep: the buy-and-hold benchmark and
 * the trades' excursions (exact, from every candle's high and low, not from the downsampled chart).
 */
export async function analyseRun(source: CandleSource, result: BacktestResult): Promise<RunAnalysis> {
  const { from, to } = result.meta;
  const capital = Number(result.meta.capital);
  const samples = result.equity;
  const trades = result.trades;
  // Sized once: pushed a million times, the array was copied as it grew (tens of MB of garbage at the end).
  const benchmark: number[] = new Array<number>(samples.length).fill(0);
  const lows = trades.map((t) => Math.min(Number(t.entryPrice), Number(t.exitPrice)));
  const highs = trades.map((t) => Math.max(Number(t.entryPrice), Number(t.exitPrice)));
  let firstOpen = Number.NaN;
  let lastClose = Number.NaN;
  let si = 0;
  let ti = 0;
  for await (const b of source.batches()) {
    for (let i = 0; i < b.length; i++) {
      const t = b.openTime[i] as number;
      if (t < from || t > to) continue;
      if (Number.isNaN(firstOpen)) firstOpen = b.open[i] as number;
      // Samples are taken after their candle closed: those at or before this candle's open (a candle on the
      // grid closes at the next one's open time) see the previous close.
      while (si < samples.length && samples.ts(si) <= t) {
        benchmark[si] = (capital * lastClose) / firstOpen;
        si++;
      }
      lastClose = b.close[i] as number;
      // A trade is exposed to every candle from its entry fill's candle to the one before its exit fill.
      while (ti < trades.length && (trades[ti] as BacktestTrade).exitTime <= t) ti++;
      for (let k = ti; k < trades.length && (trades[k] as BacktestTrade).entryTime <= t; k++) {
        lows[k] = Math.min(lows[k] as number, b.low[i] as number);
        highs[k] = Math.max(highs[k] as number, b.high[i] as number);
      }
    }
  }
  for (; si < samples.length; si++) benchmark[si] = (capital * lastClose) / firstOpen;
  const excursions = trades.map((t, k) => {
    const entry = Number(t.entryPrice);
    return { mae: (lows[k] as number) / entry - 1, mfe: (highs[k] as number) / entry - 1 };
  });
  return { benchmark, excursions };
}

/**
 * `analyseRun` over a run of one or several symbols: with several, the benchmark is an equal-weight
 * buy-and-hold (the capital split evenly, each part held in one symbol), and each trade's excursions come
 * from its own symbol's candles.
 */
export async function analyseRuns(
  sources: CandleSource | readonly CandleSource[],
  result: BacktestResult,
): Promise<RunAnalysis> {
  const list: readonly CandleSource[] = Array.isArray(sources) ? sources : [sources as CandleSource];
  if (list.length === 1) return analyseRun(list[0] as CandleSource, result);
  const benchmark: number[] = result.equity.map(() => 0);
  const excursions: Excursion[] = result.trades.map(() => ({ mae: 0, mfe: 0 }));
  for (const src of list) {
    const symbol = src.meta.symbol;
    const idx = result.trades.flatMap((t, k) => (t.symbol === symbol ? [k] : []));
    const part = await analyseRun(src, {
      ...result,
      trades: idx.map((k) => result.trades[k] as BacktestTrade),
    });
    part.benchmark.forEach((v, k) => (benchmark[k] = (benchmark[k] as number) + v / list.length));
    part.excursions.forEach((e, j) => (excursions[idx[j] as number] = e));
  }
  return { benchmark, excursions };
}
