// A deployment file checked completely, as `validate` and `run` both need it: the schema, then each
// bot's strategy loaded (bundled, or a module path that stays in the allowed folders) and its parameters
// checked against the strategy's own schema, every problem at its file:line:col.
import { dirname, resolve } from 'node:path';
import { StrategyLoadError, loadStrategy, type StrategyLookup } from '../strategy/loader.js';
import { StrategyParamsError, parseStrategyParams } from '../strategy/params.js';
import type { BacktestConfig } from './backtest-schema.js';
import { ConfigError, loadConfig, type ConfigProblem, type LoadedConfig } from './load.js';
import type { Deployment } from './schema.js';

/**
 * Where the strategies of a file are looked up: names in the bundled folder; paths relative to the
 * working directory, reaching only into it, the bundled folder or the file's own folder.
 */
export const strategyLookupFor = (file: string): StrategyLookup => ({
  allowedDirs: [dirname(resolve(file))],
});

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
): Promise<ConfigProblem[]> {
  const { file, locate } = loaded;
  const dotted = (path: readonly (string | number)[]) =>
    path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), '');
  let strategy;
  try {
    strategy = await loadStrategy(ref.strategy, strategyLookupFor(file));
  } catch (e) {
    if (!(e instanceof StrategyLoadError)) throw e;
    return [{ file, ...locate([...at, 'strategy']), path: dotted([...at, 'strategy']), message: e.message }];
  }
  try {
    parseStrategyParams(strategy, ref.params);
    return [];
  } catch (e) {
    if (!(e instanceof StrategyParamsError)) throw e;
    return e.problems.map((line) => {
      const p = paramOf(line);
      const path = p === undefined ? [...at, 'params'] : [...at, 'params', p.name];
      const pos = p?.unknown === true ? locate([...at, 'params'], p.name) : locate(path);
      return { file, ...pos, path: dotted(path), message: `${line} (strategy ${strategy.name})` };
    });
  }
}

/**
 * Loads a deployment file and checks everything a start would find wrong before trading: the schema,
 * each bot's strategy and its parameters. Throws `ConfigError` with every problem.
 */
export async function loadDeployment(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LoadedConfig<Deployment>> {
  let loaded: LoadedConfig<Deployment>;
  try {
    loaded = loadConfig(file, env);
  } catch (e) {
    // The schema refused the file: still check the strategies it names, so every problem shows at once.
    if (!(e instanceof ConfigError) || e.parsed === undefined) throw e;
    const bots = (e.parsed.raw as { bots?: unknown } | null)?.bots;
    const more: ConfigProblem[] = [];
    if (Array.isArray(bots)) {
      for (const [i, bot] of bots.entries()) {
        const b = bot as { strategy?: unknown; params?: unknown } | null;
        if (typeof b?.strategy !== 'string') continue;
        more.push(
          ...(await strategyProblems({ file, locate: e.parsed.locate }, ['bots', i], {
            strategy: b.strategy,
            params: b.params ?? {},
          })),
        );
      }
    }
    if (more.length === 0) throw e;
    throw new ConfigError(
      [...e.problems, ...more].sort((a, b) => a.line - b.line || a.col - b.col),
      e.parsed,
    );
  }
  const problems: ConfigProblem[] = [];
  for (const [i, bot] of loaded.config.bots.entries())
    problems.push(...(await strategyProblems(loaded, ['bots', i], bot)));
  if (problems.length > 0) throw new ConfigError(problems);
  return loaded;
}

/** The same strategy and parameter checks for a loaded backtest definition. */
export async function checkBacktestStrategy(loaded: LoadedConfig<BacktestConfig>): Promise<void> {
  const problems = await strategyProblems(loaded, [], loaded.config);
  if (problems.length > 0) throw new ConfigError(problems);
}
