// `tradebot hyperopt`: a budget of backtests spent by a sampler (TPE or random) over the strategy's search
// space, on the sweep's runners (worker threads, or `tradebot worker` processes through Redis) and its
// checkpoint, with a result file per trial and the winner's overfitting verdict.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { z } from 'zod';
import { progressBar } from '../progress.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import {
  FlagError,
  checkRange,
  dateFlag,
  enumFlag,
  lengthFlag,
  noCandles,
  numberFlag,
  parseFlags,
} from '../flags.js';
import { BacktestConfigSchema, loadYaml, strategyLookupFor } from '../../config/index.js';
import {
  hasCandlesIn,
  jobDatasetName,
  jobFromConfig,
  openJobSources,
  type BacktestJob,
} from '../../backtest/run-config.js';
import type { CandleSource } from '../../data/format.js';
import { prepareOutput } from '../../data/output-path.js';
import { loadStrategy } from '../../strategy/loader.js';
import {
  formatDimension,
  parseSearchSpace,
  spaceFromFlag,
  type SearchSpace,
} from '../../strategy/search-space.js';
import { SweepCheckpoint } from '../../research/checkpoint.js';
import { checkSpace, runHyperopt, winnerVerdict, type HyperoptResult } from '../../research/hyperopt.js';
import type { JobRunner } from '../../research/job.js';
import { FREQTRADE_LOSSES, LOSSES, type LossName } from '../../research/loss.js';
import { SAMPLERS, samplerOf } from '../../research/sampler.js';
import { QueueRunner } from '../../research/sweep-queue.js';
import { SweepPool, formatSweep, type SweepRow } from '../../research/sweep.js';
import { renderSweepReport } from '../../research/report.js';
import { datasetSpan } from '../../research/walk-forward.js';
import type { OverfittingVerdict } from '../../research/overfitting.js';
import { counted } from '../../market/spelling.js';

const whole = (flag: string, min: number, example: string) =>
  numberFlag(
    z
      .number({ error: `${flag} must be a whole number such as ${example}` })
      .int(`${flag} must be a whole number such as ${example}`)
      .min(min, `${flag} must be at least ${min}`),
  );

const lossNames = [...LOSSES, ...Object.keys(FREQTRADE_LOSSES)] as [string, ...string[]];

const Flags = z.strictObject({
  config: z.string({ error: '--config is required (a backtest file such as config/backtest.yaml)' }),
  space: z.string().optional(),
  budget: whole('--budget', 1, '200'),
  sampler: enumFlag('--sampler', SAMPLERS).default('tpe'),
  loss: enumFlag('--loss', lossNames).default('sharpe'),
  minTrades: whole('--min-trades', 0, '10').default(1),
  seed: whole('--seed', 0, '42').default(1),
  batch: whole('--batch', 1, '4').default(4),
  startup: whole('--startup', 1, '10').default(10),
  workers: whole('--workers', 1, '2').default(availableParallelism()),
  queue: z
    .string()
    .regex(/^redis:\/\/[^/:]+(:\d+)?(\/\d+)?$/, '--queue must look like redis://HOST:PORT')
    .optional(),
  inSample: lengthFlag('--in-sample').optional(),
  outOfSample: lengthFlag('--out-of-sample').optional(),
  out: z.string().default('backtest/results'),
  from: dateFlag('--from'),
  to: dateFlag('--to'),
});

