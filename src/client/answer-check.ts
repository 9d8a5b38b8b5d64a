// A response schema compiled to one plain function: zod's parse costs a third of JSON.parse on a large answer
// (it checks and copies every object), this checks the same rules on the parsed JSON in place, with each
// field read by its name as straight-line code (as zod's own JIT does). It is derived from the one schema,
// never written by hand, and only for the zod nodes whose rules it knows exactly; a schema with anything
// else (a transform, a default, a stripping object ...) has no check. It only ever says "valid as is": the
// caller runs the zod schema whenever it says no, and zod's verdict and error are the ones that count.
import type { z } from 'zod';

/** True only when zod would accept the value and its output would equal the value itself. */
export type AnswerCheck = (v: unknown) => boolean;

/** The part of a zod 4 schema's definition this reads (zod's `_zod.def`, which it keeps for libraries). */
interface Def {
  readonly type: string;
  readonly checks?: readonly { readonly _zod: { readonly def: Record<string, unknown> } }[];
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
  readonly element?: z.ZodType;
  readonly items?: readonly z.ZodType[];
  readonly rest?: z.ZodType | null;
  readonly innerType?: z.ZodType;
  readonly entries?: Readonly<Record<string, unknown>>;
  readonly values?: readonly unknown[];
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Whether the definition holds only the keys listed: anything more is a rule this does not know. */
const only = (d: object, keys: readonly string[]): boolean => Object.keys(d).every((k) => keys.includes(k));

/** The code being written: its lines, fresh names, and the values it reads from outside (`ext[i]`). */
class Code {
  readonly lines: string[] = [];
  readonly ext: unknown[] = [];
  private names = 0;
  name(prefix: string): string {
    return `${prefix}${this.names++}`;
  }
  external(value: unknown): string {
    this.ext.push(value);
    return `ext[${this.ext.length - 1}]`;
  }
  fail(condition: string): void {
    this.lines.push(`if (${condition}) return false;`);
  }
}

/** Writes the checks of a string's rules (a regex, a synchronous refine); false for a rule of another kind. */
function stringRules(d: Def, v: string, code: Code): boolean {
  if (!only(d, ['type', 'checks'])) return false;
  code.fail(`typeof ${v} !== 'string'`);
  for (const c of d.checks ?? []) {
    const cd = c._zod.def;
    if (cd.check === 'string_format' && cd.format === 'regex' && only(cd, ['check', 'format', 'pattern'])) {
      const pattern = cd.pattern as RegExp;
      const test = code.external((s: string) => {
        pattern.lastIndex = 0;
        return pattern.test(s);
      });
      code.fail(`!${test}(${v})`);
    } else if (cd.check === 'custom' && only(cd, ['type', 'check', 'fn'])) {
      // Run as zod runs it, side effects included (the open enums note new values); an async refine answers
      // a promise, never `true`, so it reads as a no and zod gives the verdict.
      code.fail(`${code.external(cd.fn)}(${v}) !== true`);
    } else return false;
  }
  return true;
}

/** Writes the checks of a loose object (its own fields checked, every other key kept); false if it is not one. */
function objectRules(d: Def, v: string, code: Code): boolean {
  const catchall = d.catchall === undefined ? undefined : defOf(d.catchall);
  if (!only(d, ['type', 'shape', 'catchall']) || catchall?.type !== 'unknown' || !only(catchall, ['type']))
    return false;
  // zod leaves an own __proto__ key out of its output, so such an object is not "valid as is": an own
  // __proto__ data property shadows the accessor, so the prototype read differs.
  code.fail(
    `typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v}) || ${v}.__proto__ !== ${code.external(Object.prototype)}`,
  );
  for (const [key, schema] of Object.entries(d.shape ?? {})) {
    if (key === '__proto__') return false;
    const sd = defOf(schema);
    const field = code.name('f');
    code.lines.push(`const ${field} = ${v}[${JSON.stringify(key)}];`);
    if (sd.type === 'optional') {
      // An absent optional key is valid, and absent from zod's output too; a present one is checked.
      if (!only(sd, ['type', 'innerType'])) return false;
      code.lines.push(`if (${field} !== undefined) {`);
      if (!rules(sd.innerType as z.ZodType, field, code)) return false;
      code.lines.push('}');
    } else if (!rules(schema, field, code)) return false;
  }
  return true;
}

/** Writes the checks of a schema on the value named `v`; false when the schema has a node this does not know. */
function rules(schema: z.ZodType, v: string, code: Code): boolean {
  const d = defOf(schema);
  switch (d.type) {
    case 'string':
      return stringRules(d, v, code);
    case 'boolean':
      code.fail(`typeof ${v} !== 'boolean'`);
      return only(d, ['type']);
    case 'number':
      code.fail(`typeof ${v} !== 'number' || !Number.isFinite(${v})`);
      return only(d, ['type', 'checks']) && (d.checks ?? []).length === 0;
    case 'enum': {
      const values = Object.values(d.entries ?? {});
      // A numeric enum maps names both ways and zod reads it so; only string values are read here.
      code.fail(`!${code.external(new Set(values))}.has(${v})`);
      return only(d, ['type', 'entries']) && values.every((e) => typeof e === 'string');
    }
    case 'literal':
      code.fail(`!${code.external(new Set(d.values))}.has(${v})`);
      return only(d, ['type', 'values']);
    case 'object':
      return objectRules(d, v, code);
    case 'array': {
      if (!only(d, ['type', 'element'])) return false;
      const [i, e] = [code.name('i'), code.name('e')];
      code.fail(`!Array.isArray(${v})`);
      code.lines.push(`for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {`, `const ${e} = ${v}[${i}];`);
      if (!rules(d.element as z.ZodType, e, code)) return false;
      code.lines.push('}');
      return true;
    }
    case 'tuple': {
      const items = d.items ?? [];
      if (!only(d, ['type', 'items', 'rest']) || (d.rest !== null && d.rest !== undefined)) return false;
      code.fail(`!Array.isArray(${v}) || ${v}.length !== ${items.length}`);
      return items.every((item, k) => {
        const e = code.name('t');
        code.lines.push(`const ${e} = ${v}[${k}];`);
        return defOf(item).type !== 'optional' && rules(item, e, code);
      });
    }
    default:
      return false;
  }
}

/** The compiled check of a schema, or undefined when the schema has a node this does not know exactly. */
export function compileAnswerCheck(schema: z.ZodType): AnswerCheck | undefined {
  const code = new Code();
  if (!rules(schema, 'v', code)) return undefined;
  try {
    // The code is written above from the schema's own keys (JSON-quoted), never from an answer.
    const make = new Function('ext', `return (v) => {\n${code.lines.join('\n')}\nreturn true;\n};`);
    return make(code.ext) as AnswerCheck;
  } catch {
    // A host that refuses code from strings (--disallow-code-generation-from-strings): zod reads every answer.
    return undefined;
  }
}
