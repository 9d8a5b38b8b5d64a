// Walk-forward analysis: on rolling windows, optimise the parameters in-sample (a sweep), evaluate the
// best ones out-of-sample on the following, unseen period, and stitch the out-of-sample equity into one
// curve. Each out-of-sample run first warms the strategy up on the candles before its window (by default
// the in-sample length) without trading them, so indicators are ready when the window opens; only the
// window's own candles are evaluated.
import { availableParallelism } from 'node:os';
import { Decimal } from '../market/decimal.js';
import { openDataset } from '../data/datasets.js';
import { computeMetrics, runSpanMs, type Metrics } from './metrics.js';
import type { CandleSource } from '../data/format.js';
import { BacktestInputError, jobWithSet } from './grid.js';
import type { BacktestResult, BacktestTrade, EquityCurvePoint, SymbolResult } from '../backtest/result.js';
import { openJobSources, type BacktestJob } from '../backtest/run-config.js';
import { runJob } from './run-job.js';
import { sharedCandleSource } from '../data/shared-candles.js';
import { SweepPool, expandGrid, runSweep, type SortKey, type SweepRow } from './sweep.js';
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
  /** Over several symbols, each one's figures in the window's shared account. */
  readonly bySymbol?: Readonly<Record<string, SymbolResult>> | undefined;
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

/** First and last open time of a candle source, or of several together (one pass each). */
export async function datasetSpan(
  source: CandleSource | readonly CandleSource[],
): Promise<{ from: number; to: number }> {
  let from = Number.NaN;
  let to = Number.NaN;
  for (const src of Array.isArray(source) ? source : [source as CandleSource])
    for await (const b of src.batches()) {
      if (b.length === 0) continue;
      if (!(from <= (b.openTime[0] as number))) from = b.openTime[0] as number;
      if (!(to >= (b.openTime[b.length - 1] as number))) to = b.openTime[b.length - 1] as number;
    }
  return { from, to };
}

export interface WalkForwardOptions {
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
}

