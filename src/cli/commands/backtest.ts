// `tradebot backtest`: one run from a backtest file or flags, with a progress bar, the terminal summary,
// result.json and a self-contained report.html.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { progressBar } from '../progress.js';
import type { Command } from 'commander';
import { z } from 'zod';
import { formatSummary, metricsOf } from '../../research/metrics.js';
import { exchangeTimeZone, renderReport } from '../../research/report.js';
import { resultJson } from '../../research/result-json.js';
import { expandDatasetRef } from '../../data/datasets.js';
import type { CandleInterval } from '../../api/index.js';
import type { CandleSource } from '../../data/format.js';
import { resampledSource } from '../../data/resampled-source.js';
import type { BacktestResult } from '../../backtest/result.js';
import type { WarmUpBefore } from '../../backtest/warm-up-start.js';
import {
  jobDatasetName,
  jobFromConfig,
  marginJobProblem,
  marginOfEntries,
  openJobSources,
  type BacktestJob,
} from '../../backtest/run-config.js';
import { analyseRuns, runJob } from '../../research/run-job.js';
import {
  BacktestConfigSchema,
  ConfigError,
  LeverageSchema,
  marginConfigProblems,
  type BacktestConfig,
  RunNameSchema,
  loadYaml,
  strategyLookupFor,
  strategyLookupHere,
} from '../../config/index.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { FlagError, checkRange, dateFlag, enumFlag, noCandles, parseFlags } from '../flags.js';
import { counted } from '../../market/spelling.js';
import { StrategyRuntimeError } from '../../strategy/failure.js';
import { strategyTypeProblems } from '../../strategy/check-file.js';
import { StrategyDefinitionError } from '../../strategy/contract.js';
import type { StrategyLookup } from '../../strategy/loader.js';
import { LOG_LEVELS, StrategyLog } from '../../strategy/strategy-log.js';
import { shortfallSentence } from '../../strategy/warm-up-probe.js';
import { asInput, parseInstrumentFlag } from './data.js';
import { quoteDecimals } from '../../market/instrument-rules.js';
import { outputPathProblem, prepareOutput, type OutputPathOptions } from '../../data/output-path.js';

const Flags = z.strictObject({
  config: z.string().optional(),
  dataset: z.string().optional(),
  strategy: z.string().optional(),
  params: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      try {
        return JSON.parse(s) as Record<string, unknown>;
      } catch {
        ctx.addIssue({ code: 'custom', message: '--params must be JSON, e.g. \'{"fast":10,"slow":30}\'' });
        return z.NEVER;
      }
    }),
  out: z.string().default('backtest/results'),
  // Checked whether or not --config gives a name too: it names the results folder inside --out.
  name: RunNameSchema.optional(),
  from: dateFlag('--from'),
  to: dateFlag('--to'),
  instrument: z.string().optional(),
  logLevel: enumFlag('--log-level', LOG_LEVELS).default('error'),
  verbose: z.boolean().default(false),
  closeAtEnd: z.boolean().optional(),
  category: enumFlag('--category', ['SPOT', 'MARGIN']).optional(),
  leverage: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      const fix = 'e.g. SPX=3 or AAPL=3,USDT=3 (the coins a MARGIN run borrows)';
      const pairs = s.split(',').map((p) => /^\s*([A-Z0-9]+)\s*=\s*(\S+)\s*$/.exec(p));
      if (pairs.some((m) => m === null)) {
        ctx.addIssue({ code: 'custom', message: `--leverage must be COIN=LEVERAGE pairs, ${fix}` });
        return z.NEVER;
      }
      const entries = pairs.map((m) =>
        LeverageSchema.safeParse({ category: 'MARGIN', coin: m?.[1], leverage: m?.[2] }),
      );
      const bad = entries.find((e) => !e.success);
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `--leverage: ${bad.error?.issues[0]?.message ?? 'bad entry'}, ${fix}`,
        });
        return z.NEVER;
      }
      return entries.map((e) => e.data as z.output<typeof LeverageSchema>);
    }),
});

