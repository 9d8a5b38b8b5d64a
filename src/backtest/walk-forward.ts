// Walk-forward analysis: on rolling windows, optimise the parameters in-sample (a sweep), evaluate the
// best ones out-of-sample on the following, unseen period, and stitch the out-of-sample equity into one
// curve. Each out-of-sample run starts with cold indicators (no in-sample data reaches it).
import { availableParallelism } from 'node:os';
import { openDataset } from './datasets.js';
import { computeMetrics, type Metrics } from './metrics.js';
import type { CandleSource } from './format.js';
import type { EquityPoint } from './result.js';
import type { BacktestJob } from './run-config.js';
import { sharedCandleSource } from './shared-candles.js';
import { SweepPool, expandGrid, runSweep, type Grid, type JobRunner, type SortKey } from './sweep.js';

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
  if (!(isMs > 0 && oosMs > 0)) throw new RangeError('in-sample and out-of-sample lengths must be positive');
  const out: WalkForwardWindow[] = [];
  // Each window needs some out-of-sample time after its in-sample period.
  for (let s = start; s + isMs < end; s += oosMs) {
    const oosFrom = s + isMs;
    const oosTo = Math.min(end, oosFrom + oosMs - 1);
    out.push({ inSample: { from: s, to: oosFrom - 1 }, outOfSample: { from: oosFrom, to: oosTo } });
  }
  if (out.length === 0)
    throw new RangeError('the data is shorter than one in-sample plus out-of-sample window');
  return out;
}

export interface WalkForwardStep {
  readonly window: WalkForwardWindow;
  readonly best: Record<string, unknown>;
  readonly inSample: Metrics | undefined;
  readonly outOfSample: Metrics;
  readonly tradeHash: string;
}

export interface WalkForwardResult {
  readonly steps: readonly WalkForwardStep[];
  readonly equity: readonly EquityPoint[];
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
  sortBy?: SortKey | undefined;
  workers?: number | undefined;
  onStep?: ((done: number, total: number) => void) | undefined;
  /** Where the runs go (a QueueRunner for workers on other machines); closed at the end. Default: a SweepPool. */
  runner?: JobRunner | undefined;
}): Promise<WalkForwardResult> {
  // One pool for every window: workers start once and the dataset is read once (into shared memory when it
  // fits, and then the span is read from there too).
  const pool =
    o.runner ??
    (await SweepPool.open({
      dataset: o.base.dataset,
      workers: Math.min(o.workers ?? availableParallelism(), expandGrid(o.grid).length),
      instrument: o.base.instrument,
    }));
  const capital = Number(o.base.capital);
  const steps: WalkForwardStep[] = [];
  const stitched: EquityPoint[] = [];
  let level = capital;
  try {
    const span = await datasetSpan(
      pool.shared
        ? sharedCandleSource(pool.shared)
        : openDataset(o.base.dataset, { instrument: o.base.instrument }),
    );
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
        sortBy: o.sortBy,
        pool,
      });
      const best = rows.find((r) => r.metrics !== undefined);
      if (!best)
        throw new Error(
          `walk-forward window ${new Date(w.inSample.from).toISOString()}: every parameter set failed (${rows[0]?.error ?? ''})`,
        );
      const params = { ...o.base.params, ...best.params };
      const [oos] = await pool.run([
        { ...o.base, params, from: w.outOfSample.from, to: w.outOfSample.to, chart: false },
      ]);
      if (oos?.metrics === undefined || oos.equity === undefined || oos.finalEquity === undefined) {
        throw new Error(
          `walk-forward window ${new Date(w.outOfSample.from).toISOString()}: the out-of-sample run failed (${oos?.error ?? 'no answer'})`,
        );
      }
      // A window with no candles (a trailing weekend or holiday) has nothing to evaluate.
      if (oos.candles === 0) continue;
      // Stitch: each out-of-sample run starts from the capital; chain them by their relative equity.
      const startLevel = level;
      for (const p of oos.equity)
        stitched.push({ ts: p.ts, equity: (startLevel * p.equity) / capital, exposed: p.exposed });
      level = (startLevel * Number(oos.finalEquity)) / capital;
      steps.push({
        window: w,
        best: params,
        inSample: best.metrics,
        outOfSample: oos.metrics,
        tradeHash: oos.tradeHash ?? '',
      });
      o.onStep?.(steps.length, windows.length);
    }
  } finally {
    await pool.close();
  }
  return { steps, equity: stitched, metrics: computeMetrics(capital, stitched, [], 0) };
}
