// Parameter sweeps on all cores (worker threads), and the grid they run over.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Metrics } from './metrics.js';
import type { EquityCurvePoint } from '../backtest/result.js';
import type { InstrumentOverride } from '../data/columnar.js';
import { coerceParams, type BacktestJob } from '../backtest/run-config.js';
import { loadStrategy } from '../strategy/loader.js';
import { openDataset } from '../data/datasets.js';
import { GridError, jobWithSet, type Grid } from './grid.js';
import type { JobOutcome, JobRunner } from './job.js';
import { SIGNED_DECIMAL_RE } from '../api/params.js';
import { Decimal, formatPercent } from '../market/decimal.js';
import { shareCandles, type SharedCandles } from '../data/shared-candles.js';
import type { SweepCheckpoint } from './checkpoint.js';

/** At most this many values in one range, and combinations in one grid: a typo must not queue a billion runs. */
const MAX_RANGE_VALUES = 10_000;
const MAX_GRID_COMBINATIONS = 100_000;

/**
 * The values of one grid item: `20` is itself; `5..50:5` is 5, 10, ... 50 (the step exact in decimal:
 * `0.01..0.05:0.01` is 0.01, 0.02, ... 0.05); `5..8` steps by 1. `to` is included when the steps land on it.
 */
function gridValues(name: string, item: string): string[] {
  const m = /^([^.:]*(?:\.[^.:]+)?)\.\.([^:]*)(?::(.*))?$/.exec(item);
  if (m === null) return [item];
  const [, a = '', b = '', st] = m;
  const num = (x: string) => (SIGNED_DECIMAL_RE.test(x.trim()) ? new Decimal(x.trim()) : undefined);
  const from = num(a);
  const to = num(b);
  const step = st === undefined ? new Decimal(1) : num(st);
  const example = `${name}=5..50:5`;
  if (from === undefined || to === undefined || step === undefined)
    throw new GridError(
      `${name}=${item}: a range is from..to or from..to:step with numbers, e.g. ${example}`,
    );
  if (!step.gt(0)) throw new GridError(`${name}=${item}: the step must be above 0, e.g. ${example}`);
  if (from.gt(to))
    throw new GridError(
      `${name}=${item}: the range starts above its end; write ${name}=${b}..${a}${st === undefined ? '' : `:${st}`}`,
    );
  const count = to.minus(from).div(step).floor().plus(1);
  if (count.gt(MAX_RANGE_VALUES))
    throw new GridError(
      `${name}=${item} is ${count.toFixed()} values (at most ${MAX_RANGE_VALUES.toLocaleString('en-US')}); raise the step or narrow the range`,
    );
  const out: string[] = [];
  for (let k = 0; k < count.toNumber(); k++) out.push(from.plus(step.mul(k)).toFixed());
  return out;
}

/**
 * Parses `fast=5,10,20 slow=50,100` (or ranges, `fast=5..50:5`, mixed with values: `fast=5,10..30:10`) into a
 * grid of strings; each value is given to the strategy as a number or a string, whichever its parameter
 * schema accepts (see `coerceParams`). A key `exits.NAME` or `protections.NAME` (`exits.stopLoss=0.02,0.04`,
 * `exits.trailingStop.distance=0.01..0.03:0.01`) sets an exit or a protection instead (see `checkGrid`).
 */
export function parseGrid(spec: string): Grid {
  const grid: Record<string, string[]> = {};
  for (const part of spec.trim().split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z_]\w*(?:\.\w+)*)=(.+)$/.exec(part);
    if (!m)
      throw new GridError(
        `grid entry ${JSON.stringify(part)} must look like name=1,2,3 or name=5..50:5 (an exit or protection: exits.stopLoss=0.02..0.06:0.01)`,
      );
    const name = m[1] as string;
    if (name in grid)
      throw new GridError(`${name} appears twice in the grid; list its values once, e.g. ${name}=10,20`);
    grid[name] = (m[2] as string).split(',').flatMap((item) => gridValues(name, item));
  }
  if (Object.keys(grid).length === 0)
    throw new GridError('the grid is empty: pass e.g. --grid "fast=5,10 slow=50,100" or "fast=5..50:5"');
  const combinations = Object.values(grid).reduce((n, v) => n * v.length, 1);
  if (combinations > MAX_GRID_COMBINATIONS)
    throw new GridError(
      `the grid is ${combinations.toLocaleString('en-US')} runs (${Object.entries(grid)
        .map(([k, v]) => `${k}: ${v.length}`)
        .join(
          ' x ',
        )}), more than ${MAX_GRID_COMBINATIONS.toLocaleString('en-US')}; raise a step or narrow a range`,
    );
  return grid;
}

/** Every combination of the grid, in a stable order. */
export function expandGrid(grid: Grid): Record<string, unknown>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [k, values] of Object.entries(grid))
    out = out.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  return out;
}

