// Every whole strategy in docs/ (a ```ts block with an import and `export default defineStrategy(` or
// `createStrategy(`) is code a user copies: it imports from 'tradebot' (never a path into src/), type-checks
// against the package's published types (dist/, as a user's editor sees them: run `npm run build` first), and
// backtests through the built command on a synthetic dataset.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const repo = join(import.meta.dirname, '..', '..');
const docs = join(repo, 'docs');

interface Example {
  /** Where the block opens, as `docs/x.md:LINE` (its first code line is LINE + 1). */
  readonly where: string;
  readonly line: number;
  readonly name: string;
  readonly code: string;
}

/** The ```ts blocks of the docs that hold a whole strategy module. */
function examples(): Example[] {
  const out: Example[] = [];
  for (const file of readdirSync(docs).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(docs, file), 'utf8');
    for (const m of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      const code = m[1] as string;
      if (!/^import /m.test(code) || !/export default (define|create)Strategy\(/.test(code)) continue;
      const line = text.slice(0, m.index).split('\n').length;
      const name = /name: '([a-z0-9-]+)'/.exec(code)?.[1];
      expect(name, `docs/${file}:${line}: a strategy example names itself`).toBeDefined();
      out.push({ where: `docs/${file}:${line}`, line, name: name as string, code });
    }
  }
  return out;
}

const found = examples();
const home = mkdtempSync(join(tmpdir(), 'tradebot-docs-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/**
 * A project beside nothing: its node_modules holds tradebot (the package itself, so 'tradebot' resolves through
 * its package.json exports to dist/) and tradebot's dependencies, as `npm install tradebot` would lay them out.
 */
function project(): string {
  const dir = join(home, 'project');
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'my-bots', private: true, type: 'module' }),
  );
  symlinkSync(repo, join(dir, 'node_modules', 'tradebot'));
  const deps = join(repo, 'node_modules');
  for (const d of readdirSync(deps))
    if (d !== 'tradebot') symlinkSync(join(deps, d), join(dir, 'node_modules', d));
  return dir;
}

describe('the strategies in docs/', () => {
  const dir = project();
  const files = found.map((e) => {
    const f = join(dir, `${e.name}.ts`);
    writeFileSync(f, e.code);
    return f;
  });

  it('are found (every doc with a whole strategy example)', () => {
    expect(found.length).toBeGreaterThanOrEqual(8);
    expect(new Set(found.map((e) => e.name)).size).toBe(found.length);
  });

  it.each(found)('$where ($name) imports from tradebot, never a path into the sources', (e) => {
    const from = [...e.code.matchAll(/from '([^']+)'/g)].map((m) => m[1] as string);
    expect(from.filter((p) => p.startsWith('.') || p.includes('/src/'))).toEqual([]);
    expect(from).toContain('tradebot');
  });

  it('type-check against the package types with the house compiler options', () => {
    const config = ts.readConfigFile(join(repo, 'tsconfig.json'), (f) => ts.sys.readFile(f));
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repo);
    // The package as a user's project resolves it (no path into src/), nothing emitted.
    const { paths: _paths, ...own } = options;
    const program = ts.createProgram(files, {
      ...own,
      noEmit: true,
      rootDir: dir,
      typeRoots: [join(dir, 'node_modules', '@types')],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (d.file === undefined || d.start === undefined) return text;
      const ex = found[files.indexOf(d.file.fileName)];
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return ex === undefined
        ? `${d.file.fileName}:${line + 1}: ${text}`
        : `${ex.where.replace(/:\d+$/, '')}:${ex.line + 1 + line}: ${text}`;
    });
    expect(problems).toEqual([]);
  }, 120_000);

  it.each(found.map((e, i) => [e.where, e.name, files[i] as string, e.code]))(
    '%s (%s) backtests through the built command',
    async (_where, name, file, code) => {
      const r = await runCli([
        'backtest',
        '--dataset',
        'synthetic-1m:3:3000',
        '--strategy',
        file,
        '--name',
        name,
        '--out',
        join(home, 'results'),
      ]);
      expect(r.code, r.stderr).toBe(0);
      const result = JSON.parse(readFileSync(join(home, 'results', name, 'result.json'), 'utf8')) as {
        meta: { strategy: string; candles: number };
        plots?: Record<string, Record<string, { value: (string | null)[] }>>;
      };
      expect(result.meta.strategy).toBe(name);
      expect(result.meta.candles).toBeGreaterThan(0);
      // An example that plots has its series in result.json, with values.
      if (code.includes('ctx.plot('))
        for (const series of Object.values(result.plots ?? { none: {} }))
          expect(Object.values(series).some((s) => s.value.some((v) => v !== null))).toBe(true);
    },
    60_000,
  );
});
