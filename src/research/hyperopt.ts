// `tradebot hyperopt` under the CLI: a search space checked against the strategy, its points turned into
// backtest jobs, the trials run batch after batch through the sweep's runner (worker threads, or workers on
// the Redis queue) and its checkpoint, and the winner's overfitting verdict with its walk-forward.
import type { BacktestJob } from '../backtest/run-config.js';
import { Decimal } from '../market/decimal.js';
import type { Strategy } from '../strategy/contract.js';
import { SearchSpaceError, type SearchSpace } from '../strategy/search-space.js';
import type { SweepCheckpoint } from './checkpoint.js';
import { BacktestInputError, checkGrid, GridError, type Grid, type JobRules } from './grid.js';
import type { JobRunner } from './job.js';
import { lossOf, MAX_LOSS, type LossName } from './loss.js';
import type { Metrics } from './metrics.js';
import {
  overfittingVerdict,
  periodReturns,
  type OverfittingVerdict,
  type WalkForwardCheck,
} from './overfitting.js';
import { searchLoop, type Sample, type Sampler } from './sampler.js';
import { runSweep } from './sweep.js';
import { walkForward } from './walk-forward.js';

/** A point as a grid set: reals as decimal strings (exits take ratios as text), whole numbers and choices as they are. */
export function setOf(space: SearchSpace, sample: Sample): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, d] of Object.entries(space)) {
    const v = sample[k] as string | number;
    out[k] = d.kind === 'real' || d.kind === 'log' ? new Decimal(v).toFixed() : v;
  }
  return out;
}

/** The grid a space checks as: each dimension's bounds (or choices), the values any point lies between. */
function boundsGrid(space: SearchSpace): Grid {
  const grid: Record<string, readonly (string | number)[]> = {};
  for (const [k, d] of Object.entries(space))
    grid[k] =
      d.kind === 'cat'
        ? d.choices
        : d.kind === 'int'
          ? [d.low, d.high]
          : [new Decimal(d.low).toFixed(), new Decimal(d.high).toFixed()];
  return grid;
}

/**
 * Checks every dimension against the strategy before any run (an unknown key, a bound its schema refuses)
 * and answers the job's rules to build trials on (see `checkGrid`).
 * @throws SearchSpaceError naming each dimension and its rule
 */
export function checkSpace(strategy: Strategy, base: BacktestJob, space: SearchSpace): JobRules {
  try {
    return checkGrid(strategy, base.params, boundsGrid(space), base).rules;
  } catch (e) {
    if (e instanceof GridError)
      throw new SearchSpaceError(
        `${e.message.replace(/^the grid/, 'the search space')}\n(each dimension's low and high, or each choice, must be a value the strategy takes)`,
      );
    throw e;
  }
}

export interface HyperoptTrial {
  /** 1, 2, ... in the order the sampler drew them. */
  readonly trial: number;
  readonly params: Record<string, unknown>;
  readonly loss: number;
  readonly metrics?: Metrics | undefined;
  readonly tradeHash?: string | undefined;
  /** A failed run, or a point the strategy's rules across parameters refuse (e.g. slow above fast). */
  readonly error?: string | undefined;
}

export interface HyperoptResult {
  readonly trials: readonly HyperoptTrial[];
  /** Index in `trials` of the lowest loss (the first of equals). */
  readonly best: number;
  /** Each trial's periodic returns (see `periodReturns`), for the verdict; empty for a trial that did not run. */
  readonly returns: readonly (readonly number[])[];
}

export interface HyperoptOptions {
  readonly base: BacktestJob;
  readonly strategy: Strategy;
  readonly space: SearchSpace;
  readonly sampler: Sampler;
  readonly budget: number;
  /** Points drawn and run together; fixes the sequence with the seed, whatever the number of workers. */
  readonly batch: number;
  readonly loss: LossName;
  readonly minTrades: number;
  readonly runner: JobRunner;
  readonly checkpoint?: SweepCheckpoint | undefined;
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
  readonly onTrial?: ((t: HyperoptTrial) => void) | undefined;
  /** Told how many trials of a batch an earlier attempt had finished. */
  readonly onResume?: ((resumed: number) => void) | undefined;
}

