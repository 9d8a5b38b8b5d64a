// Loads a strategy module by name (from strategies/, or dist/strategies/ when running the build) or by
// file path, and checks that it exports a strategy that follows the contract.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Strategy, StrategySpec } from './contract.js';
import { createStrategy, isStrategy, strategyProblems } from './contract.js';
import type { ParamsSchema } from './params.js';

export { parseStrategyParams, StrategyParamsError } from './params.js';

/** Thrown when a strategy cannot be found or does not follow the contract; the message says the fix. */
export class StrategyLoadError extends Error {
  override readonly name = 'StrategyLoadError';
}

const here = dirname(fileURLToPath(import.meta.url));
/** This module's own extension: ".ts" under tsx/vitest, ".js" in the build. */
const ownExt = extname(fileURLToPath(import.meta.url)) === '.ts' ? '.ts' : '.js';

/**
 * The folder of the bundled strategies: `strategies/` next to `src/` from the sources, and
 * `dist/strategies/` from the build (the same relative place, two levels up from this module).
 */
export const DEFAULT_STRATEGIES_DIR = resolve(here, '..', '..', 'strategies');

const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const STRATEGY_FILE_RE = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.(?:ts|js|mjs)$/;

/** Whether a reference is a file path (has a separator or a script extension) rather than a name. */
export const isStrategyPath = (ref: string): boolean => /[\\/]/.test(ref) || /\.(?:[cm]?[jt]s)$/.test(ref);

/** Names of the strategies in a folder (files `<kebab-name>.ts|.js`, tests and declarations excluded). */
export function listStrategies(dir: string = DEFAULT_STRATEGIES_DIR): string[] {
  if (!existsSync(dir)) return [];
  const names = new Set<string>();
  for (const f of readdirSync(dir)) {
    if (f.endsWith('.d.ts') || /\.test\.[jt]s$/.test(f)) continue;
    const m = STRATEGY_FILE_RE.exec(f);
    if (m?.[1] !== undefined) names.add(m[1]);
  }
  return [...names].sort();
}

/** Where names and relative paths are looked up. */
export interface StrategyLookup {
  /** The bundled strategies (default `strategies/` of this package). */
  readonly dir?: string | undefined;
  /** Relative paths start here (default: the process's working directory). */
  readonly cwd?: string | undefined;
  /** More folders a relative path may reach into (e.g. the deployment file's own folder). */
  readonly allowedDirs?: readonly string[] | undefined;
}

