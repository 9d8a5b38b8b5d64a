// The type check `tradebot validate` runs on a .ts strategy: the file against this package's own types
// ('tradebot' resolved to the running package, as the loader resolves it at run time), with TypeScript
// when it can be found (a devDependency here; a user's install may not have it, and then says so).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as TS from 'typescript';
import type { SourcePlace } from './failure.js';
import { PACKAGE_ROOT } from './loader.js';

/** A type error in the strategy's file, at its place (1-based as editors count). */
export interface TypeProblem extends SourcePlace {
  readonly message: string;
}

export type TypeCheckResult =
  | { readonly checked: true; readonly problems: readonly TypeProblem[] }
  | { readonly checked: false; readonly why: string };

/** The sentence when TypeScript cannot be found. */
export const NO_TYPESCRIPT =
  'TypeScript not found: skipped the type check, install typescript to enable it (npm install --save-dev typescript)';

type TypeScript = typeof TS;

const here = dirname(fileURLToPath(import.meta.url));
/** What 'tradebot' is to the type checker: the sources under tsx, the declarations of the build. */
const PACKAGE_TYPES =
  extname(fileURLToPath(import.meta.url)) === '.ts'
    ? resolve(here, '..', 'index.ts')
    : resolve(here, '..', 'index.d.ts');

/** TypeScript as the user's project has it (from `cwd`), else as this package has it; undefined when neither. */
export function resolveTypeScript(cwd: string = process.cwd()): string | undefined {
  for (const from of [join(cwd, 'noop.js'), join(PACKAGE_ROOT, 'noop.js')]) {
    try {
      return createRequire(from).resolve('typescript');
    } catch {
      // not there: the next place
    }
  }
  return undefined;
}

const inside = (file: string, folder: string): boolean => {
  const rel = relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * Type-checks a strategy module (a .ts file) against this package's types; answers its problems (those in
 * the strategy's own files, not in the package or node_modules), or why it was not checked.
 *
 * @example const r = await typeCheckStrategy('strategies/mine.ts'); if (r.checked) r.problems.forEach(...)
 */
export async function typeCheckStrategy(
  file: string,
  o: {
    readonly cwd?: string | undefined;
    /** Where TypeScript is (default `resolveTypeScript`); undefined from it: none. */
    readonly findTypeScript?: (() => string | undefined) | undefined;
  } = {},
): Promise<TypeCheckResult> {
  const at = (o.findTypeScript ?? (() => resolveTypeScript(o.cwd)))();
  if (at === undefined) return { checked: false, why: NO_TYPESCRIPT };
  const mod = (await import(pathToFileURL(at).href)) as TypeScript & { default?: TypeScript };
  const ts = mod.default ?? mod;
  const modules = join(PACKAGE_ROOT, 'node_modules');
  const program = ts.createProgram([resolve(file)], {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    allowImportingTsExtensions: true,
    types: existsSync(join(modules, '@types', 'node')) ? ['node'] : [],
    typeRoots: [join(modules, '@types')],
    // 'tradebot' is this package; its dependencies (trading-signals, rxjs ...) are found in its node_modules,
    // as the loader finds them for a strategy folder that has none.
    paths: { tradebot: [PACKAGE_TYPES], '*': [join(modules, '*'), join(modules, '@types', '*')] },
  });
  const own = (f: string) =>
    !inside(f, PACKAGE_ROOT) ||
    inside(f, join(PACKAGE_ROOT, 'strategies')) ||
    inside(f, join(PACKAGE_ROOT, 'test'));
  const problems: TypeProblem[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (d.category !== ts.DiagnosticCategory.Error) continue;
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    // A problem of no file is the set-up's (a missing @types package), not the strategy's.
    if (d.file === undefined || d.start === undefined) continue;
    if (!own(d.file.fileName) || inside(d.file.fileName, modules)) continue;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    problems.push({ file: resolve(d.file.fileName), line: line + 1, col: character + 1, message });
  }
  return { checked: true, problems };
}