export async function runHyperopt(o: HyperoptOptions): Promise<HyperoptResult> {
  const trials: HyperoptTrial[] = [];
  const returns: number[][] = [];
  const capital = Number(o.base.capital);
  await searchLoop({
    sampler: o.sampler,
    budget: o.budget,
    batch: o.batch,
    evaluate: async (samples, first) => {
      const sets = samples.map((s) => setOf(o.space, s));
      // A point a rule across parameters refuses is a trial that lost, with the strategy's sentence.
      const checked = sets.map((set) =>
        checkGrid(
          o.strategy,
          o.base.params,
          Object.fromEntries(Object.entries(set).map(([k, v]) => [k, [v]])),
          o.base,
        ),
      );
      const runnable = checked.flatMap((c, i) => (c.sets.length > 0 ? [i] : []));
      const rows = await runSweep({
        base: o.base,
        grid: {},
        sets: runnable.map((i) => checked[i]?.sets[0] as Record<string, unknown>),
        pool: o.runner,
        checkpoint: o.checkpoint,
        keepEquity: true,
        keepOrder: true,
        onResume: (n) => o.onResume?.(n),
        onProgress: (d) => o.onProgress?.(first + d, o.budget),
      });
      return sets.map((set, i) => {
        const k = runnable.indexOf(i);
        const row = rows[k];
        const trial: HyperoptTrial =
          row === undefined
            ? {
                trial: first + i + 1,
                params: set,
                loss: MAX_LOSS,
                error: checked[i]?.skipped[0]?.reason ?? 'not run',
              }
            : {
                trial: first + i + 1,
                params: row.params,
                loss: lossOf(o.loss, row.metrics, o.minTrades),
                metrics: row.metrics,
                tradeHash: row.tradeHash,
                ...(row.error !== undefined ? { error: row.error } : {}),
              };
        trials.push(trial);
        returns.push(row?.equity !== undefined ? periodReturns(capital, row.equity) : []);
        o.onTrial?.(trial);
        return trial.loss;
      });
    },
  });
  o.onProgress?.(o.budget, o.budget);
  let best = 0;
  trials.forEach((t, i) => {
    if (t.loss < (trials[best] as HyperoptTrial).loss) best = i;
  });
  return { trials, best, returns };
}

/**
 * The verdict on the winner (`winner` the index in `returns`) of a sweep or a search: DSR and PBO over the
 * trials that ran, and the winner alone walked forward on windows of `inSampleMs` / `outOfSampleMs` (default:
 * half the range in sample, an eighth out of sample: four windows). `runner` is closed by the walk-forward.
 */
export async function winnerVerdict(o: {
  base: BacktestJob;
  set: Record<string, unknown>;
  returns: readonly (readonly number[])[];
  winner: number;
  runner?: JobRunner | undefined;
  workers?: number | undefined;
  span: { from: number; to: number };
  inSampleMs?: number | undefined;
  outOfSampleMs?: number | undefined;
  /** Walk the winner forward (default true; a sweep does when given its window lengths). */
  walk?: boolean | undefined;
}): Promise<OverfittingVerdict> {
  const ran = o.returns.map((r, i) => ({ r, i })).filter((x) => x.r.length > 0);
  const winner = ran.findIndex((x) => x.i === o.winner);
  const length = (o.base.to ?? o.span.to) - (o.base.from ?? o.span.from);
  let check: WalkForwardCheck | undefined;
  if (o.walk !== false)
    try {
      const wf = await walkForward({
        base: o.base,
        grid: {},
        sets: [o.set],
        inSampleMs: o.inSampleMs ?? Math.floor(length / 2),
        outOfSampleMs: o.outOfSampleMs ?? Math.floor(length / 8),
        runner: o.runner,
        workers: 1,
      });
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
      const ins = wf.steps.flatMap((s) => (s.inSample ? [s.inSample] : []));
      check = {
        windows: wf.steps.length,
        inSample: { cagr: mean(ins.map((m) => m.cagr)), sharpe: mean(ins.map((m) => m.sharpe)) },
        outOfSample: { cagr: wf.metrics.cagr, sharpe: wf.metrics.sharpe },
      };
    } catch (e) {
      // Data too short for one window: the verdict stands on DSR and PBO, and says the walk-forward is missing.
      if (!(e instanceof BacktestInputError)) throw e;
      await o.runner?.close();
    }
  return overfittingVerdict(
    ran.map((x) => x.r),
    Math.max(0, winner),
    check,
  );
}
