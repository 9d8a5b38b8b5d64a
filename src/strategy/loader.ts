// Loads a strategy module by name (from the user's strategies folders, then the bundled strategies/, or
// dist/strategies/ when running the build) or by file path, .ts or .js, and checks that it exports a
// strategy that follows the contract. A strategy outside the package imports everything from 'tradebot'.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Strategy, StrategySpec } from './contract.js';
import { createStrategy, isStrategy, strategyProblems } from './contract.js';
import { ensureStrategyHooks } from './module-hooks.js';
import type { ParamsSchema } from './params.js';
import { didYouMean } from '../market/spelling.js';

export { parseStrategyParams, StrategyParamsError } from './params.js';

/** Thrown when a strategy cannot be found or does not follow the contract; the message says the fix. */
export class StrategyLoadError extends Error {
  override readonly name = 'StrategyLoadError';
}

const here = dirname(fileURLToPath(import.meta.url));
/** This module's own extension: ".ts" under tsx/vitest, ".js" in the build. */
const ownExt = extname(fileURLToPath(import.meta.url)) === '.ts' ? '.ts' : '.js';

/** The root of the running package (where its package.json is): two levels up from src/, three from dist/src/. */
export const PACKAGE_ROOT = resolve(here, '..', '..', ...(ownExt === '.js' ? ['..'] : []));
/** The running package's entry module: what `import ... from 'tradebot'` means to a strategy. */
const PACKAGE_ENTRY = resolve(here, '..', `index${ownExt}`);

/**
 * The folder of the bundled strategies: `strategies/` next to `src/` from the sources, and
 * `dist/strategies/` from the build (the same relative place, two levels up from this module).
 */
export const DEFAULT_STRATEGIES_DIR = resolve(here, '..', '..', 'strategies');

/** The user's strategies folder when a file does not name one: `strategies` next to the file (or in cwd). */
export const DEFAULT_OWN_STRATEGIES_DIR = 'strategies';

const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const STRATEGY_FILE_RE = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.(?:ts|js|mjs)$/;
const INDEX_FILES = ['index.ts', 'index.js', 'index.mjs'];

/** Whether a reference is a file path (has a separator or a script extension) rather than a name. */
export const isStrategyPath = (ref: string): boolean => /[\\/]/.test(ref) || /\.(?:[cm]?[jt]s)$/.test(ref);

/**
 * Names of the strategies in a folder: files `<kebab-name>.ts|.js|.mjs` and folders `<kebab-name>/` with an
 * `index.ts|.js|.mjs` (tests and declarations excluded).
 */
export function listStrategies(dir: string = DEFAULT_STRATEGIES_DIR): string[] {
  if (!existsSync(dir)) return [];
  const names = new Set<string>();
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    if (f.isDirectory()) {
      if (NAME_RE.test(f.name) && INDEX_FILES.some((i) => existsSync(join(dir, f.name, i))))
        names.add(f.name);
      continue;
    }
    if (f.name.endsWith('.d.ts') || /\.test\.[jt]s$/.test(f.name)) continue;
    const m = STRATEGY_FILE_RE.exec(f.name);
    if (m?.[1] !== undefined) names.add(m[1]);
  }
  return [...names].sort();
}

/** Where names and relative paths are looked up. Plain data, so a sweep can send it to its workers. */
export interface StrategyLookup {
  /** The bundled strategies (default `strategies/` of this package). */
  readonly dir?: string | undefined;
  /**
   * The user's own strategy folders, searched by name before the bundled ones (a strategy of the same
   * name there wins). Relative ones start at `cwd`. A folder that does not exist is skipped.
   */
  readonly dirs?: readonly string[] | undefined;
  /** Relative paths start here (default: the process's working directory). */
  readonly cwd?: string | undefined;
  /** More folders a relative path may reach into (e.g. the deployment file's own folder). */
  readonly allowedDirs?: readonly string[] | undefined;
}

/** The folders a name is looked up in, own folders first, each absolute. */
export function strategyFolders(opts: StrategyLookup = {}): { dir: string; bundled: boolean }[] {
  const cwd = opts.cwd ?? process.cwd();
  const own = (opts.dirs ?? []).map((d) => ({ dir: resolve(cwd, d), bundled: false }));
  const bundled = resolve(opts.dir ?? DEFAULT_STRATEGIES_DIR);
  return [...own.filter((o) => o.dir !== bundled), { dir: bundled, bundled: true }];
}

