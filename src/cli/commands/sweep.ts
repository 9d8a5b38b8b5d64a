// `tradebot sweep`: a parameter grid on all cores, or a walk-forward analysis.
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { progressBar } from '../progress.js';
import { Option, type Command } from 'commander';
import { z } from 'zod';
import {
  SORT_KEYS,
  formatSweep,
  parseGrid,
  runSweep,
  type SortKey,
  type SweepRow,
} from '../../research/sweep.js';
import { winnerVerdict } from '../../research/hyperopt.js';
import { periodReturns, type OverfittingVerdict } from '../../research/overfitting.js';
import { QueueRunner } from '../../research/sweep-queue.js';
import {
  datasetSpan,
  walkForward,
  walkForwardJson,
  type WalkForwardResult,
} from '../../research/walk-forward.js';
import { renderSweepReport, renderWalkForwardReport } from '../../research/report.js';
import { pickParams } from '../../strategy/params.js';
import { BacktestConfigSchema, loadYaml, strategyLookupFor } from '../../config/index.js';
import {
  hasCandlesIn,
  jobDatasetName,
  jobFromConfig,
  openJobSources,
  type BacktestJob,
} from '../../backtest/run-config.js';
import { checkGrid, formatSkipped, type CheckedGrid, type Grid } from '../../research/grid.js';
import type { CandleSource } from '../../data/format.js';
import { loadStrategy } from '../../strategy/loader.js';
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
import { formatPercent } from '../../market/decimal.js';
import { quoteDecimals } from '../../market/instrument-rules.js';
import { SweepCheckpoint } from '../../research/checkpoint.js';
import { counted } from '../../market/spelling.js';
import { outputPathProblem, prepareOutput } from '../../data/output-path.js';
import { pickRow, sweepRowYaml } from '../../research/sweep-row.js';
import type { Strategy } from '../../strategy/contract.js';

const metricFlag = (flag: string) => enumFlag(flag, SORT_KEYS as [SortKey, ...SortKey[]]);

const Flags = z.strictObject({
  config: z.string({ error: '--config is required (a backtest file such as config/backtest.yaml)' }),
  grid: z.string({ error: '--grid is required, e.g. --grid "fast=5,10,20 slow=50,100"' }),
  metric: metricFlag('--metric').optional(),
  // The flag's former name, kept so existing scripts run.
  sort: metricFlag('--sort').optional(),
  workers: numberFlag(
    z
      .number({ error: '--workers must be a whole number such as 2' })
      .int('--workers must be a whole number such as 2')
      .min(1, '--workers must be at least 1'),
  ).default(availableParallelism()),
  walkForward: z.boolean().default(false),
  inSample: lengthFlag('--in-sample').optional(),
  outOfSample: lengthFlag('--out-of-sample').optional(),
  warmUp: z
    .string()
    .regex(/^\d+[dhm]$/, '--warm-up must be a length such as 365d, 12h or 0d')
    .transform(
      (s) =>
        Number(s.slice(0, -1)) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[s.slice(-1) as 'd' | 'h' | 'm'],
    )
    .optional(),
  out: z.string().default('backtest/results'),
  from: dateFlag('--from'),
  to: dateFlag('--to'),
  queue: z
    .string()
    .regex(/^redis:\/\/[^/:]+(:\d+)?(\/\d+)?$/, '--queue must look like redis://HOST:PORT')
    .optional(),
  writeRow: z
    .array(z.string())
    .optional()
    .transform((v, c) => {
      if (v === undefined) return undefined;
      const [n, file] = v;
      if (v.length !== 2 || n === undefined || file === undefined || !/^[1-9]\d*$/.test(n)) {
        c.addIssue({
          code: 'custom',
          message: `--write-row takes a row number and a file, e.g. --write-row 1 best.yaml (got ${JSON.stringify(v.join(' '))})`,
        });
        return z.NEVER;
      }
      return { n: Number(n), file };
    }),
});

