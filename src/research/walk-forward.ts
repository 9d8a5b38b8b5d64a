// Walk-forward analysis: on rolling windows, optimise the parameters in-sample (a sweep), evaluate the
// best ones out-of-sample on the following, unseen period, and stitch the out-of-sample equity into one
// curve. Each out-of-sample run first warms the strategy up on the candles before its window (by default
// the in-sample length) without trading them, so indicators are ready when the window opens; only the
// window's own candles are evaluated.
import { availableParallelism } from 'node:os';
import { Decimal } from '../market/decimal.js';
import { openDataset } from '../data/datasets.js';
import { computeMetrics, type Metrics } from './metrics.js';
import type { CandleSource } from '../data/format.js';
import { BacktestInputError } from './grid.js';
import type { BacktestTrade, EquityCurvePoint } from '../backtest/result.js';
import { type BacktestJob } from '../backtest/run-config.js';
import { runJob } from './run-job.js';
import { sharedCandleSource } from '../data/shared-candles.js';
import { SweepPool, expandGrid, runSweep, type SortKey } from './sweep.js';
import { type Grid } from './grid.js';
import { type JobRunner } from './job.js';
import type { SweepCheckpoint } from './checkpoint.js';

export interface WalkForwardWindow {
  readonly inSample: { readonly from: number; readonly to: number };
  readonly outOfSample: { readonly from: number; readonly to: number };
}

/** Rolling windows over [start, end]: in-sample `isMs`, then out-of-sample `oosMs`, stepping by `oosMs`. */
export function walkForwardWindows(
  start: number,
  end: number,
  isMs: number,
  oosMs: number,
): WalkForwardWindow[] {
  if (!(isMs > 0 && oosMs > 0))
    throw new BacktestInputError('in-sample and out-of-sample lengths must be positive, e.g. 730d and 180d');
  const out: WalkForwardWindow[] = [];
  // Each window needs some out-of-sample time after its in-sample period.
  for (let s = start; s + isMs < end; s += oosMs) {
    const oosFrom = s + isMs;
    const oosTo = Math.min(end, oosFrom + oosMs - 1);
    out.push({ inSample: { from: s, to: oosFrom - 1 }, outOfSample: { from: oosFrom, to: oosTo } });
  }
  if (out.length === 0)
    throw new BacktestInputError(
      `the data (${new Date(start).toISOString().slice(0, 10)} to ${new Date(end).toISOString().slice(0, 10)}) is shorter than one in-sample plus out-of-sample window: shorten --in-sample/--out-of-sample or widen --from/--to`,
    );
  return out;
}

export interface WalkForwardStep {
  readonly window: WalkForwardWindow;
  /** The parameters chosen in-sample (the best by the sweep's metric), with the base ones. */
  readonly best: Record<string, unknown>;
  readonly inSample: Metrics | undefined;
  readonly outOfSample: Metrics;
  /** Round trips of the out-of-sample window (after its warm-up). */
  readonly trades: readonly BacktestTrade[];
  /** Equity of the window's run at its end (decimal string), from `capital`. */
  readonly finalEquity: string;
  readonly tradeHash: string;
}

export interface WalkForwardResult {
  /** The capital each window starts from (decimal string). */
  readonly capital: string;
  /** Warm-up before each out-of-sample window, ms (candles seen by the strategy, never traded). */
  readonly warmupMs: number;
  readonly steps: readonly WalkForwardStep[];
  readonly equity: readonly EquityCurvePoint[];
  /** Stitched out-of-sample metrics: the chained curve, and the trades of every window. */
  readonly metrics: Metrics;
}

/** First and last open time of a candle source (one pass). */
export async function datasetSpan(source: CandleSource): Promise<{ from: number; to: number }> {
  let from = Number.NaN;
  let to = Number.NaN;
  for await (const b of source.batches()) {
    if (b.length === 0) continue;
    if (Number.isNaN(from)) from = b.openTime[0] as number;
    to = b.openTime[b.length - 1] as number;
  }
  return { from, to };
}

