// ESLint rule of the house (DESIGN.md: "no import circles, even inside a folder"): a module of src/ must not be
// reachable from its own imports. The graph is read from the files on disk once per lint run (relative imports,
// type-only ones included: a circle of types is still two modules that cannot be understood apart).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const SPEC =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const edgesOf = new Map();

function resolveSpec(from, spec) {
  let p = resolve(dirname(from), spec);
  if (p.endsWith('.js')) p = `${p.slice(0, -3)}.ts`;
  for (const c of [p, `${p}.ts`, `${p}/index.ts`]) if (c.endsWith('.ts') && existsSync(c)) return c;
  return undefined;
}

function edges(file) {
  let e = edgesOf.get(file);
  if (e === undefined) {
    e = [];
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    for (const m of text.matchAll(SPEC)) {
      const to = resolveSpec(file, m[1] ?? m[2]);
      if (to !== undefined && !e.includes(to)) e.push(to);
    }
    edgesOf.set(file, e);
  }
  return e;
}

/** The shortest path from `file` back to itself, or undefined. */
function cycleThrough(file) {
  const prev = new Map();
  const queue = [];
  for (const n of edges(file)) {
    if (n === file) return [file, file];
    if (!prev.has(n)) {
      prev.set(n, file);
      queue.push(n);
    }
  }
  while (queue.length > 0) {
    const n = queue.shift();
    for (const m of edges(n)) {
      if (m === file) {
        const path = [file];
        for (let x = n; x !== file; x = prev.get(x)) path.unshift(x);
        return [file, ...path];
      }
      if (!prev.has(m)) {
        prev.set(m, n);
        queue.push(m);
      }
    }
  }
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'refuses an import circle between modules of src/' },
    schema: [],
    messages: {
      cycle:
        'import circle: {{path}}. Move what both sides need into a module below them (or into the lower of the two), so the imports point one way.',
    },
  },
  create(context) {
    return {
      Program(node) {
        const file = context.filename;
        const cycle = cycleThrough(file);
        if (cycle === undefined) return;
        const root = context.cwd;
        context.report({
          node,
          messageId: 'cycle',
          data: { path: cycle.map((f) => relative(root, f)).join(' -> ') },
        });
      },
    };
  },
};
