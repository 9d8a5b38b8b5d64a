// A deployment file checked completely, as `validate` and `run` both need it: the schema, then each
// bot's strategy loaded (bundled, or a module path that stays in the allowed folders) and its parameters
// checked against the strategy's own schema, every problem at its file:line:col.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { liveClock } from '../feeds/clock.js';
import { warmUpBackfillProblem } from '../feeds/closed-candles.js';
import { StrategyDefinitionError, acceptsInterval, informativeProblems } from '../strategy/contract.js';
import {
  DEFAULT_OWN_STRATEGIES_DIR,
  StrategyLoadError,
  loadStrategy,
  type StrategyLookup,
} from '../strategy/loader.js';
import { StrategyParamsError, parseStrategyParams } from '../strategy/params.js';
import type { BacktestConfig } from './backtest-schema.js';
import { ConfigError, loadConfig, type ConfigProblem, type LoadedConfig } from './load.js';
import type { PaperSwitch } from './paper.js';
import type { BotConfig, Deployment } from './schema.js';

/**
 * Where the strategies of a file are looked up: names in its `strategiesDir` (relative to the file;
 * default `strategies` next to it), then in the bundled folder; paths relative to the working directory,
 * reaching only into it, the strategy folders or the file's own folder. Every folder is absolute, so the
 * lookup means the same in a sweep's worker threads and queue workers.
 */
export const strategyLookupFor = (file: string, strategiesDir?: string): StrategyLookup => {
  const home = dirname(resolve(file));
  return {
    dirs: [resolve(home, strategiesDir ?? DEFAULT_OWN_STRATEGIES_DIR)],
    cwd: process.cwd(),
    allowedDirs: [home],
  };
};

/** The lookup of a run without a file (flags only): `strategies` in the working directory. */
export const strategyLookupHere = (): StrategyLookup => ({
  dirs: [resolve(DEFAULT_OWN_STRATEGIES_DIR)],
  cwd: process.cwd(),
});

/** A `strategiesDir` the file names explicitly must be a folder (the default one may be missing). */
function strategiesDirProblems(
  loaded: Pick<LoadedConfig<unknown>, 'file' | 'locate'>,
  strategiesDir: string | undefined,
): ConfigProblem[] {
  if (strategiesDir === undefined) return [];
  const dir = resolve(dirname(resolve(loaded.file)), strategiesDir);
  if (existsSync(dir) && statSync(dir).isDirectory()) return [];
  return [
    {
      file: loaded.file,
      ...loaded.locate(['strategiesDir']),
      path: 'strategiesDir',
      message: `strategiesDir ${strategiesDir} is not a folder (${dir}): create it, or fix the path (it is relative to this file)`,
    },
  ];
}

/** The parameter a StrategyParamsError line is about, and whether it is an unknown one. */
const paramOf = (line: string): { name: string; unknown: boolean } | undefined => {
  const m = /^(unknown )?parameter "([^".]+)/.exec(line);
  return m?.[2] === undefined ? undefined : { name: m[2], unknown: m[1] !== undefined };
};

/**
 * Loads the strategy of one bot (or backtest) and checks its parameters; answers the problems found,
 * each placed at the strategy name or the parameter it is about. `at` is the path of the object that
 * holds `strategy` and `params`.
 */
export async function strategyProblems(
  loaded: Pick<LoadedConfig<unknown>, 'file' | 'locate'>,
  at: readonly (string | number)[],
  ref: { readonly strategy: string; readonly params: unknown },
  strategiesDir?: string,
): Promise<ConfigProblem[]> {
  const { file, locate } = loaded;
  const dotted = (path: readonly (string | number)[]) =>
    path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), '');
  let strategy;
  try {
    strategy = await loadStrategy(ref.strategy, strategyLookupFor(file, strategiesDir));
  } catch (e) {
    if (!(e instanceof StrategyLoadError)) throw e;
    return [{ file, ...locate([...at, 'strategy']), path: dotted([...at, 'strategy']), message: e.message }];
  }
  try {
    parseStrategyParams(strategy, ref.params);
    return [];
  } catch (e) {
    if (!(e instanceof StrategyParamsError)) throw e;
    const byPlace = (a: ConfigProblem, b: ConfigProblem) => a.line - b.line || a.col - b.col;
    return e.problems
      .map((line): ConfigProblem => {
        const p = paramOf(line);
        const path = p === undefined ? [...at, 'params'] : [...at, 'params', p.name];
        const pos = p?.unknown === true ? locate([...at, 'params'], p.name) : locate(path);
        return { file, ...pos, path: dotted(path), message: `${line} (strategy ${strategy.name})` };
      })
      .sort(byPlace);
  }
}

