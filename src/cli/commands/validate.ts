// `tradebot validate FILE`: checks a deployment (or backtest) file without starting anything.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { openDataset } from '../../data/datasets.js';
import { CandleFileError } from '../../data/format.js';
import { jobFromConfig } from '../../backtest/run-config.js';
import { counted } from '../../market/spelling.js';
import {
  BacktestConfigSchema,
  ConfigError,
  checkBacktestStrategy,
  loadDeployment,
  loadYaml,
  type BacktestConfig,
  type ConfigProblem,
  type LoadedConfig,
  strategyLookupFor,
} from '../../config/index.js';
import { exitBlockWarning } from '../../strategy/exit-block-check.js';
import { parseExitRules } from '../../strategy/exits.js';
import { loadStrategy, resolveStrategyFile } from '../../strategy/loader.js';

export function register(program: Command): void {
  program
    .command('validate')
    .description(
      'Check a deployment file (or a backtest file with --backtest): the schema, each strategy and its parameters; prints every problem with file:line:col',
    )
    .argument('<file>', 'YAML file')
    .option(
      '--backtest',
      'the file is a backtest definition (found by itself when it has a dataset and no bots)',
      false,
    )
    .addHelpText('after', '\nExit codes: 0 valid, 2 invalid.')
    .action(async (file: string, opts: { backtest: boolean }) => {
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
          if (problems.length > 0) throw new ConfigError(problems, undefined, loaded.redact);
          const c = loaded.config;
          await warnBlockableExits(
            file,
            [{ where: 'strategy', ref: c.strategy, exits: c.exits }],
            c.strategiesDir,
          );
          process.stdout.write(`${file}: ok (backtest)\n`);
        } else {
          const { config } = await loadDeployment(file);
          const bots = config.bots.map((b, i) => ({
            where: `bots[${i}] (${b.name})`,
            ref: b.strategy,
            exits: b.exits,
          }));
          await warnBlockableExits(file, bots, config.strategiesDir);
          process.stdout.write(`${file}: ok (${counted(config.bots.length, 'bot')})\n`);
        }
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        process.stderr.write(`${e.message}\n${file}: ${counted(e.problems.length, 'problem')}\n`);
        process.exitCode = 2;
      }
    });
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
