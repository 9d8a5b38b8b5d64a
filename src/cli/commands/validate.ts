// `tradebot validate FILE`: checks a deployment (or backtest) file without starting anything.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { openDataset, openDatasets } from '../../data/datasets.js';
import { CandleFileError } from '../../data/format.js';
import { jobDatasetName, jobFromConfig } from '../../backtest/run-config.js';
import { atRunInterval } from '../../backtest/run-interval.js';
import { StrategyDefinitionError } from '../../strategy/contract.js';
import { counted } from '../../market/spelling.js';
import { checkStrategyFile, strategyTypeProblems } from '../../strategy/check-file.js';
import {
  BacktestConfigSchema,
  ConfigError,
  checkBacktestStrategy,
  loadDeployment,
  loadYaml,
  strategyLookupFor,
  type BacktestConfig,
  type ConfigProblem,
  type LoadedConfig,
} from '../../config/index.js';
import { exitBlockWarning } from '../../strategy/exit-block-check.js';
import { sharedMarginAccountWarnings } from '../../config/margin-sharing.js';
import { parseExitRules } from '../../strategy/exits.js';
import { loadStrategy, resolveStrategyFile } from '../../strategy/loader.js';
import { checkVenueSymbols } from '../venue-symbols.js';

export function register(program: Command): void {
  program
    .command('validate')
    .description(
      'Check a deployment file (or a backtest file with --backtest): the schema, each strategy and its parameters; or a strategy module (.ts, .js, .mjs): its declaration and, for .ts, its types; prints every problem with file:line:col',
    )
    .argument('<file>', 'YAML file, or a strategy module (.ts, .js, .mjs)')
    .option(
      '--backtest',
      'the file is a backtest definition (found by itself when it has a dataset and no bots)',
      false,
    )
    .option(
      '--offline',
      "a deployment on a remote or paper venue: do not ask the venue's instrument list (its symbols are then not checked)",
      false,
    )
    .addHelpText(
      'after',
      "\nA deployment's symbols are checked as `run` checks them at its start: against the embedded simulator's\n" +
        "instruments, or a remote venue's (public, no key needed) when it answers within 5 s; otherwise the output\n" +
        'says they were not checked.\n\nExit codes: 0 valid, 2 invalid.',
    )
    .action(async (file: string, opts: { backtest: boolean; offline: boolean }) => {
      if (STRATEGY_MODULE_RE.test(file)) {
        process.exitCode = await validateStrategyFile(file);
        return;
      }
      try {
        if (opts.backtest || looksLikeBacktest(file)) {
          const loaded = loadYaml(BacktestConfigSchema, file);
          const problems: ConfigProblem[] = [];
          try {
            await checkBacktestStrategy(loaded);
          } catch (e) {
            if (!(e instanceof ConfigError)) throw e;
            problems.push(...e.problems);
          }
          problems.push(...datasetProblems(loaded));
          if (problems.length === 0) problems.push(...(await intervalProblems(loaded)));
          const c = loaded.config;
          problems.push(...(await typeProblems(file, [c.strategy], c.strategiesDir)));
          if (problems.length > 0) throw new ConfigError(problems, undefined, loaded.redact);
          await warnBlockableExits(
            file,
            [{ where: 'strategy', ref: c.strategy, exits: c.exits }],
            c.strategiesDir,
          );
          process.stdout.write(`${file}: ok (backtest)\n`);
        } else {
          await validateDeployment(file, opts.offline);
        }
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        process.stderr.write(`${e.message}\n${file}: ${counted(e.problems.length, 'problem')}\n`);
        process.exitCode = 2;
      }
    });
}

/** A deployment file: its strategies' types, its symbols against the venue's list, its blockable exits. */
async function validateDeployment(file: string, offline: boolean): Promise<void> {
  const loaded = await loadDeployment(file);
  const { config } = loaded;
  const refs = config.bots.map((b) => b.strategy);
  const problems = await typeProblems(file, refs, config.strategiesDir);
  if (problems.length > 0) throw new ConfigError(problems);
  const symbols = await checkVenueSymbols(loaded, { offline });
  if (symbols.checked && symbols.problems.length > 0)
    throw new ConfigError([...symbols.problems], undefined, loaded.redact);
  if (!symbols.checked)
    process.stderr.write(
      `${file}: the bots' symbols were not checked against the venue: ${symbols.why}; \`tradebot doctor --config ${file}\` checks them when the venue answers (run refuses a symbol it does not list)\n`,
    );
  const bots = config.bots.map((b, i) => ({
    where: `bots[${i}] (${b.name})`,
    ref: b.strategy,
    exits: b.exits,
  }));
  await warnBlockableExits(file, bots, config.strategiesDir);
  for (const w of sharedMarginAccountWarnings(config))
    process.stderr.write(`${file}: warning: bots[${w.index}] (${w.bot}): ${w.text}\n`);
  const unchecked = symbols.checked ? `; symbols listed by ${symbols.against}` : '; symbols not checked';
  process.stdout.write(`${file}: ok (${counted(config.bots.length, 'bot')}${unchecked})\n`);
}