export async function walkForward(o: WalkForwardOptions): Promise<WalkForwardResult> {
  // What may refuse the input comes before the pool starts, and the pool is closed by the try that follows
  // its start: a refusal in between would leave its worker threads running (and the process alive).
  const warmupMs = o.warmupMs ?? o.inSampleMs;
  if (!(warmupMs >= 0)) throw new BacktestInputError('the warm-up length must be zero or more, e.g. 365d');
  const capital = new Decimal(o.base.capital);
  const stitch = new Stitch(capital);
  const steps: WalkForwardStep[] = [];
  // One pool for every window: workers start once and the dataset is read once (into shared memory when it
  // fits, and then the span is read from there too).
  const pool =
    o.runner ??
    (await SweepPool.open({
      dataset: o.base.dataset,
      datasets: o.base.datasets,
      workers: Math.min(o.workers ?? availableParallelism(), (o.sets ?? expandGrid(o.grid)).length),
      instrument: o.base.instrument,
    }));
  // Over several symbols, every symbol's candles: the windows span them all, and each run trades them all.
  const source = (): CandleSource | CandleSource[] =>
    o.base.datasets !== undefined
      ? openJobSources(o.base)
      : pool.shared
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
      const best = await bestInSample(o, w, pool);
      const params = { ...o.base.params, ...best.params };
      const run = await outOfSample(jobWithSet(o.base, best.params), w, warmupMs, source());
      // A window with no candles (a trailing weekend or holiday) has nothing to evaluate.
      if (run === undefined) continue;
      stitch.add(run);
      steps.push({
        window: w,
        best: params,
        inSample: best.metrics,
        outOfSample: run.metrics,
        trades: run.result.trades,
        finalEquity: run.result.finalEquity,
        tradeHash: run.result.meta.tradeHash,
        ...(o.base.datasets !== undefined ? { bySymbol: run.result.bySymbol } : {}),
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
    equity: stitch.equity,
    metrics: stitch.metrics(o.base.capital),
  };
}

/** The best row of the sweep over the window's in-sample period (by the sweep's metric). */
async function bestInSample(o: WalkForwardOptions, w: WalkForwardWindow, pool: JobRunner): Promise<SweepRow> {
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
  return best;
}

/** One window's out-of-sample run: its result, its equity inside the window, its fees and its metrics. */
interface WindowRun {
  readonly result: BacktestResult;
  readonly equity: readonly EquityCurvePoint[];
  readonly fees: Decimal;
  readonly metrics: Metrics;
  /** The window's start (out of sample). */
  readonly start: number;
}

/**
 * Runs the chosen job (the parameters, exits and protections chosen in-sample) out-of-sample in this thread
 * (one run per window): the strategy sees the warm-up candles before the window, and trades only inside it.
 * Undefined when the window has no candles.
 */
async function outOfSample(
  base: BacktestJob,
  w: WalkForwardWindow,
  warmupMs: number,
  source: CandleSource | CandleSource[],
): Promise<WindowRun | undefined> {
  const { result } = await runJob(
    {
      ...base,
      from: w.outOfSample.from - warmupMs,
      to: w.outOfSample.to,
      tradeFrom: w.outOfSample.from,
      chart: false,
    },
    undefined,
    source,
  );
  const equity = result.equity.pointsFrom(w.outOfSample.from);
  if (equity.length === 0) return undefined;
  const fees = result.trades.reduce((a, t) => a.plus(t.fees), new Decimal(0));
  const metrics = computeMetrics(base.capital, equity, result.trades, fees.toFixed(), result.inMarket, {
    start: w.outOfSample.from,
    spanMs: result.meta.from + runSpanMs(result.meta) - w.outOfSample.from,
    finalEquity: result.finalEquity,
  });
  return { result, equity, fees, metrics, start: w.outOfSample.from };
}

/**
 * The out-of-sample runs chained into one curve: each run starts from the capital, so each is scaled by the
 * level the runs before it reached; their trades, fees and time in the market add up.
 */
class Stitch {
  readonly equity: EquityCurvePoint[] = [];
  private readonly trades: BacktestTrade[] = [];
  private readonly inMarket = { steps: 0, held: 0 };
  private fees = new Decimal(0);
  private level: Decimal;
  /** The first window's start and the last window's end (its last candle's close). */
  private start: number | undefined;
  private end = 0;

  constructor(private readonly capital: Decimal) {
    this.level = capital;
  }

  add(run: WindowRun): void {
    const scale = this.level.div(this.capital).toNumber();
    this.start ??= run.start;
    this.end = run.result.meta.from + runSpanMs(run.result.meta);
    for (const p of run.equity) this.equity.push({ ts: p.ts, equity: p.equity * scale });
    this.inMarket.steps += run.result.inMarket.steps;
    this.inMarket.held += run.result.inMarket.held;
    this.level = this.level.mul(run.result.finalEquity).div(this.capital);
    this.trades.push(...run.result.trades);
    this.fees = this.fees.plus(run.fees);
  }

  /** The stitched metrics: the chained curve, and the trades of every window. */
  metrics(capital: string): Metrics {
    return computeMetrics(capital, this.equity, this.trades, this.fees.toFixed(), this.inMarket, {
      start: this.start,
      spanMs: this.start === undefined ? undefined : this.end - this.start,
      finalEquity: this.level.toDecimalPlaces(8).toFixed(),
    });
  }
}

/** walk-forward.json: money as decimal strings (the curve rounded to `dp` places, the quote coin's). */
export function walkForwardJson(wf: WalkForwardResult, dp: number): unknown {
  return {
    ...wf,
    equity: wf.equity.map((p) => ({ ...p, equity: new Decimal(p.equity).toDecimalPlaces(dp).toFixed() })),
  };
}