export function register(program: Command): void {
  program
    .command('backtest')
    .description(
      'Replay recorded candles through a strategy and the risk gate; writes result.json and report.html',
    )
    .option('-c, --config <file>', 'backtest definition (e.g. config/backtest.yaml)')
    .option(
      '--dataset <ref>',
      'a recorded file (.csv, .jsonl, .feather, .parquet), sp500-daily, or synthetic-1m:<seed>:<count>',
    )
    .option('--strategy <name>', 'strategy name or path')
    .option('--params <json>', 'strategy parameters as JSON')
    .option('--name <name>', 'name of the run (results folder)')
    .option(
      '--instrument <json|file>',
      "instrument rules for a dataset file without tradebot metadata (freqtrade's, another tool's CSV)",
    )
    .option('--out <dir>', 'results folder', 'backtest/results')
    .option('--from <date>', 'first candle time, e.g. 2008-01-01 (UTC) or 2008-01-01T14:30:00Z')
    .option('--to <date>', 'last candle time (inclusive), same forms as --from')
    .option(
      '--log-level <level>',
      "the strategy's ctx.logger lines at this level or above are shown on stderr too, rate-limited (error, warn, info, debug); all of them are in the run's strategy.log",
      'error',
    )
    .option('--verbose', "a strategy's failure comes with its stack", false)
    .option('--category <category>', 'SPOT, or MARGIN to borrow within --leverage (docs/margin.md)')
    .option(
      '--leverage <coin=x,...>',
      "a MARGIN run's leverage per coin at start, e.g. SPX=3 (a short borrows the base coin)",
    )
    .option(
      '--close-at-end',
      'sell the positions still open when the data ends, at the last close minus the slippage (exit reason end_of_backtest, fees charged); default: they stay open, marked at the last close',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  tradebot backtest --config config/backtest.yaml\n  tradebot backtest --config config/backtest.yaml --from 2008-01-01 --to 2012-12-31\n  tradebot backtest --dataset synthetic-1m:42:1000000 --strategy ma-crossover --params '{"fast":20,"slow":100}'\n${EXIT_CODES_HELP}`,
    )
    .action(runBacktestCommand);
}

type BacktestFlags = z.output<typeof Flags>;

/** `tradebot backtest`: the flags into a job, the run with a progress bar, result.json and report.html, the summary. */
async function runBacktestCommand(raw: Record<string, unknown>): Promise<void> {
  const f = parseFlags(Flags, raw);
  const { job, name, lookup } = jobFromFlags(f);
  checkRange(job.from, job.to);
  await typeCheck(job.strategy, lookup);
  // The results folder is checked before the run (a bad --out fails now, not after it) and made after it.
  const dir = join(f.out, f.name ?? name);
  const output: OutputPathOptions = { what: '--out', kind: 'folder', example: 'backtest/results' };
  const problem = outputPathProblem(dir, output);
  if (problem !== undefined) throw new FlagError(problem);
  // Opened once: fails early, with a sentence, on a bad dataset; the run reads the same source.
  const source = await asInput(() => openJobSources(job));
  const marginProblem = marginJobProblem(job, Array.isArray(source) ? source : [source]);
  if (marginProblem !== undefined) throw new FlagError(marginProblem);
  // The strategy's log waits outside the results folder, made after the run; a failed run leaves none.
  const log = new StrategyLog({ level: f.logLevel, write: (t) => process.stderr.write(t) });
  try {
    const { result, warmUpBefore } = await runWithProgress(job, source, log).catch((e: unknown) => {
      if (f.verbose && e instanceof StrategyRuntimeError && e.causeStack !== undefined)
        process.stderr.write(`${e.causeStack}\n`);
      throw e;
    });
    if (result.meta.candles === 0) throw noCandles({ ...job, dataset: jobDatasetName(job) });
    const { instrument, metrics } = await writeResults(source, result, dir, output);
    const logged = log.moveInto(dir);
    const logLine =
      logged === undefined ? '' : `, and ${logged} (${counted(log.lines, 'line')} of the strategy's log)`;
    const short = result.warmUp.short;
    const shortLine = `${short === undefined ? '' : `${shortfallSentence(short, result.warmUp)}\n`}${beforeLine(warmUpBefore, job.from)}`;
    process.stdout.write(
      `${formatSummary(result, metrics, quoteDecimals(instrument))}\n${shortLine}run: ${result.timing.runMs.toFixed(0)} ms (${Math.round((result.meta.candles / result.timing.runMs) * 1000).toLocaleString('en-US')} candles/s)\nwrote ${join(dir, 'result.json')} and ${join(dir, 'report.html')}${logLine}\n`,
    );
  } finally {
    log.discard();
  }
}

/**
 * The job of the backtest file (or of --dataset and --strategy without one), with the flags over it, and the
 * run's name from the file.
 */
function jobFromFlags(f: BacktestFlags): { job: BacktestJob; name: string; lookup: StrategyLookup } {
  let cfg;
  try {
    cfg = f.config
      ? loadYaml(BacktestConfigSchema, f.config).config
      : BacktestConfigSchema.parse({
          dataset: f.dataset,
          strategy: f.strategy,
          params: f.params ?? {},
          ...(f.name ? { name: f.name } : {}),
        });
  } catch (e) {
    if (e instanceof ConfigError) throw new FlagError(e.message);
    if (e instanceof z.ZodError)
      throw new FlagError(
        `give --config FILE, or --dataset and --strategy (${e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`,
      );
    throw e;
  }
  // Names are looked up in the file's strategiesDir (or ./strategies without a file), then the bundled ones.
  const lookup = f.config ? strategyLookupFor(f.config, cfg.strategiesDir) : strategyLookupHere();
  const base = jobFromConfig(cfg, lookup);
  const flagged = f.dataset === undefined ? undefined : expandDatasetRef(f.dataset);
  const job: BacktestJob = {
    ...base,
    dataset: flagged?.[0] ?? base.dataset,
    datasets: flagged === undefined ? base.datasets : flagged.length > 1 ? flagged : undefined,
    strategy: f.strategy ?? base.strategy,
    params: { ...base.params, ...f.params },
    from: f.from ?? base.from,
    to: f.to ?? base.to,
    instrument: { ...base.instrument, ...parseInstrumentFlag(f.instrument) },
    ...(f.closeAtEnd === true ? { closeAtEnd: true } : {}),
    ...marginOfFlags(f, cfg),
  };
  return { job, name: cfg.name, lookup };
}

/**
 * The job's `margin` from --category and --leverage over the file's `category` and `leverage`, checked by the
 * file's one rule (`marginConfigProblems`) with the flags named: `{ margin }` for a MARGIN run, else `{}`.
 */
function marginOfFlags(f: BacktestFlags, cfg: BacktestConfig): { margin?: BacktestJob['margin'] } {
  const category = f.category ?? cfg.category;
  const leverage = f.leverage ?? cfg.leverage;
  const problems = marginConfigProblems({ category, leverage });
  if (problems.length > 0) {
    const flag = (p: (string | number)[]) =>
      p[0] === 'category'
        ? f.category === undefined
          ? 'category'
          : '--category'
        : f.leverage === undefined
          ? p.join('.')
          : '--leverage';
    throw new FlagError(problems.map((p) => `${flag(p.path)}: ${p.message}`).join('\n'));
  }
  return category === 'MARGIN' ? { margin: marginOfEntries(leverage) } : {};
}

/**
 * A .ts strategy of the user's is type-checked before the run, as `validate` checks it (a type error exits 2
 * at its file:line:col); the verdict is cached by the files' content, so an unchanged strategy costs nothing
 * the second time. Without TypeScript the run goes on and says the check was skipped.
 */
async function typeCheck(strategy: string, lookup: StrategyLookup): Promise<void> {
  const r = await strategyTypeProblems([strategy], lookup);
  if (r.skipped !== undefined) process.stderr.write(`tradebot: ${r.skipped}\n`);
  if (r.problems.length === 0) return;
  const lines = r.problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
  throw new StrategyDefinitionError(
    `the strategy has ${counted(r.problems.length, 'type error')}; the backtest did not run (fix them, or check with tradebot validate ${strategy}):\n${lines.join('\n')}`,
  );
}

/** The run on `source`, with a bar of the candles read and their speed. */
async function runWithProgress(
  job: BacktestJob,
  source: CandleSource | CandleSource[],
  log: StrategyLog,
): Promise<Pick<Awaited<ReturnType<typeof runJob>>, 'result' | 'warmUpBefore'>> {
  const bar = progressBar('backtest {bar} {value} candles | {speed} candles/s');
  let said = false;
  const t0 = Date.now();
  bar?.start(0, 0, { speed: 0 });
  const { result, warmUpBefore } = await runJob(
    job,
    (n) => {
      bar?.setTotal(n);
      bar?.update(n, { speed: Math.round(n / Math.max(0.001, (Date.now() - t0) / 1000)) });
    },
    source,
    {
      strategyLog: log.add,
      // Said when the warm-up ends, before the first trade, once (the summary repeats it).
      onWarmUpShort: (_short, sentence) => {
        if (said) return;
        said = true;
        bar?.stop();
        process.stderr.write(`WARNING: ${sentence}\n`);
      },
    },
  );
  bar?.stop();
  return { result, warmUpBefore };
}

const when = (t: number): string => new Date(t).toISOString().replace(':00.000Z', 'Z');

/** The line that says the warm-up was loaded before --from (freqtrade's startup candles before --timerange). */
function beforeLine(w: WarmUpBefore | undefined, from: number | undefined): string {
  if (w === undefined || from === undefined) return '';
  const span =
    w.candles === w.wanted ? counted(w.candles, 'candle') : `only ${w.candles} of the ${w.wanted} candles`;
  return `warm-up loaded before --from ${when(from)}: ${span} from ${when(w.from)}, replayed without trading${w.candles === w.wanted ? '' : ' (the data starts there)'}\n`;
}

/** result.json and report.html in `dir` (made once the analysis is done), with their metrics and instrument. */
async function writeResults(
  source: CandleSource | CandleSource[],
  result: BacktestResult,
  dir: string,
  output: OutputPathOptions,
) {
  // The benchmark and the trades' excursions need the candles once more (the engine keeps neither), from
  // the sources the run read (a cached file's columns are not read again). At the run's interval: a
  // resampled run's benchmark and excursions come from the candles it ran on.
  const again = (Array.isArray(source) ? source : [source]).map((s) =>
    resampledSource(s, result.meta.interval as CandleInterval),
  );
  const instrument = (again[0] as CandleSource).meta.instrument;
  const analysis = await analyseRuns(again, result);
  const { zone } = exchangeTimeZone(instrument);
  const metrics = metricsOf(result, { benchmark: analysis.benchmark, timeZone: zone });
  prepareOutput(dir, output);
  writeFileSync(
    join(dir, 'result.json'),
    JSON.stringify(resultJson(result, metrics, quoteDecimals(instrument)), null, 1),
  );
  writeFileSync(
    join(dir, 'report.html'),
    renderReport(result, metrics, {
      instrument,
      benchmark: analysis.benchmark,
      excursions: analysis.excursions,
    }),
  );
  return { instrument, metrics };
}