export function register(program: Command): void {
  program
    .command('hyperopt')
    .description('Search the strategy parameters, exits and protections with TPE or random sampling')
    .requiredOption('-c, --config <file>', 'backtest definition (dataset, strategy, fees, risk)')
    .option(
      '--space <spec>',
      'what to search: groups of the strategy\'s searchSpace (params exits protections), dimensions key=int(5,50) real(0.01,0.1) log(0.001,0.1) cat(a,b) (no spaces inside), or a YAML file of key: "int(5,50)"',
    )
    .requiredOption('--budget <n>', 'trials (backtests) to run')
    .option('--sampler <name>', `${SAMPLERS.join(' or ')}`, 'tpe')
    .option('--loss <name>', `what to minimise: ${LOSSES.join(', ')} (or freqtrade's class names)`, 'sharpe')
    .option('--min-trades <n>', 'trials with fewer round trips get the worst loss', '1')
    .option('--seed <n>', 'the sampler seed: same seed, same trials', '1')
    .option(
      '--batch <n>',
      'trials drawn and run together (the sequence depends on it, not on --workers)',
      '4',
    )
    .option('--startup <n>', 'random trials before TPE starts modelling', '10')
    .option('--workers <n>', 'worker threads (default: all cores)')
    .option(
      '--queue <url>',
      'run on `tradebot worker` processes through Redis (BullMQ), e.g. redis://127.0.0.1:6379',
    )
    .option('--in-sample <length>', "the winner's walk-forward in-sample length (default: half the range)")
    .option('--out-of-sample <length>', "the winner's walk-forward out-of-sample length (default: an eighth)")
    .option('--out <dir>', 'results folder', 'backtest/results')
    .option('--from <date>', 'first candle time, e.g. 2008-01-01 (UTC)')
    .option('--to <date>', 'last candle time (inclusive)')
    .addHelpText(
      'after',
      `\nExamples:\n  tradebot hyperopt -c config/backtest.yaml --budget 200\n  tradebot hyperopt -c config/backtest.yaml --space "fast=int(5,50) exits.stopLoss=real(0.02,0.2) protections.cooldownAfterStop=int(1,10)" --budget 100 --loss sortino --seed 7\n  tradebot hyperopt -c config/backtest.yaml --space exits --budget 50 --queue redis://127.0.0.1:6379\nStopped part way, the same command resumes from its checkpoint. See docs/research.md.\n${EXIT_CODES_HELP}`,
    )
    .action(hyperoptCommand);
}

/** The space of the run: `--space` over the strategy's declared one, or a YAML file of dimensions. */
function spaceOf(declared: SearchSpace, flag: string | undefined): SearchSpace {
  if (flag !== undefined && /\.ya?ml$/.test(flag.trim())) {
    if (!existsSync(flag))
      throw new FlagError(`--space ${flag}: no such file; give a YAML file or a space spec`);
    return { ...declared, ...parseSearchSpace(parse(readFileSync(flag, 'utf8')), flag) };
  }
  return spaceFromFlag(declared, flag);
}

/** The flags, the backtest file, the space and the dataset checked, before any worker starts. */
async function planHyperopt(f: z.output<typeof Flags>) {
  const { config } = loadYaml(BacktestConfigSchema, f.config);
  const fromConfig = jobFromConfig(config, strategyLookupFor(f.config, config.strategiesDir));
  const ranged = { ...fromConfig, from: f.from ?? fromConfig.from, to: f.to ?? fromConfig.to };
  checkRange(ranged.from, ranged.to);
  const strategy = await loadStrategy(ranged.strategy, ranged.strategyLookup);
  const space = spaceOf(strategy.searchSpace ?? {}, f.space);
  const base: BacktestJob = { ...ranged, ...checkSpace(strategy, ranged, space) };
  const sources = openJobSources(base);
  const list = Array.isArray(sources) ? sources : [sources];
  let any = false;
  for (const s of list) any ||= await hasCandlesIn(s, base.from, base.to);
  if (!any) throw noCandles({ ...base, dataset: jobDatasetName(base) });
  return { config, strategy, space, base, span: await datasetSpan(list as CandleSource[]) };
}