/**
 * Every combination of the grid with its text values typed as the strategy's parameters take them ("20"
 * is 20 for a number parameter): the grid is text, the runs read their parameters as typed.
 */
async function typedSets(base: BacktestJob, grid: Grid): Promise<Record<string, unknown>[]> {
  const strategy = await loadStrategy(base.strategy, base.strategyLookup);
  return expandGrid(grid).map((combo) => coerceParams(strategy, combo));
}

export interface SweepRow {
  /** The grid's keys and their values in this run (exits and protections as `exits.stopLoss`, ...). */
  readonly params: Record<string, unknown>;
  /** Of the whole run: over several symbols, the one account they share (as a multi-symbol backtest). */
  readonly metrics?: Metrics | undefined;
  /** Over several symbols, each one's figures in that account (its round trips, PnL and fees). */
  readonly bySymbol?: JobOutcome['bySymbol'];
  readonly error?: string | undefined;
  readonly tradeHash?: string | undefined;
  readonly equity?: readonly EquityCurvePoint[] | undefined;
}

export type SortKey =
  'sharpe' | 'sortino' | 'calmar' | 'totalReturn' | 'cagr' | 'profitFactor' | 'expectancy' | 'winRate';
export const SORT_KEYS: readonly SortKey[] = [
  'sharpe',
  'sortino',
  'calmar',
  'totalReturn',
  'cagr',
  'profitFactor',
  'expectancy',
  'winRate',
];

/** A sweep worker: the built .js file, or from the sources (tsx) a bootstrap that registers tsx first. */
function newWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./sweep-worker.js', import.meta.url));
  const target = new URL('./sweep-worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(target)}); });`;
  return new Worker(boot, { eval: true });
}

/**
 * Worker threads that stay up across runs (a walk-forward runs one grid per window on the same pool),
 * with the dataset loaded once into shared memory when it fits in `sharedLimitBytes` (each job then
 * reads it without a copy; a larger dataset is streamed by each job instead).
 *
 * @example
 * const pool = await SweepPool.open({ dataset: 'synthetic-1m:7:1000000', workers: 4 });
 * try { const outcomes = await pool.run(jobs); } finally { await pool.close(); }
 */
export class SweepPool implements JobRunner {
  private busy = false;
  private constructor(
    /** The dataset every job of this pool must name (the shared memory holds it). */
    readonly dataset: string,
    private readonly workers: readonly Worker[],
    /** The shared dataset, undefined when it was too large to share. */
    readonly shared: SharedCandles | undefined,
  ) {}

  static async open(o: {
    dataset: string;
    /** The datasets of jobs over several symbols: each job then reads them itself (nothing is shared). */
    datasets?: readonly string[] | undefined;
    workers?: number | undefined;
    sharedLimitBytes?: number | undefined;
    /** Instrument rules for a dataset file that carries none (the jobs' `instrument`). */
    instrument?: InstrumentOverride | undefined;
  }): Promise<SweepPool> {
    const n = Math.max(1, o.workers ?? availableParallelism());
    const shared =
      o.datasets === undefined
        ? await shareCandles(openDataset(o.dataset, { instrument: o.instrument }), o.sharedLimitBytes)
        : undefined;
    return new SweepPool(o.dataset, Array.from({ length: n }, newWorker), shared);
  }