export function register(program: Command): void {
  program
    .command('sweep')
    .description('Run a grid of strategy parameters on all cores, or a walk-forward analysis')
    .requiredOption('-c, --config <file>', 'backtest definition (dataset, strategy, fees, risk)')
    .requiredOption(
      '--grid <spec>',
      'parameter grid, e.g. "fast=5,10,20 slow=50,100"; a range from..to:step, e.g. "fast=5..50:5"; exits and protections by their place in the file, e.g. "exits.stopLoss=0.02..0.06:0.01"',
    )
    .option('--metric <name>', `metric to rank by and to colour the heatmap (${SORT_KEYS.join(', ')})`)
    .addOption(new Option('--sort <name>', 'former name of --metric').hideHelp())
    .option('--workers <n>', 'worker threads (default: all cores)')
    .option('--walk-forward', 'rolling in-sample optimisation and out-of-sample evaluation', false)
    .option('--in-sample <length>', 'walk-forward in-sample length, e.g. 365d')
    .option('--out-of-sample <length>', 'walk-forward out-of-sample length, e.g. 90d')
    .option(
      '--warm-up <length>',
      'walk-forward: candles before each out-of-sample window the strategy sees without trading (default: the in-sample length)',
    )
    .option('--out <dir>', 'results folder', 'backtest/results')
    .option('--from <date>', 'first candle time, e.g. 2008-01-01 (UTC) or 2008-01-01T14:30:00Z')
    .option('--to <date>', 'last candle time (inclusive), same forms as --from')
    .option(
      '--write-row <n-and-file...>',
      'write the backtest file that reproduces row N of the ranked table (its parameters, exits and protections in force), e.g. --write-row 1 best.yaml',
    )
    .option(
      '--queue <url>',
      'run on `tradebot worker` processes through Redis (BullMQ), e.g. redis://127.0.0.1:6379',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  tradebot sweep -c config/backtest.yaml --grid "fast=10,20,50 slow=100,200" --metric sharpe\n  tradebot sweep -c config/backtest.yaml --grid "fast=10..50:10 slow=100..300:50"\n  tradebot sweep -c config/backtest.yaml --grid "exits.stopLoss=0.02..0.06:0.01 protections.cooldownAfterStop=2,5"\n  tradebot sweep -c config/backtest.yaml --grid "fast=10,20,50 slow=100,200" --walk-forward --in-sample 1460d --out-of-sample 365d\nEvery grid value is checked against the strategy's parameters before any run; combinations that break a\nrule across parameters (e.g. slow must be above fast) are skipped and listed. A dataset of several symbols is\nswept as one account trading them all (as tradebot backtest runs it), with each symbol's PnL beside.\n${EXIT_CODES_HELP}`,
    )
    .action(runSweepCommand);
}

type SweepFlags = z.output<typeof Flags>;
type Bar = ReturnType<typeof progressBar>;

/** A sweep or a walk-forward checked and ready to run: every refusal of its flags, file, grid and data is behind it. */
interface SweepPlan {
  readonly f: SweepFlags;
  readonly metric: SortKey;
  /** The window lengths of a walk-forward; undefined for a sweep. */
  readonly walkForward: { readonly inSampleMs: number; readonly outOfSampleMs: number } | undefined;
  readonly base: BacktestJob;
  readonly grid: Grid;
  readonly checked: CheckedGrid;
  readonly instrument: CandleSource['meta']['instrument'];
  /** The run's name, and its strategy when the name is not the strategy's. */
  readonly named: string;
  readonly dir: string;
  readonly strategy: Strategy;
}

/** `tradebot sweep`: the flags checked into a plan, then the sweep or the walk-forward, locally or on a queue. */
async function runSweepCommand(raw: Record<string, unknown>): Promise<void> {
  const plan = await planSweep(parseFlags(Flags, raw));
  const bar = progressBar('{task} {bar} {value}/{total}');
  prepareOutput(plan.dir, { what: '--out', kind: 'folder', example: 'backtest/results' });
  const t0 = Date.now();
  // On a queue the runs go to `tradebot worker` processes; the table and files are the same as local.
  const runner = plan.f.queue
    ? await QueueRunner.open({ url: plan.f.queue, dataset: plan.base.dataset, datasets: plan.base.datasets })
    : undefined;
  try {
    if (plan.walkForward !== undefined) await walkForwardCommand(plan, plan.walkForward, runner, bar);
    else await gridSweepCommand(plan, runner, bar, t0);
  } finally {
    await runner?.close();
  }
}

/** The flags, the backtest file, the grid and the dataset checked, in that order, before any worker starts. */
async function planSweep(f: SweepFlags): Promise<SweepPlan> {
  if (f.metric !== undefined && f.sort !== undefined && f.metric !== f.sort)
    throw new FlagError(`--metric ${f.metric} and --sort ${f.sort} disagree: give --metric only`);
  const metric: SortKey = f.metric ?? f.sort ?? 'sharpe';
  const wfLengths =
    f.inSample !== undefined && f.outOfSample !== undefined
      ? { inSampleMs: f.inSample, outOfSampleMs: f.outOfSample }
      : undefined;
  if (f.walkForward && wfLengths === undefined)
    throw new FlagError(
      '--walk-forward needs --in-sample and --out-of-sample, e.g. --in-sample 730d --out-of-sample 180d',
    );
  if (f.writeRow !== undefined) {
    if (f.walkForward)
      throw new FlagError('--write-row writes a row of a sweep, not of a walk-forward: drop one');
    const bad = outputPathProblem(f.writeRow.file, {
      what: '--write-row',
      kind: 'file',
      example: 'best.yaml',
    });
    if (bad !== undefined) throw new FlagError(bad);
  }
  const { config } = loadYaml(BacktestConfigSchema, f.config);
  const fromConfig = jobFromConfig(config, strategyLookupFor(f.config, config.strategiesDir));
  const ranged = { ...fromConfig, from: f.from ?? fromConfig.from, to: f.to ?? fromConfig.to };
  checkRange(ranged.from, ranged.to);
  const grid = parseGrid(f.grid);
  const strategy = await loadStrategy(ranged.strategy, ranged.strategyLookup);
  // Before any worker starts: a value no run could use ends here with the parameter (or exit) and its rule.
  const checked = checkGrid(strategy, ranged.params, grid, ranged);
  if (checked.skipped.length > 0) process.stderr.write(`${formatSkipped(checked.skipped)}\n`);
  const base: BacktestJob = { ...ranged, ...checked.rules };
  // A bad dataset or an empty range fails here, with a sentence, not in every worker. Over several symbols,
  // each dataset is opened, and the range must hold candles of one of them at least.
  const sources = openJobSources(base);
  const list = Array.isArray(sources) ? sources : [sources];
  const source = list[0] as CandleSource;
  let any = false;
  for (const s of list) any ||= await hasCandlesIn(s, base.from, base.to);
  if (!any) throw noCandles({ ...base, dataset: jobDatasetName(base) });
  return {
    f,
    metric,
    walkForward: f.walkForward ? wfLengths : undefined,
    base,
    grid,
    checked,
    instrument: source.meta.instrument,
    named: config.name === base.strategy ? config.name : `${config.name} (${base.strategy})`,
    dir: join(f.out, `${config.name}-${f.walkForward ? 'walk-forward' : 'sweep'}`),
    strategy,
  };
}

/** The walk-forward: its windows run, walk-forward.json and .html written, a line per window and the stitched total. */
async function walkForwardCommand(
  plan: SweepPlan,
  lengths: { readonly inSampleMs: number; readonly outOfSampleMs: number },
  runner: QueueRunner | undefined,
  bar: Bar,
): Promise<void> {
  const { f, base, grid, dir } = plan;
  bar?.start(1, 0, { task: 'walk-forward windows' });
  // As a sweep's: the in-sample runs of every window are kept until the results are written.
  const checkpoint = await SweepCheckpoint.open(join(dir, 'walk-forward.partial.jsonl'), base);
  let resumed = 0;
  const wf = await walkForward({
    checkpoint,
    onResume: (n) => (resumed += n),
    base,
    grid,
    ...lengths,
    warmupMs: f.warmUp,
    sets: plan.checked.sets,
    sortBy: plan.metric,
    workers: f.workers,
    onStep: (d, t) => (bar?.setTotal(t), bar?.update(d)),
    runner,
  });
  bar?.stop();
  const json = join(dir, 'walk-forward.json');
  const html = join(dir, 'walk-forward.html');
  writeFileSync(json, JSON.stringify(walkForwardJson(wf, quoteDecimals(plan.instrument)), null, 1));
  writeFileSync(
    html,
    renderWalkForwardReport(wf, `walk-forward: ${plan.named}`, plan.instrument, Object.keys(grid)),
  );
  checkpoint.remove();
  if (resumed > 0)
    process.stderr.write(
      `resumed: ${resumed} in-sample runs were finished by an earlier attempt (${checkpoint.path})\n`,
    );
  process.stdout.write(`${formatWalkForward(wf, Object.keys(grid))}\nwrote ${json} and ${html}\n`);
}

/** A line per window (its best parameters, in-sample and out-of-sample), then the stitched out-of-sample total. */
function formatWalkForward(wf: WalkForwardResult, keys: readonly string[]): string {
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  // Over several symbols: each symbol's realised PnL in the window's shared account.
  const perSymbol = (s: WalkForwardResult['steps'][number]) =>
    s.bySymbol === undefined
      ? ''
      : `  (${Object.entries(s.bySymbol)
          .map(([sym, r]) => `${sym} ${r.pnl} over ${counted(r.trades, 'trade')}`)
          .join(', ')})`;
  const steps = wf.steps.map(
    (s) =>
      `${day(s.window.outOfSample.from)}..${day(s.window.outOfSample.to)}  best ${JSON.stringify(pickParams(s.best, keys))}  in-sample ${s.inSample ? formatPercent(s.inSample.totalReturn) : '-'}  out-of-sample ${formatPercent(s.outOfSample.totalReturn)}, ${s.outOfSample.trades} closed trades, in the market ${formatPercent(s.outOfSample.exposure)}${perSymbol(s)}\n`,
  );
  return `${steps.join('')}stitched out-of-sample: return ${formatPercent(wf.metrics.totalReturn)}, Sharpe ${wf.metrics.sharpe.toFixed(2)}, max drawdown ${formatPercent(wf.metrics.maxDrawdown)}, trades ${wf.metrics.trades} (closed round trips of every window), in the market ${formatPercent(wf.metrics.exposure)}`;
}

/** The sweep: its runs (resumed from a checkpoint), sweep.json and .html written, the ranked table printed. */
async function gridSweepCommand(
  plan: SweepPlan,
  runner: QueueRunner | undefined,
  bar: Bar,
  t0: number,
): Promise<void> {
  const { f, base, metric, dir } = plan;
  // Each finished run is kept beside the results until the sweep completes: run again after a stop,
  // the same command takes up where it left off.
  const checkpoint = await SweepCheckpoint.open(join(dir, 'sweep.partial.jsonl'), base);
  let barStarted = false;
  const rows = await runSweep({
    base,
    grid: plan.grid,
    sets: plan.checked.sets,
    sortBy: metric,
    workers: f.workers,
    checkpoint,
    keepEquity: true,
    onResume: (resumed, total) =>
      process.stderr.write(
        `resuming: ${resumed} of ${total} runs were finished by an earlier attempt (${checkpoint.path}; delete it to run them again)\n`,
      ),
    onProgress: (d, t) => {
      // Started at the first progress, after the resume line (a bar drawn first would be broken by it).
      if (!barStarted) bar?.start(t, d, { task: 'parameter sets' });
      barStarted = true;
      bar?.setTotal(t);
      bar?.update(d);
      // Without a terminal, a queued sweep still shows progress: workers may be far away and slow.
      if (!bar && runner) process.stderr.write(`${d}/${t} runs done\n`);
    },
    pool: runner,
  });
  bar?.stop();
  if (rows.every((r) => r.metrics === undefined))
    throw new Error(`every run of the sweep failed; the first: ${rows[0]?.error ?? 'no answer'}`);
  const verdict = await sweepVerdict(plan, rows, runner);
  const json = join(dir, 'sweep.json');
  const html = join(dir, 'sweep.html');
  const plainRows = rows.map(({ equity: _equity, ...r }) => r);
  writeFileSync(json, JSON.stringify(plainRows, null, 1));
  if (verdict !== undefined) writeFileSync(join(dir, 'verdict.json'), JSON.stringify(verdict, null, 1));
  writeFileSync(
    html,
    renderSweepReport(plainRows, metric, `sweep: ${plan.named} on ${jobDatasetName(base)}`, verdict),
  );
  checkpoint.remove();
  process.stdout.write(
    `${formatSweep(rows, metric)}\n${verdict === undefined ? '' : `${verdict.sentence}\n`}${counted(rows.length, 'run')} on ${runner ? `the queue ${f.queue}` : counted(f.workers, 'worker')} in ${((Date.now() - t0) / 1000).toFixed(1)} s; wrote ${json} and ${html}\n`,
  );
  if (f.writeRow !== undefined) writeRow(plan, rows, f.writeRow);
}

/** `--write-row N FILE`: the backtest file of row N, and how to run it. */
function writeRow(
  plan: SweepPlan,
  rows: Parameters<typeof pickRow>[0],
  w: { n: number; file: string },
): void {
  const row = pickRow(rows, w.n);
  const { config, grid } = plan.f;
  const text = sweepRowYaml(
    {
      configText: readFileSync(config, 'utf8'),
      configFile: config,
      outFile: w.file,
      base: plan.base,
      strategy: plan.strategy,
      grid,
    },
    row,
    w.n,
  );
  prepareOutput(w.file, { what: '--write-row', kind: 'file', example: 'best.yaml' });
  writeFileSync(w.file, text);
  process.stdout.write(
    `wrote row ${w.n} to ${w.file}: tradebot backtest --config ${w.file} reproduces trade hash ${row.tradeHash ?? '(none)'}\n`,
  );
}

/**
 * The overfitting verdict of the sweep's winner (the first row), over the runs that finished (none for one run);
 * the winner walked forward when --in-sample and --out-of-sample are given.
 */
async function sweepVerdict(
  plan: SweepPlan,
  rows: readonly SweepRow[],
  runner: QueueRunner | undefined,
): Promise<OverfittingVerdict | undefined> {
  const ran = rows.filter((r) => r.metrics !== undefined && r.equity !== undefined);
  if (ran.length < 2) return undefined;
  const capital = Number(plan.base.capital);
  return winnerVerdict({
    base: plan.base,
    set: (ran[0] as SweepRow).params,
    returns: ran.map((r) => periodReturns(capital, r.equity ?? [])),
    winner: 0,
    runner,
    span: await datasetSpan(openJobSources(plan.base)),
    inSampleMs: plan.f.inSample,
    outOfSampleMs: plan.f.outOfSample,
    // Walked forward when asked: a sweep otherwise costs what it cost before the verdict.
    walk: plan.f.inSample !== undefined && plan.f.outOfSample !== undefined,
  });
}
