// One backtest job as plain data: what the CLI, the sweep workers and walk-forward pass around.
import type { CandleInterval } from '../api/index.js';
import type { BacktestConfig } from '../config/backtest-schema.js';
import { RiskLimitsSchema, riskLimitsToInput, type RiskLimitsInput } from '../risk/limits.js';
import type { Strategy } from '../strategy/contract.js';
import {
  parseExitRules,
  parseProtections,
  type ExitRulesInput,
  type ProtectionsInput,
} from '../strategy/exits.js';
import type { StrategyLookup } from '../strategy/loader.js';
import { expandDatasetRef, openDataset, openDatasets } from '../data/datasets.js';
import type { BacktestOptions } from './engine.js';
import type { InstrumentOverride } from '../data/columnar.js';
import type { CandleSource } from '../data/format.js';
import { resampledSource } from '../data/resampled-source.js';
import { Decimal } from '../market/decimal.js';
import { SIM_REALITY_MARGIN_FIELDS, marginLeverageOf } from '../market/margin.js';

export interface BacktestJob {
  /** The dataset; in a run over several symbols, the first of `datasets`. */
  readonly dataset: string;
  /** The datasets of a run over several symbols (one per symbol, merged in time order); else undefined. */
  readonly datasets?: readonly string[] | undefined;
  readonly strategy: string;
  /** The interval the run is at (the backtest file's `interval`); default see `BacktestOptions.interval`. */
  readonly interval?: CandleInterval | undefined;
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
  /** Sell the positions open at the end at the last close (`BacktestOptions.closeAtEnd`). */
  readonly closeAtEnd?: boolean | undefined;
  /** A MARGIN backtest: the leverage per coin set at start, decimal strings (`BacktestOptions.margin`). */
  readonly margin?: { readonly leverage: Readonly<Record<string, string>> } | undefined;
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
    ...(c.interval !== undefined ? { interval: c.interval } : {}),
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
    ...(c.closeAtEnd ? { closeAtEnd: true } : {}),
    ...(c.category === 'MARGIN' ? { margin: marginOfEntries(c.leverage) } : {}),
  };
}

/** A MARGIN job's `margin`: the leverage its `leverage` entries set per coin (`marginLeverageOf`). */
export function marginOfEntries(entries: BacktestConfig['leverage']): NonNullable<BacktestJob['margin']> {
  const m = marginLeverageOf(entries);
  return { leverage: Object.fromEntries([...m].map(([coin, v]) => [coin, v.toFixed()])) };
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
    interval: job.interval,
    params: job.params,
    capital: job.capital,
    feeRate: job.feeRate,
    makerFeeRate: job.makerFeeRate,
    slippageBps: job.slippageBps,
    risk: RiskLimitsSchema.parse(job.risk),
    from: job.from,
    to: job.to,
    exits: job.exits === undefined ? undefined : parseExitRules(job.exits, 'exits'),
    protections: job.protections === undefined ? undefined : parseProtections(job.protections, 'protections'),
    closeAtEnd: job.closeAtEnd,
    margin: job.margin,
  };
}

/**
 * The candle sources of a job: its dataset, or one per symbol of a run over several. With `interval` (a run's
 * `meta.interval`, for a second pass over its candles), resampled to it as the run's were.
 */
export function openJobSources(job: BacktestJob, interval?: CandleInterval): CandleSource | CandleSource[] {
  const at = (s: CandleSource): CandleSource => (interval === undefined ? s : resampledSource(s, interval));
  return job.datasets === undefined
    ? at(openDataset(job.dataset, { instrument: job.instrument }))
    : openDatasets(job.datasets, { instrument: job.instrument }).map(at);
}

/**
 * What the simulator's set-leverage would refuse in a MARGIN job's leverage, checked before the run: a coin
 * that is not a coin of its pairs, or a leverage outside 1 to the pairs' `maxCrossedLeverage` (the simulator's
 * MARGIN row, `SIM_REALITY_MARGIN_FIELDS`). A sentence naming the entry and the fix, or undefined.
 */
export function marginJobProblem(job: BacktestJob, sources: readonly CandleSource[]): string | undefined {
  if (job.margin === undefined) return undefined;
  const coins = new Set(sources.flatMap((s) => [s.meta.instrument.baseCoin, s.meta.instrument.quoteCoin]));
  const max = new Decimal(SIM_REALITY_MARGIN_FIELDS.maxCrossedLeverage);
  for (const [coin, v] of Object.entries(job.margin.leverage)) {
    if (!coins.has(coin))
      return `leverage: coin ${coin} is not a coin of the backtest's pairs: use one of ${[...coins].join(', ')} (e.g. the base coin, which a short borrows)`;
    const lev = new Decimal(v);
    if (lev.lt(1) || lev.gt(max))
      return `leverage: ${v} for ${coin} is outside 1 to ${max.toFixed()} (the pair's maxCrossedLeverage): use a leverage within it`;
  }
  return undefined;
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