/**
 * What a bot's start would refuse of its strategy on its interval and symbols: informative intervals that
 * cannot be resampled from the bot's, and a warm-up whose backfill the venue cannot serve a starting bot
 * (see `warmUpBackfillProblem`). Run once the strategy and its parameters passed `strategyProblems`.
 */
async function botStartProblems(
  loaded: Pick<LoadedConfig<unknown>, 'file' | 'locate'>,
  i: number,
  bot: BotConfig,
  strategiesDir?: string,
): Promise<ConfigProblem[]> {
  const strategy = await loadStrategy(bot.strategy, strategyLookupFor(loaded.file, strategiesDir));
  const at = ['bots', i, 'strategy'];
  const problem = (message: string): ConfigProblem[] => [
    {
      file: loaded.file,
      ...loaded.locate(at),
      path: `bots[${i}].strategy`,
      message: `${message} (bot ${bot.name}, strategy ${strategy.name})`,
    },
  ];
  // The strategy's intervals hold live as in a backtest (src/backtest/run-interval.ts): none other is fed to it.
  if (!acceptsInterval(strategy, bot.interval))
    return problem(
      `declares the intervals ${strategy.intervals.join(', ')}, and the bot's interval is ${bot.interval}: set interval to one of them`,
    );
  const informative = informativeProblems(strategy, bot.interval);
  if (informative.length > 0) return problem(`on interval ${bot.interval}: ${informative.join('; ')}`);
  let warmUp;
  try {
    warmUp = strategy.warmUp(parseStrategyParams(strategy, bot.params));
  } catch (e) {
    if (!(e instanceof StrategyDefinitionError)) throw e;
    return problem(e.message);
  }
  const backfill = warmUpBackfillProblem({
    candles: warmUp.candles,
    interval: bot.interval,
    informative: strategy.informative,
    symbols: bot.symbols.length,
    now: liveClock.now(),
  });
  return backfill === undefined
    ? []
    : problem(`its warm-up cannot be backfilled (${warmUp.source}): ${backfill}`);
}

/**
 * Loads a deployment file and checks everything a start would find wrong before trading: the schema,
 * each bot's strategy and its parameters, and what its start needs of the venue (the warm-up's
 * backfill). Throws `ConfigError` with every problem.
 */
export async function loadDeployment(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  /** Read as a paper run of the file (`run --paper`, see src/config/paper.ts). */
  paper?: PaperSwitch,
): Promise<LoadedConfig<Deployment>> {
  let loaded: LoadedConfig<Deployment>;
  try {
    loaded = loadConfig(file, env, paper);
  } catch (e) {
    // The schema refused the file: still check the strategies it names, so every problem shows at once.
    if (!(e instanceof ConfigError) || e.parsed === undefined) throw e;
    const raw = e.parsed.raw as { bots?: unknown; strategiesDir?: unknown } | null;
    const bots = raw?.bots;
    const dir = typeof raw?.strategiesDir === 'string' ? raw.strategiesDir : undefined;
    const more: ConfigProblem[] = [];
    if (Array.isArray(bots)) {
      for (const [i, bot] of bots.entries()) {
        const b = bot as { strategy?: unknown; params?: unknown } | null;
        if (typeof b?.strategy !== 'string') continue;
        more.push(
          ...(await strategyProblems(
            { file, locate: e.parsed.locate },
            ['bots', i],
            {
              strategy: b.strategy,
              params: b.params ?? {},
            },
            dir,
          )),
        );
      }
    }
    if (more.length === 0) throw e;
    throw new ConfigError(
      [...e.problems, ...more].sort((a, b) => a.line - b.line || a.col - b.col),
      e.parsed,
    );
  }
  const dir = loaded.config.strategiesDir;
  const problems: ConfigProblem[] = strategiesDirProblems(loaded, dir);
  for (const [i, bot] of loaded.config.bots.entries()) {
    const found = await strategyProblems(loaded, ['bots', i], bot, dir);
    problems.push(...(found.length > 0 ? found : await botStartProblems(loaded, i, bot, dir)));
  }
  if (problems.length > 0) throw new ConfigError(problems, undefined, loaded.redact);
  return loaded;
}

/** The same strategy and parameter checks for a loaded backtest definition. */
export async function checkBacktestStrategy(loaded: LoadedConfig<BacktestConfig>): Promise<void> {
  const dir = loaded.config.strategiesDir;
  const problems = [
    ...strategiesDirProblems(loaded, dir),
    ...(await strategyProblems(loaded, [], loaded.config, dir)),
  ];
  if (problems.length > 0) throw new ConfigError(problems, undefined, loaded.redact);
}
