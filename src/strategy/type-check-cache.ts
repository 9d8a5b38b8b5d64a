// The type check of a strategy, remembered by content: a second `backtest` (or `validate`) of an unchanged
// strategy reads its verdict from the cache instead of running TypeScript again (about a second each time).
// The key is what the verdict depends on: this package's version, the TypeScript it ran, and every TypeScript
// file under the strategy's folder (its local imports live there), by path and content. A file that changed,
// appeared or went away is another key: a stale verdict cannot be read. Deleting the folder is always safe.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { PACKAGE_ROOT } from './loader.js';
import {
  resolveTypeScript,
  typeCheckStrategy,
  type TypeCheckResult,
  type TypeProblem,
} from './type-check.js';

/** More TypeScript files than this under the strategy's folder: not cached (the key would cost too much). */
const MAX_KEYED_FILES = 500;
const TS_FILE_RE = /\.(?:ts|mts|cts)$/;

/**
 * Where verdicts are kept: `$XDG_CACHE_HOME/tradebot/type-check`, else `~/.cache/tradebot/type-check`;
 * `TRADEBOT_CACHE_DIR=off` turns it off as it turns the candle cache off.
 */
export function typeCheckCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TRADEBOT_CACHE_DIR === 'off') return undefined;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tradebot', 'type-check');
}

/** The TypeScript files under `dir` (node_modules and dot folders skipped), sorted; undefined past the bound. */
function keyedFiles(dir: string): string[] | undefined {
  const found: string[] = [];
  const walk = (d: string): boolean => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const e of entries) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!walk(p)) return false;
      } else if (TS_FILE_RE.test(e.name)) {
        found.push(p);
        if (found.length > MAX_KEYED_FILES) return false;
      }
    }
    return true;
  };
  return walk(dir) ? found.sort() : undefined;
}

function packageVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string })
        .version ?? '?'
    );
  } catch {
    return '?';
  }
}

/** The cache key of a strategy's type check, or undefined when it cannot be keyed. */
function keyOf(file: string, typescript: string): string | undefined {
  const dir = dirname(resolve(file));
  const files = keyedFiles(dir);
  if (files === undefined) return undefined;
  const h = createHash('sha256');
  h.update(
    `tradebot ${packageVersion()}\0typescript ${typescript}\0${dir}\0strategy ${relative(dir, resolve(file))}\0`,
  );
  for (const f of files) {
    h.update(`${relative(dir, f)}\0`);
    h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

/**
 * `typeCheckStrategy`, answered from the cache when the strategy's files are unchanged since a check that ran
 * (`cached: true`); a check that could not run (no TypeScript) is never cached.
 */
export async function typeCheckStrategyCached(
  file: string,
  o: { readonly cwd?: string | undefined; readonly cacheDir?: string | undefined } = {},
): Promise<TypeCheckResult & { readonly cached?: boolean }> {
  const typescript = resolveTypeScript(o.cwd);
  const dir = 'cacheDir' in o ? o.cacheDir : typeCheckCacheDir();
  const key = typescript === undefined || dir === undefined ? undefined : keyOf(file, typescript);
  const path = key === undefined || dir === undefined ? undefined : join(dir, `${key}.json`);
  if (path !== undefined) {
    try {
      const problems = (JSON.parse(readFileSync(path, 'utf8')) as { problems: TypeProblem[] }).problems;
      if (Array.isArray(problems)) return { checked: true, problems, cached: true };
    } catch {
      // no verdict kept (or an unreadable one): check
    }
  }
  const r = await typeCheckStrategy(file, { cwd: o.cwd, findTypeScript: () => typescript });
  if (r.checked && path !== undefined && dir !== undefined) {
    try {
      mkdirSync(dir, { recursive: true });
      // Written whole, then renamed: a reader never sees half a verdict.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ file: resolve(file), problems: r.problems }));
      renameSync(tmp, path);
    } catch {
      // A cache that cannot be written costs the next run a check, nothing more.
    }
  }
  return r;
}