export async function walkForward(o: {
  base: BacktestJob;
  grid: Grid;
  inSampleMs: number;
  outOfSampleMs: number;
  /**
   * Candles before each out-of-sample window that warm the strategy up without trading (default: the
   * in-sample length, which covers any indicator period the in-sample runs could use).
   */
  warmupMs?: number | undefined;
  sortBy?: SortKey | undefined;
  workers?: number | undefined;
  /** The parameter sets to try in each window (checkGrid's); default: the whole grid. */
  sets?: readonly Record<string, unknown>[] | undefined;
  onStep?: ((done: number, total: number) => void) | undefined;
  /** Where the runs go (a QueueRunner for workers on other machines); closed at the end. Default: a SweepPool. */
  runner?: JobRunner | undefined;
  /** In-sample runs finished by an earlier attempt come from here; each new one is recorded (see runSweep). */
  checkpoint?: SweepCheckpoint | undefined;
  onResume?: ((resumed: number, total: number) => void) | undefined;
}): Promise<WalkForwardResult> {
  // One pool for every window: workers start once and the dataset is read once (into shared memory when it
  // fits, and then the span is read from there too).
  const pool =
    o.runner ??
    (await SweepPool.open({
      dataset: o.base.dataset,
      workers: Math.min(o.workers ?? availableParallelism(), (o.sets ?? expandGrid(o.grid)).length),
      instrument: o.base.instrument,
    }));
  const warmupMs = o.warmupMs ?? o.inSampleMs;
  if (!(warmupMs >= 0)) throw new BacktestInputError('the warm-up length must be zero or more, e.g. 365d');
  const capital = new Decimal(o.base.capital);
  const steps: WalkForwardStep[] = [];
  const stitched: EquityCurvePoint[] = [];
  const inMarket = { steps: 0, held: 0 };
  const trades: BacktestTrade[] = [];
  let fees = new Decimal(0);
  let level = capital;
  const source = () =>
    pool.shared
      ? sharedCandleSource(pool.shared)
      : openDataset(o.base.dataset, { instrument: o.base.instrument });
  try {
    const span = await datasetSpan(source());
    const windows = walkForwardWindows(
      o.base.from ?? span.from,
      o.base.to ?? span.to,
      o.inSampleMs,
      o.outOfSampleMs,
    );
    for (const w of windows) {
      const rows = await runSweep({
        base: { ...o.base, from: w.inSample.from, to: w.inSample.to },
        grid: o.grid,
        sets: o.sets,
        sortBy: o.sortBy,
        pool,
        checkpoint: o.checkpoint,
        onResume: o.onResume,
      });
      const best = rows.find((r) => r.metrics !== undefined);
      if (!best)
        throw new Error(
          `walk-forward window ${new Date(w.inSample.from).toISOString()}: every parameter set failed (${rows[0]?.error ?? ''})`,
        );
      const params = { ...o.base.params, ...best.params };
      // Out-of-sample in this thread (one run per window): the strategy sees the warm-up candles before the
      // window, and trades only inside it.
      const { result } = await runJob(
        {
          ...o.base,
          params,
          from: w.outOfSample.from - warmupMs,
          to: w.outOfSample.to,
          tradeFrom: w.outOfSample.from,
          chart: false,
        },
        undefined,
        source(),
      );
      const equity = result.equity.filter((p) => p.ts >= w.outOfSample.from);
      // A window with no candles (a trailing weekend or holiday) has nothing to evaluate.
      if (equity.length === 0) continue;
      const windowFees = result.trades.reduce((a, t) => a.plus(t.fees), new Decimal(0));
      const outOfSample = computeMetrics(
        o.base.capital,
        equity,
        result.trades,
        windowFees.toFixed(),
        result.inMarket,
        { finalEquity: result.finalEquity },
      );
      // Stitch: each out-of-sample run starts from the capital; chain them by their relative equity.
      const startLevel = level;
      const scale = startLevel.div(capital).toNumber();
      for (const p of equity) stitched.push({ ts: p.ts, equity: p.equity * scale });
      inMarket.steps += result.inMarket.steps;
      inMarket.held += result.inMarket.held;
      level = startLevel.mul(result.finalEquity).div(capital);
      trades.push(...result.trades);
      fees = fees.plus(windowFees);
      steps.push({
        window: w,
        best: params,
        inSample: best.metrics,
        outOfSample,
        trades: result.trades,
        finalEquity: result.finalEquity,
        tradeHash: result.meta.tradeHash,
      });
      o.onStep?.(steps.length, windows.length);
    }
  } finally {
    await pool.close();
  }
  return {
    capital: capital.toFixed(),
    warmupMs,
    steps,
    equity: stitched,
    metrics: computeMetrics(o.base.capital, stitched, trades, fees.toFixed(), inMarket, {
      finalEquity: level.toDecimalPlaces(8).toFixed(),
    }),
  };
}

/** walk-forward.json: money as decimal strings (the curve rounded to `dp` places, the quote coin's). */
export function walkForwardJson(wf: WalkForwardResult, dp: number): unknown {
  return {
    ...wf,
    equity: wf.equity.map((p) => ({ ...p, equity: new Decimal(p.equity).toDecimalPlaces(dp).toFixed() })),
  };
}
