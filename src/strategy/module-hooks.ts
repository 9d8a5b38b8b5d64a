// What lets a user's strategy load from anywhere with the plain `node` that runs tradebot: a resolve hook
// that answers `import ... from 'tradebot'` with the running package (one copy of the contract, whatever
// the user's folder holds) and finds the package's own dependencies (zod, trading-signals) for a folder
// without node_modules; and tsx's TypeScript loader, registered only when a `.ts` strategy is loaded.
import { register as registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * Data the resolve hook is started with: the URL of the running package's entry (dist/src/index.js, or
 * src/index.ts under tsx). Bare specifiers the user's folder cannot resolve are tried from there too.
 */
interface HookData {
  readonly entry: string;
}

// The hook runs on Node's loader thread; a data: URL keeps it one self-contained module, the same from
// the sources and from the build.
// A `.ts` file outside any package with "type": "commonjs" is an ES module (a strategy is one): tsx alone
// would compile a loose file as CommonJS, which cannot import the ES module tradebot.
const RESOLVE_HOOK = `
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
let entry;
export async function initialize(data) { entry = data.entry; }
const bare = (s) => !/^(?:\\.{1,2}\\/|\\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(s) && s !== '.' && s !== '..';
const declaredCommonJs = (file) => {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try { return JSON.parse(readFileSync(pkg, 'utf8')).type === 'commonjs'; } catch { return false; }
    }
    if (dirname(dir) === dir) return false;
  }
};
const asModule = (r) =>
  r.url.startsWith('file:') && /\\.ts$/.test(new URL(r.url).pathname) && r.format !== 'module' &&
  !/node_modules/.test(r.url) && !declaredCommonJs(fileURLToPath(r.url))
    ? { ...r, format: 'module' }
    : r;
export async function resolve(specifier, context, next) {
  if (specifier === 'tradebot') return { url: entry, shortCircuit: true, format: 'module' };
  try {
    return asModule(await next(specifier, context));
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && bare(specifier) && context.parentURL !== entry)
      return next(specifier, { ...context, parentURL: entry });
    throw err;
  }
}
`;

let resolveHookOn = false;
let tsLoaderOn = false;

function registerResolveHook(data: HookData): void {
  registerHooks(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`, { data });
  resolveHookOn = true;
}

/**
 * Makes `import 'tradebot'` (and the package's dependencies) resolvable from a strategy outside the
 * package, once per thread; with `typescript`, also registers tsx so a `.ts` strategy loads. `entryFile`
 * is the running package's entry module.
 */
export async function ensureStrategyHooks(entryFile: string, typescript: boolean): Promise<void> {
  const data: HookData = { entry: pathToFileURL(entryFile).href };
  if (typescript && !tsLoaderOn) {
    const { register } = await import('tsx/esm/api');
    register();
    tsLoaderOn = true;
    // Hooks registered last run first: ours goes (again) on top of tsx, so `tradebot` is always the
    // running package, never a tsconfig path of the folder tradebot was started in.
    registerResolveHook(data);
    return;
  }
  if (!resolveHookOn) registerResolveHook(data);
}
