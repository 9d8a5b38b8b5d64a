// One backtest job as plain data: what the CLI, the sweep workers and walk-forward pass around.
import type { BacktestConfig } from '../config/backtest-schema.js';
import { RiskLimitsSchema, riskLimitsToInput, type RiskLimitsInput } from '../risk/limits.js';
import type { Strategy } from '../strategy/contract.js';
import {
  parseExitRules,
  parseProtections,
  type ExitRulesInput,
  type ProtectionsInput,
} from '../strategy/exits.js';
import { loadStrategy, type StrategyLookup } from '../strategy/loader.js';
import { expandDatasetRef, openDataset, openDatasets } from './datasets.js';
import { runBacktest, type BacktestOptions } from './engine.js';
import type { InstrumentOverride } from './columnar.js';
import type { CandleSource } from './format.js';
import { metricsOf, type Metrics } from './metrics.js';
import type { BacktestResult, BacktestTrade, EquityCurvePoint } from './result.js';

export interface BacktestJob {
  /** The dataset; in a run over several symbols, the first of `datasets`. */
  readonly dataset: string;
  /** The datasets of a run over several symbols (one per symbol, merged in time order); else undefined. */
  readonly datasets?: readonly string[] | undefined;
  readonly strategy: string;
  /** Where `strategy` is looked up (absolute folders: the same in every worker); default the bundled ones. */
  readonly strategyLookup?: StrategyLookup | undefined;
  readonly params: Record<string, unknown>;
  readonly capital: string;
  readonly feeRate: string;
  readonly makerFeeRate?: string | undefined;
  readonly slippageBps: number;
  readonly risk: RiskLimitsInput;
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  /** Warm-up until this time: the strategy sees the candles from `from`, trades from here (walk-forward). */
  readonly tradeFrom?: number | undefined;
  readonly chart?: boolean | undefined;
  /** Instrument rules for a dataset file that carries none (a freqtrade Feather file, say). */
  readonly instrument?: InstrumentOverride | undefined;
  /** Exits and protections as in the YAML (plain data: decimal strings). */
  readonly exits?: ExitRulesInput | undefined;
  readonly protections?: ProtectionsInput | undefined;
}

/**
 * The job of a backtest definition (config/backtest.yaml), with the risk limits in their plain form;
 * `strategyLookup` says where its strategy is found (`strategyLookupFor(file, c.strategiesDir)`).
 */
export function jobFromConfig(c: BacktestConfig, strategyLookup?: StrategyLookup): BacktestJob {
  const refs = (typeof c.dataset === 'string' ? [c.dataset] : c.dataset).flatMap(expandDatasetRef);
  return {
    dataset: refs[0] as string,
    datasets: refs.length > 1 ? refs : undefined,
    strategy: c.strategy,
    strategyLookup,
    params: c.params,
    capital: c.capital,
    feeRate: c.feeRate,
    makerFeeRate: c.makerFeeRate,
    slippageBps: c.slippageBps,
    risk: riskLimitsToInput(c.risk),
    from: c.from ? Date.parse(c.from) : undefined,
    to: c.to ? Date.parse(c.to) : undefined,
    instrument: c.instrument,
    ...(c.exits !== undefined ? { exits: c.exits } : {}),
    ...(c.protections !== undefined ? { protections: c.protections } : {}),
  };
}

/** Strings from a command line become numbers where the strategy's parameter schema wants a number. */
export function coerceParams(strategy: Strategy, params: Record<string, unknown>): Record<string, unknown> {
  const shape =
    (
      strategy.params as unknown as {
        shape?: Record<string, { safeParse(v: unknown): { success: boolean } }>;
      }
    ).shape ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    const field = shape[k];
    out[k] =
      typeof v === 'string' && field && !field.safeParse(v).success && field.safeParse(Number(v)).success
        ? Number(v)
        : v;
  }
  return out;
}

/** Runs a job in this thread, on `source` when given (a shared copy of `job.dataset`), else on the dataset itself. */
export async function runJob(
  job: BacktestJob,
  onProgress?: (candles: number) => void,
  source?: CandleSource | CandleSource[],
): Promise<{ result: BacktestResult; metrics: Metrics }> {
  const strategy = await loadStrategy(job.strategy, job.strategyLookup);
  const result = await runBacktest({
    ...backtestOptionsOf(job, strategy, source ?? openJobSources(job)),
    tradeFrom: job.tradeFrom,
    chart: job.chart,
    onProgress,
  });
  return { result, metrics: metricsOf(result) };
}

/**
 * A job as the engine's options: data, strategy and parameters, money, risk, range, exits and protections.
 * The one translation of a job, for a backtest, a sweep's run and the lookahead check alike.
 */
export function backtestOptionsOf(
  job: BacktestJob,
  strategy: Strategy,
  source: CandleSource | CandleSource[],
): BacktestOptions {
  return {
    source,
    dataset: jobDatasetName(job),
    strategy,
    params: coerceParams(strategy, job.params),
    capital: job.capital,
    feeRate: job.feeRate,
    makerFeeRate: job.makerFeeRate,
    slippageBps: job.slippageBps,
    risk: RiskLimitsSchema.parse(job.risk),
    from: job.from,
    to: job.to,
    exits: job.exits === undefined ? undefined : parseExitRules(job.exits, 'exits'),
    protections: job.protections === undefined ? undefined : parseProtections(job.protections, 'protections'),
  };
}

/** The candle sources of a job: its dataset, or one per symbol of a run over several. */
export function openJobSources(job: BacktestJob): CandleSource | CandleSource[] {
  return job.datasets === undefined
    ? openDataset(job.dataset, { instrument: job.instrument })
    : openDatasets(job.datasets, { instrument: job.instrument });
}

/** How a job's data is named in results and reports. */
export const jobDatasetName = (job: BacktestJob): string => job.datasets?.join(' + ') ?? job.dataset;

/** Whether `source` has a candle with openTime in [from, to]; stops at the first one it finds. */
export async function hasCandlesIn(source: CandleSource, from = -Infinity, to = Infinity): Promise<boolean> {
  for await (const b of source.batches()) {
    for (let i = 0; i < b.length; i++) {
      const t = b.openTime[i] as number;
      if (t >= from && t <= to) return true;
      if (t > to) return false; // sorted: nothing later can be inside
    }
  }
  return false;
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
  const benchmark: number[] = [];
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
      while (si < samples.length && (samples[si] as EquityCurvePoint).ts <= t) {
        benchmark.push((capital * lastClose) / firstOpen);
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
  while (si++ < samples.length) benchmark.push((capital * lastClose) / firstOpen);
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