const MODULE_EXT_RE = /\.(?:ts|js|mjs)$/;
const inside = (file: string, folder: string): boolean => {
  const rel = relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

// Prefer the runtime's own kind of file (a built .js next to its .ts needs no TypeScript loader).
const NAME_EXTS = ownExt === '.ts' ? ['.ts', '.js', '.mjs'] : ['.js', '.mjs', '.ts'];

/** The module of strategy `name` in one folder (`<name>.ts|.js|.mjs` or `<name>/index.*`), if there. */
export function strategyFileIn(dir: string, name: string): string | undefined {
  const candidates = [
    ...NAME_EXTS.map((ext) => join(dir, name + ext)),
    ...INDEX_FILES.map((i) => join(dir, name, i)),
  ];
  return candidates.find((f) => existsSync(f) && statSync(f).isFile());
}

/**
 * Where a name or path points to; throws a StrategyLoadError when nothing is there. A path must name a
 * .ts, .js or .mjs module, and a relative one must stay inside the working directory, the strategy
 * folders or an allowed folder: reaching anywhere else takes an absolute path, so a config file
 * cannot make tradebot import an arbitrary file by accident.
 */
export function resolveStrategyFile(nameOrPath: string, opts: StrategyLookup = {}): string {
  const folders = strategyFolders(opts);
  if (isStrategyPath(nameOrPath)) {
    const cwd = opts.cwd ?? process.cwd();
    const file = isAbsolute(nameOrPath) ? nameOrPath : resolve(cwd, nameOrPath);
    if (!MODULE_EXT_RE.test(file) || file.endsWith('.d.ts')) {
      throw new StrategyLoadError(
        `strategy ${JSON.stringify(nameOrPath)} is not a strategy module: a path must name a .ts, .js or .mjs file (or give a strategy name such as "ma-crossover")`,
      );
    }
    const roots = [cwd, ...folders.map((f) => f.dir), ...(opts.allowedDirs ?? [])];
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
      `strategy name ${JSON.stringify(nameOrPath)} is not a kebab-case name such as "ma-crossover": give a strategy name from ${folders.map((f) => f.dir).join(' or ')}, or a file path`,
    );
  }
  for (const { dir } of folders) {
    const found = strategyFileIn(dir, nameOrPath);
    if (found !== undefined) return found;
  }
  const searched = folders.map(({ dir, bundled }) =>
    bundled ? `${dir} (bundled)` : existsSync(dir) ? `${dir} (yours)` : `${dir} (yours, missing)`,
  );
  const known = [...new Set(folders.flatMap(({ dir }) => listStrategies(dir)))];
  throw new StrategyLoadError(
    `strategy "${nameOrPath}"${didYouMean(nameOrPath, known)} not found in ${searched.join(' or ')}: ` +
      `use one of ${known.length > 0 ? known.join(', ') : '(none found)'}, set strategiesDir to the folder that holds ${nameOrPath}.ts, or pass a file path such as ./my-strategy.ts`,
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

/** Whether a file belongs to the running package (its bundled strategies and sources). */
const insidePackage = (file: string): boolean =>
  inside(file, resolve(PACKAGE_ROOT, 'strategies')) ||
  inside(file, resolve(PACKAGE_ROOT, 'dist')) ||
  inside(file, resolve(PACKAGE_ROOT, 'src'));

/**
 * Loads a strategy by name (the user's `dirs`, then the bundled strategies) or by file path, `.ts` or
 * `.js`, and checks it follows the contract. A strategy outside the package gets `tradebot` resolved to
 * the running package; a `.ts` one gets tsx registered, so no extra `node` flag is ever needed.
 *
 * @example const s = await loadStrategy('ma-crossover'); const params = parseStrategyParams(s, { fast: 5 });
 * @example const mine = await loadStrategy('bb-revert', { dirs: ['/home/me/strategies'] });
 */
export async function loadStrategy(nameOrPath: string, opts: StrategyLookup = {}): Promise<Strategy> {
  const file = resolveStrategyFile(nameOrPath, opts);
  let mod: Record<string, unknown>;
  try {
    const typescript = extname(file) === '.ts' && ownExt === '.js';
    if (typescript || !insidePackage(file)) await ensureStrategyHooks(PACKAGE_ENTRY, typescript);
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new StrategyLoadError(`strategy module ${file} failed to load: ${why}`, { cause: err });
  }
  const strategy = strategyFromModule(mod, file);
  if (!isStrategyPath(nameOrPath) && strategy.name !== nameOrPath) {
    throw new StrategyLoadError(
      `${file} declares the strategy name "${strategy.name}": rename the file or the strategy so they match`,
    );
  }
  return strategy;
}
