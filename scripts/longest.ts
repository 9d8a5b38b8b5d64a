// `npm run longest`: the longest files and functions of src/, against the house limits (a file of at most 600
// lines, a function of at most 80). It exits 1 when one is over and not listed in ALLOWED with the reason it reads
// better whole, so `npm test` keeps the limits. `--top N` prints the N longest of each (default 10).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 600;
export const MAX_FUNCTION_LINES = 80;

/**
 * Over the limit on purpose: `file` or `file#function`, with why it reads better whole. Keep this short; a
 * reviewer reads every line of it.
 */
export const ALLOWED: Readonly<Record<string, string>> = {};

export interface Measured {
  readonly where: string;
  readonly lines: number;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText(sf);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
  return `(anonymous at line ${line + 1})`;
}

/** Every function-like node of a file with its length in lines (a nested function counts in its parent too). */
export function measureFile(path: string, root: string): { file: Measured; functions: Measured[] } {
  const text = readFileSync(path, 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const rel = relative(root, path);
  const functions: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body !== undefined) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      functions.push({ where: `${rel}#${nameOf(node, sf)}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  return { file: { where: rel, lines }, functions };
}

export function measure(root: string): { files: Measured[]; functions: Measured[] } {
  const files: Measured[] = [];
  const functions: Measured[] = [];
  for (const p of sources(join(root, 'src'))) {
    const m = measureFile(p, root);
    files.push(m.file);
    functions.push(...m.functions);
  }
  const longestFirst = (a: Measured, b: Measured) => b.lines - a.lines || a.where.localeCompare(b.where);
  return { files: files.sort(longestFirst), functions: functions.sort(longestFirst) };
}

function main(): void {
  const i = process.argv.indexOf('--top');
  const top = i >= 0 ? Number(process.argv[i + 1]) : 10;
  if (!Number.isInteger(top) || top < 1) {
    process.stderr.write('--top: give a whole number of at least 1, e.g. --top 20\n');
    process.exit(2);
  }
  const { files, functions } = measure(process.cwd());
  const show = (title: string, xs: readonly Measured[], max: number) => {
    process.stdout.write(`${title} (limit ${max} lines)\n`);
    for (const m of xs.slice(0, top))
      process.stdout.write(
        `  ${String(m.lines).padStart(5)}  ${m.where}${m.lines > max ? (ALLOWED[m.where] ? '  (allowed)' : '  OVER') : ''}\n`,
      );
  };
  show('longest files of src/', files, MAX_FILE_LINES);
  show('longest functions of src/', functions, MAX_FUNCTION_LINES);
  const over = [
    ...files.filter((m) => m.lines > MAX_FILE_LINES),
    ...functions.filter((m) => m.lines > MAX_FUNCTION_LINES),
  ].filter((m) => ALLOWED[m.where] === undefined);
  if (over.length > 0) {
    process.stdout.write(
      `${over.length} over the limits: split them along their seams, or add them to ALLOWED in scripts/longest.ts with the reason they read better whole\n`,
    );
    process.exit(1);
  }
  process.stdout.write('every file and function of src/ is within the limits\n');
}

if (import.meta.url === `file://${process.argv[1]}`) main();