  /** Runs the jobs (of the pool's dataset) on all workers; outcomes come back in the order of the jobs. */
  async run(
    jobs: readonly BacktestJob[],
    onProgress?: (done: number, total: number) => void,
    onOutcome?: (index: number, outcome: JobOutcome) => void,
  ): Promise<JobOutcome[]> {
    if (this.busy)
      throw new Error('SweepPool.run: the pool is already running jobs; await the previous run first');
    const other = jobs.find((j) => j.dataset !== this.dataset);
    if (other)
      throw new Error(
        `SweepPool.run: this pool holds ${this.dataset}, not ${other.dataset}; open a pool on that dataset`,
      );
    this.busy = true;
    const out: JobOutcome[] = new Array(jobs.length);
    let next = 0;
    let done = 0;
    const detach: (() => void)[] = [];
    try {
      await Promise.all(
        this.workers.map(
          (w) =>
            new Promise<void>((resolve, reject) => {
              const send = () => {
                if (next >= jobs.length) return resolve();
                const id = next++;
                w.postMessage({ id, job: jobs[id], ...(this.shared ? { shared: this.shared } : {}) });
              };
              const onMessage = (m: JobOutcome & { id: number }) => {
                out[m.id] = m;
                onOutcome?.(m.id, m);
                onProgress?.(++done, jobs.length);
                send();
              };
              const onExit = (code: number) =>
                reject(new Error(`a sweep worker stopped unexpectedly (exit code ${code})`));
              w.on('message', onMessage);
              w.on('error', reject);
              w.on('exit', onExit);
              detach.push(() => {
                w.off('message', onMessage);
                w.off('error', reject);
                w.off('exit', onExit);
              });
              send();
            }),
        ),
      );
    } finally {
      for (const d of detach) d();
      this.busy = false;
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Runs one job per parameter set on `workers` threads; rows come back sorted by `sortBy`, best first. */
export async function runSweep(o: {
  base: BacktestJob;
  grid: Grid;
  workers?: number | undefined;
  sortBy?: SortKey | undefined;
  keepEquity?: boolean | undefined;
  onProgress?: ((done: number, total: number) => void) | undefined;
  /** An open runner on the same dataset (walk-forward reuses one; a QueueRunner runs on a queue); by default a
   * SweepPool is opened and closed. */
  pool?: JobRunner | undefined;
  /** The parameter sets to run (checkGrid's, without the combinations it skipped); default: the whole grid. */
  sets?: readonly Record<string, unknown>[] | undefined;
  /** Runs finished by an earlier attempt are taken from here, and each new one is recorded in it. */
  checkpoint?: SweepCheckpoint | undefined;
  /** Told before any run how many of the runs the checkpoint already holds. */
  onResume?: ((resumed: number, total: number) => void) | undefined;
  /** Rows in the order of `sets`, not ranked (a search matches each row to its trial). */
  keepOrder?: boolean | undefined;
}): Promise<SweepRow[]> {
  const sets = o.sets ?? (await typedSets(o.base, o.grid));
  const jobs = sets.map((p) => jobWithSet(o.base, p));
  const cp = o.checkpoint;
  const outcomes: (JobOutcome | undefined)[] = jobs.map((j) => cp?.get(j));
  const todo = jobs.flatMap((j, i) => (outcomes[i] === undefined ? [i] : []));
  const resumed = jobs.length - todo.length;
  if (resumed > 0) o.onResume?.(resumed, jobs.length);
  if (todo.length > 0) {
    const pool =
      o.pool ??
      (await SweepPool.open({
        dataset: o.base.dataset,
        datasets: o.base.datasets,
        workers: Math.min(o.workers ?? availableParallelism(), todo.length),
        instrument: o.base.instrument,
      }));
    try {
      const ran = await pool.run(
        todo.map((i) => jobs[i] as BacktestJob),
        (d) => o.onProgress?.(resumed + d, jobs.length),
        (k, m) => cp?.add(jobs[todo[k] as number] as BacktestJob, m),
      );
      ran.forEach((m, k) => (outcomes[todo[k] as number] = m));
    } finally {
      if (o.pool === undefined) await pool.close();
    }
  } else o.onProgress?.(jobs.length, jobs.length);
  const rows: SweepRow[] = (outcomes as JobOutcome[]).map((m, i) => ({
    params: sets[i] as Record<string, unknown>,
    metrics: m.metrics,
    error: m.error,
    tradeHash: m.tradeHash,
    ...(m.bySymbol !== undefined ? { bySymbol: m.bySymbol } : {}),
    ...(o.keepEquity ? { equity: m.equity } : {}),
  }));
  if (o.keepOrder === true) return rows;
  const key = o.sortBy ?? 'sharpe';
  const score = (r: SweepRow) => {
    const v = r.metrics?.[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : -Infinity;
  };
  return rows.sort((a, b) => score(b) - score(a));
}

/** The symbols of a sweep over several, from its rows (empty for one symbol). */
export const sweepSymbols = (rows: readonly SweepRow[]): string[] =>
  Object.keys(rows.find((r) => r.bySymbol !== undefined)?.bySymbol ?? {});

/**
 * A results table for the terminal. Over several symbols the metrics are those of the account the symbols
 * share (ranked on them), followed by each symbol's realised PnL in it.
 */
export function formatSweep(rows: readonly SweepRow[], sortBy: SortKey, limit = 20): string {
  const keys = Object.keys(rows[0]?.params ?? {});
  const symbols = sweepSymbols(rows);
  const head = [
    '#',
    ...keys,
    'sharpe',
    'return',
    'maxDD',
    'trades',
    'winRate',
    ...symbols.map((s) => `pnl ${s}`),
  ];
  const lines = rows.slice(0, limit).map((r, i) => {
    const m = r.metrics;
    return [
      String(i + 1),
      ...keys.map((k) => String(r.params[k])),
      m ? m.sharpe.toFixed(2) : 'error',
      m ? formatPercent(m.totalReturn) : (r.error ?? ''),
      m ? formatPercent(m.maxDrawdown) : '',
      m ? String(m.trades) : '',
      m ? formatPercent(m.winRate, 1) : '',
      ...symbols.map((s) => r.bySymbol?.[s]?.pnl ?? ''),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] as number)).join('  ');
  const over =
    symbols.length > 1
      ? ` (${symbols.length} symbols in one account, as a backtest of several symbols: the metrics are the account's)`
      : '';
  return [`sorted by ${sortBy}${over}`, fmt(head), ...lines.map(fmt)].join('\n');
}
