// One backtest job as plain data: what the CLI, the sweep workers and walk-forward pass around.
import type { BacktestConfig } from '../config/backtest-schema.js';
import { RiskLimitsSchema, riskLimitsToInput, type RiskLimitsInput } from '../risk/limits.js';
import type { Strategy } from '../strategy/contract.js';
import { loadStrategy } from '../strategy/loader.js';
import { openDataset } from './datasets.js';
import { runBacktest } from './engine.js';
import type { InstrumentOverride } from './columnar.js';
import type { CandleSource } from './format.js';
import { metricsOf, type Metrics } from './metrics.js';
import type { BacktestResult } from './result.js';

export interface BacktestJob {
  readonly dataset: string;
  readonly strategy: string;
  readonly params: Record<string, unknown>;
  readonly capital: string;
  readonly feeRate: string;
  readonly makerFeeRate?: string | undefined;
  readonly slippageBps: number;
  readonly risk: RiskLimitsInput;
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly chart?: boolean | undefined;
  /** Instrument rules for a dataset file that carries none (a freqtrade Feather file, say). */
  readonly instrument?: InstrumentOverride | undefined;
}

/** The job of a backtest definition (config/backtest.yaml), with the risk limits in their plain form. */
export function jobFromConfig(c: BacktestConfig): BacktestJob {
  return {
    dataset: c.dataset,
    strategy: c.strategy,
    params: c.params,
    capital: c.capital,
    feeRate: c.feeRate,
    makerFeeRate: c.makerFeeRate,
    slippageBps: c.slippageBps,
    risk: riskLimitsToInput(c.risk),
    from: c.from ? Date.parse(c.from) : undefined,
    to: c.to ? Date.parse(c.to) : undefined,
    instrument: c.instrument,
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
  source?: CandleSource,
): Promise<{ result: BacktestResult; metrics: Metrics }> {
  const strategy = await loadStrategy(job.strategy);
  const result = await runBacktest({
    source: source ?? openDataset(job.dataset, { instrument: job.instrument }),
    dataset: job.dataset,
    strategy,
    params: coerceParams(strategy, job.params),
    capital: job.capital,
    feeRate: job.feeRate,
    makerFeeRate: job.makerFeeRate,
    slippageBps: job.slippageBps,
    risk: RiskLimitsSchema.parse(job.risk),
    from: job.from,
    to: job.to,
    chart: job.chart,
    onProgress,
  });
  return { result, metrics: metricsOf(result) };
}