const MODULE_EXT_RE = /\.(?:ts|js|mjs)$/;
const inside = (file: string, folder: string): boolean => {
  const rel = relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * Where a name or path points to; throws a StrategyLoadError when nothing is there. A path must name a
 * .ts, .js or .mjs module, and a relative one must stay inside the working directory, the bundled
 * strategies or an allowed folder: reaching anywhere else takes an absolute path, so a config file
 * cannot make tradebot import an arbitrary file by accident.
 */
export function resolveStrategyFile(nameOrPath: string, opts: StrategyLookup = {}): string {
  const dir = opts.dir ?? DEFAULT_STRATEGIES_DIR;
  if (isStrategyPath(nameOrPath)) {
    const cwd = opts.cwd ?? process.cwd();
    const file = isAbsolute(nameOrPath) ? nameOrPath : resolve(cwd, nameOrPath);
    if (!MODULE_EXT_RE.test(file) || file.endsWith('.d.ts')) {
      throw new StrategyLoadError(
        `strategy ${JSON.stringify(nameOrPath)} is not a strategy module: a path must name a .ts, .js or .mjs file (or give a strategy name such as "ma-crossover")`,
      );
    }
    const roots = [cwd, dir, ...(opts.allowedDirs ?? [])];
    if (!isAbsolute(nameOrPath) && !roots.some((r) => inside(file, resolve(r)))) {
      throw new StrategyLoadError(
        `strategy path ${JSON.stringify(nameOrPath)} leads to ${file}, outside ${roots.join(', ')}: move the strategy into one of them, or give its absolute path if you mean it`,
      );
    }
    if (!existsSync(file) || !statSync(file).isFile()) {
      throw new StrategyLoadError(
        `strategy file ${file} does not exist: check the path (relative paths start at ${cwd})`,
      );
    }
    return file;
  }
  if (!NAME_RE.test(nameOrPath)) {
    throw new StrategyLoadError(
      `strategy name ${JSON.stringify(nameOrPath)} is not a kebab-case name such as "ma-crossover": give a name from ${dir} or a file path`,
    );
  }
  // Prefer the runtime's own kind of file; .ts is usable only when a TS loader (tsx, vitest) runs us.
  const exts = ownExt === '.ts' ? ['.ts', '.js', '.mjs'] : ['.js', '.mjs'];
  for (const ext of exts) {
    const file = join(dir, nameOrPath + ext);
    if (existsSync(file)) return file;
  }
  const known = listStrategies(dir);
  throw new StrategyLoadError(
    `strategy "${nameOrPath}" not found in ${dir} (looked for ${exts.map((e) => nameOrPath + e).join(', ')}): ` +
      `use one of ${known.length > 0 ? known.join(', ') : '(none found)'} or pass a file path such as ./my-strategy.ts`,
  );
}

function looksLikeSpec(v: unknown): boolean {
  return typeof v === 'object' && v !== null && strategyProblems(v).length === 0;
}

/**
 * Picks the strategy a module exports: the default export, else the only strategy among the named
 * exports. A plain object that follows the contract (e.g. built by another copy of tradebot) is accepted
 * and checked through `createStrategy`.
 */
export function strategyFromModule(mod: Record<string, unknown>, file: string): Strategy {
  const candidates: [string, unknown][] = [];
  if (mod.default !== undefined) candidates.push(['default', mod.default]);
  for (const [k, v] of Object.entries(mod)) if (k !== 'default') candidates.push([k, v]);
  const branded = candidates.filter(([, v]) => isStrategy(v));
  const pick = (list: [string, unknown][]): Strategy | undefined => {
    if (list.length === 0) return undefined;
    const def = list.find(([k]) => k === 'default');
    if (def !== undefined) return def[1] as Strategy;
    if (list.length > 1) {
      throw new StrategyLoadError(
        `${file} exports several strategies (${list.map(([k]) => k).join(', ')}): export the one to run as default`,
      );
    }
    return (list[0] as [string, unknown])[1] as Strategy;
  };
  const found = pick(branded);
  if (found !== undefined) return found;
  const plain = pick(candidates.filter(([, v]) => looksLikeSpec(v)));
  if (plain !== undefined) return createStrategy(plain as unknown as StrategySpec<ParamsSchema>);
  // Explain what is wrong with the default export when there is one.
  const problems = mod.default === undefined ? [] : strategyProblems(mod.default);
  throw new StrategyLoadError(
    `${file} does not export a strategy: ` +
      (problems.length > 0
        ? `its default export breaks the contract:\n  - ${problems.join('\n  - ')}`
        : 'add `export default defineStrategy({ name, description, params, intervals, onCandle })` (see strategies/template.ts)'),
  );
}

/**
 * Loads a strategy by name (`strategies/<name>.ts`, or `.js` from the build) or by file path, and checks
 * it follows the contract.
 *
 * @example const s = await loadStrategy('ma-crossover'); const params = parseStrategyParams(s, { fast: 5 });
 */
export async function loadStrategy(nameOrPath: string, opts: StrategyLookup = {}): Promise<Strategy> {
  const file = resolveStrategyFile(nameOrPath, opts);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const tsHint =
      extname(file) === '.ts' && ownExt === '.js'
        ? ' (a .ts strategy needs a TypeScript loader: run with `node --import tsx` or build it)'
        : '';
    throw new StrategyLoadError(`strategy module ${file} failed to load: ${why}${tsHint}`, { cause: err });
  }
  const strategy = strategyFromModule(mod, file);
  if (!isStrategyPath(nameOrPath) && strategy.name !== nameOrPath) {
    throw new StrategyLoadError(
      `${file} declares the strategy name "${strategy.name}": rename the file or the strategy so they match`,
    );
  }
  return strategy;
}