async function hyperoptCommand(raw: Record<string, unknown>): Promise<void> {
  const f = parseFlags(Flags, raw);
  const loss: LossName = FREQTRADE_LOSSES[f.loss] ?? (f.loss as LossName);
  const { config, strategy, space, base, span } = await planHyperopt(f);

  const dir = join(f.out, `${config.name}-hyperopt`);
  prepareOutput(dir, { what: '--out', kind: 'folder', example: 'backtest/results' });
  mkdirSync(join(dir, 'trials'), { recursive: true });
  const runner: JobRunner = f.queue
    ? await QueueRunner.open({ url: f.queue, dataset: base.dataset, datasets: base.datasets })
    : await SweepPool.open({
        dataset: base.dataset,
        datasets: base.datasets,
        workers: Math.min(f.workers, f.batch),
        instrument: base.instrument,
      });
  const checkpoint = await SweepCheckpoint.open(join(dir, 'hyperopt.partial.jsonl'), base);
  const bar = progressBar('trials {bar} {value}/{total}  ETA {eta_formatted}');
  bar?.start(f.budget, 0);
  let resumed = 0;
  const t0 = Date.now();
  let result: HyperoptResult;
  let verdict: OverfittingVerdict;
  try {
    result = await runHyperopt({
      base,
      strategy,
      space,
      sampler: samplerOf(f.sampler, space, f.seed, { startup: f.startup }),
      budget: f.budget,
      batch: f.batch,
      loss,
      minTrades: f.minTrades,
      runner,
      checkpoint,
      onResume: (n) => (resumed += n),
      onProgress: (d, t) => {
        bar?.update(d);
        if (!bar && runner instanceof QueueRunner) process.stderr.write(`${d}/${t} trials done\n`);
      },
      onTrial: (t) =>
        writeFileSync(
          join(dir, 'trials', `trial-${String(t.trial).padStart(4, '0')}.json`),
          JSON.stringify(t, null, 1),
        ),
    });
    bar?.stop();
    if (result.trials.every((t) => t.metrics === undefined))
      throw new Error(`every trial failed; the first: ${result.trials[0]?.error ?? 'no answer'}`);
    if (!(runner instanceof QueueRunner)) await runner.close();
    verdict = await winnerVerdict({
      base,
      set: result.trials[result.best]?.params ?? {},
      returns: result.returns,
      winner: result.best,
      runner: runner instanceof QueueRunner ? runner : undefined,
      span,
      inSampleMs: f.inSample,
      outOfSampleMs: f.outOfSample,
    });
  } finally {
    bar?.stop();
    await runner.close();
  }
  writeResults(
    dir,
    f,
    loss,
    space,
    result,
    verdict,
    `hyperopt: ${config.name} (${base.strategy}) on ${jobDatasetName(base)}`,
  );
  checkpoint.remove();
  if (resumed > 0)
    process.stderr.write(
      `resumed: ${counted(resumed, 'trial')} were finished by an earlier attempt (${checkpoint.path})\n`,
    );
  process.stdout.write(summary(f, loss, dir, result, verdict, (Date.now() - t0) / 1000));
}

/** The terminal's answer: the ten best trials, the winner, the verdict and where the files are. */
function summary(
  f: z.output<typeof Flags>,
  loss: LossName,
  dir: string,
  result: HyperoptResult,
  verdict: OverfittingVerdict,
  seconds: number,
): string {
  const best = result.trials[result.best];
  const n = counted(result.trials.length, 'trial');
  const table = formatSweep(rowsOf(result), 'sharpe', 10).replace(
    /^sorted by sharpe/,
    `best 10 of ${n} by ${loss} loss (${f.sampler}, seed ${f.seed}, batch ${f.batch})`,
  );
  const where = f.queue ? `the queue ${f.queue}` : counted(Math.min(f.workers, f.batch), 'worker');
  return `${table}\nbest: trial ${best?.trial} ${JSON.stringify(best?.params)} loss ${best?.loss.toFixed(4)}\n${verdict.sentence}\n${n} on ${where} in ${seconds.toFixed(1)} s; wrote ${join(dir, 'hyperopt.json')}, ${join(dir, 'hyperopt.html')} and a file per trial in ${join(dir, 'trials')}\n`;
}

/** The trials as sweep rows, best loss first (the sweep's table and page show them). */
const rowsOf = (r: HyperoptResult): SweepRow[] =>
  [...r.trials]
    .sort((a, b) => a.loss - b.loss || a.trial - b.trial)
    .map((t) => ({
      params: { trial: t.trial, ...t.params },
      metrics: t.metrics,
      error: t.error,
      tradeHash: t.tradeHash,
    }));

function writeResults(
  dir: string,
  f: z.output<typeof Flags>,
  loss: LossName,
  space: SearchSpace,
  result: HyperoptResult,
  verdict: OverfittingVerdict,
  title: string,
): void {
  const best = result.trials[result.best];
  const json = {
    sampler: f.sampler,
    seed: f.seed,
    batch: f.batch,
    budget: f.budget,
    loss,
    minTrades: f.minTrades,
    space: Object.fromEntries(Object.entries(space).map(([k, d]) => [k, formatDimension(d)])),
    best,
    verdict,
    trials: result.trials,
  };
  writeFileSync(join(dir, 'hyperopt.json'), JSON.stringify(json, null, 1));
  writeFileSync(
    join(dir, 'hyperopt.html'),
    renderSweepReport(rowsOf(result), 'sharpe', title, verdict, `the ${loss} loss, lowest first`),
  );
}
