// The checks `tradebot validate` makes of one strategy module: it loads and follows the contract (every key
// of its declaration known, freqtrade's names translated), and a .ts one type-checks against this package's
// types. Each problem at its file:line:col when it has one.
import { readFileSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import {
  loadStrategy,
  PACKAGE_ROOT,
  resolveStrategyFile,
  StrategyLoadError,
  type StrategyLookup,
} from './loader.js';
import type { TypeProblem } from './type-check.js';
import { typeCheckStrategyCached } from './type-check-cache.js';

export interface StrategyFileCheck {
  /** The strategy's name, when it loaded. */
  readonly name: string | undefined;
  readonly problems: readonly TypeProblem[];
  /** Why the type check did not run (no TypeScript), else undefined. */
  readonly skipped: string | undefined;
  /** Whether the type check ran. */
  readonly typeChecked: boolean;
}

// The key a contract problem is about: `unknown key "onFil"`, `"stoploss" is freqtrade's name`.
const KEY_RE = /(?:unknown key "([^"]+)"|"([^"]+)" is freqtrade's name)/;

/** Where `key:` or `key(` is written in a source text (1-based), if anywhere. */
function keyPlace(text: string, key: string): { line: number; col: number } | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(^|[\\s{,'"])(${escaped})['"]?\\s*[:(]`, 'm').exec(text);
  if (m === null) return undefined;
  const at = m.index + (m[1] ?? '').length;
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: (before.at(-1) ?? '').length + 1 };
}

/** The problems of a load failure: one per contract line, placed at the key it names when it names one. */
function loadProblems(file: string, err: StrategyLoadError): TypeProblem[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // unreadable: the load error already says so
  }
  const [head = '', ...items] = err.message.split('\n  - ');
  if (items.length === 0) return [{ file, line: 1, col: 1, message: err.message }];
  const context = head.replace(/^strategy module \S+ failed to load: /, '').replace(/:$/, '');
  return items.map((item) => {
    const m = KEY_RE.exec(item);
    const key = m?.[1] ?? m?.[2];
    const place = key === undefined ? undefined : keyPlace(text, key);
    return { file, line: place?.line ?? 1, col: place?.col ?? 1, message: `${item} (${context})` };
  });
}

/**
 * Checks a strategy module as `validate` does: type check (a .ts file, when TypeScript can be found), then
 * load and contract. Answers every problem found; none means the file is fine.
 */
export async function checkStrategyFile(
  path: string,
  cwd: string = process.cwd(),
): Promise<StrategyFileCheck> {
  const file = resolve(cwd, path);
  const problems: TypeProblem[] = [];
  let skipped: string | undefined;
  let typeChecked = false;
  if (extname(file) === '.ts') {
    const r = await typeCheckStrategyCached(file, { cwd });
    if (r.checked) {
      typeChecked = true;
      problems.push(...r.problems);
    } else skipped = r.why;
  }
  let name: string | undefined;
  try {
    name = (await loadStrategy(file, { cwd })).name;
  } catch (e) {
    if (!(e instanceof StrategyLoadError)) throw e;
    problems.push(...loadProblems(file, e));
  }
  problems.sort((a, b) => (a.file === b.file ? a.line - b.line || a.col - b.col : a.file < b.file ? -1 : 1));
  return { name, problems, skipped, typeChecked };
}

/**
 * The type problems of the user's .ts strategies a config file names (the bundled ones are checked with
 * the package): each resolved as the run would, each file once. A name that does not resolve is skipped:
 * the config's own strategy check says why.
 */
export async function strategyTypeProblems(
  refs: readonly string[],
  lookup: StrategyLookup,
): Promise<{ problems: TypeProblem[]; skipped: string | undefined }> {
  const problems: TypeProblem[] = [];
  const seen = new Set<string>();
  let skipped: string | undefined;
  for (const ref of refs) {
    let file: string;
    try {
      file = resolveStrategyFile(ref, lookup);
    } catch (e) {
      if (e instanceof StrategyLoadError) continue;
      throw e;
    }
    const rel = relative(PACKAGE_ROOT, file);
    const bundled = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
    if (extname(file) !== '.ts' || bundled || seen.has(file)) continue;
    seen.add(file);
    const r = await typeCheckStrategyCached(file, { cwd: lookup.cwd });
    if (r.checked) problems.push(...r.problems);
    else skipped = r.why;
  }
  return { problems, skipped };
}