/** The type errors of the user's .ts strategies the file names, as the file's problems. */
async function typeProblems(
  file: string,
  refs: readonly string[],
  strategiesDir: string | undefined,
): Promise<ConfigProblem[]> {
  const r = await strategyTypeProblems(refs, strategyLookupFor(file, strategiesDir));
  if (r.skipped !== undefined) process.stderr.write(`${file}: ${r.skipped}\n`);
  return r.problems.map((p) => ({ ...p, path: '' }));
}

const STRATEGY_MODULE_RE = /\.(?:ts|js|mjs)$/;

/** `validate my-strategy.ts`: the declaration and, for .ts, the type check; every problem at its place. */
async function validateStrategyFile(file: string): Promise<number> {
  const r = await checkStrategyFile(file);
  if (r.skipped !== undefined) process.stderr.write(`${file}: ${r.skipped}\n`);
  if (r.problems.length > 0) {
    const lines = r.problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    process.stderr.write(`${lines.join('\n')}\n${file}: ${counted(r.problems.length, 'problem')}\n`);
    return 2;
  }
  const checked = r.typeChecked ? ', type-checked' : '';
  process.stdout.write(`${file}: ok (strategy ${r.name ?? '?'}${checked})\n`);
  return 0;
}

/**
 * Each dataset opened as the backtest would open it (a bundled name, a file that exists and reads, the
 * instrument of a file that has none): what `tradebot backtest` would refuse, found before it runs.
 */
function datasetProblems(loaded: LoadedConfig<BacktestConfig>): ConfigProblem[] {
  const c = loaded.config;
  const job = jobFromConfig(c);
  const problems: ConfigProblem[] = [];
  (job.datasets ?? [job.dataset]).forEach((ref, i) => {
    try {
      openDataset(ref, { instrument: job.instrument, cacheDir: undefined });
    } catch (e) {
      if (!(e instanceof CandleFileError)) throw e;
      const path = Array.isArray(c.dataset) ? ['dataset', i] : ['dataset'];
      problems.push({ file: loaded.file, ...loaded.locate(path), path: path.join('.'), message: e.message });
    }
  });
  return problems;
}

/**
 * The interval the backtest would run at, refused as `tradebot backtest` refuses it: one its strategy does not
 * declare, or one its data cannot make (see atRunInterval). Asked once the strategy and the datasets passed.
 */
async function intervalProblems(loaded: LoadedConfig<BacktestConfig>): Promise<ConfigProblem[]> {
  const c = loaded.config;
  const job = jobFromConfig(c);
  const strategy = await loadStrategy(c.strategy, strategyLookupFor(loaded.file, c.strategiesDir));
  const sources = openDatasets(job.datasets ?? [job.dataset], {
    instrument: job.instrument,
    cacheDir: undefined,
  });
  try {
    atRunInterval({ strategy, interval: c.interval, dataset: jobDatasetName(job) }, sources);
    return [];
  } catch (e) {
    if (!(e instanceof CandleFileError || e instanceof StrategyDefinitionError)) throw e;
    const path = c.interval === undefined ? ['dataset'] : ['interval'];
    return [{ file: loaded.file, ...loaded.locate(path), path: path.join('.'), message: e.message }];
  }
}

/**
 * A warning (stderr, exit 0) for each strategy whose stop or trailing exits its own resting limit sells can
 * block (see exitBlockWarning): valid, and worth knowing before it runs.
 */
async function warnBlockableExits(
  file: string,
  uses: readonly { where: string; ref: string; exits: unknown }[],
  strategiesDir: string | undefined,
): Promise<void> {
  const lookup = strategyLookupFor(file, strategiesDir);
  for (const u of uses) {
    const strategy = await loadStrategy(u.ref, lookup);
    const exits = u.exits === undefined ? undefined : parseExitRules(u.exits, `${u.where}.exits`);
    const w = exitBlockWarning(strategy, resolveStrategyFile(u.ref, lookup), exits);
    if (w !== undefined) process.stderr.write(`${file}: warning: ${u.where}: ${w}\n`);
  }
}

/** A file with a top-level `dataset` and no `bots` is a backtest definition; anything unreadable is not. */
function looksLikeBacktest(file: string): boolean {
  try {
    const raw = parse(readFileSync(file, 'utf8'), { maxAliasCount: 100 }) as Record<string, unknown> | null;
    return typeof raw === 'object' && raw !== null && 'dataset' in raw && !('bots' in raw);
  } catch {
    return false; // the deployment loader reports what is wrong with it, at its line
  }
}
