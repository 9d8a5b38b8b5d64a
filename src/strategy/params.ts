// Strategy parameters: the schema rules every strategy obeys (a default and a description per parameter),
// a decimal-string parameter for money, and the boundary parser that turns raw config into typed params
// with messages naming the parameter and the fix.
import { z } from 'zod';
import { DECIMAL_RE, SIGNED_DECIMAL_RE } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { didYouMean, plainIssue } from '../market/spelling.js';

/** The parameter schema of a strategy: a zod object whose every field has a default and a `.describe()`. */
export type ParamsSchema = z.ZodObject<z.ZodRawShape>;

/** What a parameter looks like to a human: for docs, `--help` and error messages. */
export interface ParamInfo {
  readonly name: string;
  readonly description: string | undefined;
  /** The default as a config file would spell it (input side), undefined when there is none. */
  readonly default: unknown;
  readonly hasDefault: boolean;
}

interface ZodDefLike {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly defaultValue?: unknown;
}

const defOf = (s: z.ZodType): ZodDefLike => (s as unknown as { def: ZodDefLike }).def;

/** Walks the wrappers of one field (default, optional, pipe ...) for its description and default. */
export function paramInfo(name: string, field: z.ZodType): ParamInfo {
  let description: string | undefined;
  let hasDefault = false;
  let dflt: unknown;
  let node: z.ZodType | undefined = field;
  for (let depth = 0; node !== undefined && depth < 20; depth++) {
    description ??= node.description;
    const def = defOf(node);
    if ((def.type === 'default' || def.type === 'prefault') && !hasDefault) {
      hasDefault = true;
      dflt = def.defaultValue;
    }
    node = def.type === 'pipe' ? def.in : def.innerType;
  }
  return { name, description, default: dflt, hasDefault };
}

/** The parameters of a schema, in declaration order. */
export function describeParams(schema: ParamsSchema): ParamInfo[] {
  return Object.entries(schema.shape).map(([name, field]) => paramInfo(name, field as z.ZodType));
}

/**
 * The parameters a run uses, as a config file spells them: each parameter of the schema, in its order,
 * from `raw` or else its default ({} for ma-crossover reads { fast: 12, slow: 26, quoteAmount: "100", ... }).
 */
export function effectiveParams(
  schema: ParamsSchema,
  raw: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of describeParams(schema)) {
    if (p.name in raw) out[p.name] = raw[p.name];
    else if (p.hasDefault) out[p.name] = p.default;
  }
  return out;
}

/** The parameters of `params` named in `keys` (all of them without keys), in the order of `params`. */
export function pickParams(
  params: Record<string, unknown>,
  keys?: readonly string[],
): Record<string, unknown> {
  return keys === undefined
    ? params
    : Object.fromEntries(Object.entries(params).filter(([k]) => keys.includes(k)));
}

/**
 * Checks that a params schema follows the contract: a zod object whose every parameter has a default
 * and a description. Returns the list of problems (empty when fine).
 */
export function paramsSchemaProblems(schema: unknown): string[] {
  const s = schema as { shape?: unknown; safeParse?: unknown } | null;
  if (
    typeof s !== 'object' ||
    s === null ||
    typeof s.safeParse !== 'function' ||
    typeof s.shape !== 'object'
  ) {
    return [
      'params must be a zod object schema, e.g. z.object({ period: z.number().int().default(14).describe("...") })',
    ];
  }
  const problems: string[] = [];
  for (const p of describeParams(s as ParamsSchema)) {
    if (!p.hasDefault) problems.push(`parameter "${p.name}" has no default: add .default(...)`);
    if (p.description === undefined || p.description.trim() === '') {
      problems.push(`parameter "${p.name}" has no description: add .describe("what it does, its unit")`);
    }
  }
  return problems;
}

/**
 * A money parameter: a decimal string in config (never a JS number, which would lose precision), a
 * `Decimal` in the strategy. Refuses zero and negatives unless `allowZero`.
 *
 * @example quoteAmount: decimalParam('100', 'quote coin spent per entry, e.g. "100" USDT')
 */
export function decimalParam(defaultValue: string, description: string, opts: { allowZero?: boolean } = {}) {
  if (!DECIMAL_RE.test(defaultValue))
    throw new TypeError(`decimalParam default must be a decimal string, got ${defaultValue}`);
  // A YAML number is refused with the quoted spelling to write instead; a sign with "above zero".
  const wrong = (input: unknown): string =>
    typeof input === 'number' || typeof input === 'bigint'
      ? `must be a decimal string, got the number ${String(input)}: quote it as "${String(input)}" so it stays exact`
      : typeof input === 'string' && input.trim().startsWith('-')
        ? `must be above zero, got ${JSON.stringify(input)}`
        : `must be a decimal string such as "${defaultValue}", got ${JSON.stringify(input)}`;
  return (
    z
      .string({ error: (iss) => wrong(iss.input) })
      .trim()
      .regex(DECIMAL_RE, { error: (iss) => wrong(iss.input) })
      // The regex issue already covers a malformed string; only a well-formed one is compared to zero.
      .refine((s) => !DECIMAL_RE.test(s) || opts.allowZero === true || new Decimal(s).gt(0), {
        error: 'must be above zero',
      })
      .default(defaultValue)
      .describe(description)
      .transform((s) => new Decimal(s))
  );
}

/** Thrown by `parseStrategyParams`: every problem, each naming the parameter and the fix. */
export class StrategyParamsError extends Error {
  override readonly name = 'StrategyParamsError';
  constructor(
    readonly strategy: string,
    readonly problems: readonly string[],
  ) {
    super(`invalid parameters for strategy "${strategy}":\n  - ${problems.join('\n  - ')}`);
  }
}

function hint(info: ParamInfo | undefined): string {
  if (info === undefined) return '';
  const parts: string[] = [];
  if (info.description !== undefined) parts.push(info.description);
  if (info.hasDefault) parts.push(`default ${JSON.stringify(info.default)}`);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

/**
 * The fix for a number written in quotes ("14" for a whole-number parameter): the parameter takes the
 * number, and the same file must mean the same thing to validate, backtest, sweep and run, so it is
 * refused everywhere, never read as 14 in one command and refused in another.
 */
function quotedNumberFix(field: z.ZodType | undefined, got: unknown): string {
  if (field === undefined || typeof got !== 'string' || !SIGNED_DECIMAL_RE.test(got.trim())) return '';
  return field.safeParse(Number(got)).success ? `: write ${got.trim()} without quotes` : '';
}

/**
 * Applies the defaults of a strategy's parameter schema to raw parameters (from YAML, a CLI flag, a
 * sweep) and returns the typed params; the one reader of parameters, for validate, backtest, sweep and run
 * alike (values are taken as typed: "14" is no number); refuses unknown parameters and invalid values with a
 * `StrategyParamsError` whose lines name the parameter, what is wrong and what it should be.
 *
 * @example parseStrategyParams(maCrossover, { fast: 5, slow: 20 }) // -> { fast: 5, slow: 20, quoteAmount: Decimal(100) }
 */
export function parseStrategyParams<S extends ParamsSchema>(
  strategy: { readonly name: string; readonly params: S },
  raw: unknown,
): z.output<S> {
  const schema = strategy.params;
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw new StrategyParamsError(strategy.name, [
      `params must be a mapping of parameter names to values, got ${Array.isArray(raw) ? 'a list' : JSON.stringify(raw)}`,
    ]);
  }
  const input = (raw ?? {}) as Record<string, unknown>;
  const infos = new Map(describeParams(schema).map((p) => [p.name, p]));
  const known = [...infos.keys()];
  const problems: string[] = [];
  for (const key of Object.keys(input)) {
    if (infos.has(key)) continue;
    problems.push(
      `unknown parameter "${key}"${didYouMean(key, known)}; known parameters: ${known.join(', ') || '(none)'}`,
    );
  }
  // Unknown keys are reported above; parse the known ones so every problem shows at once.
  const known_input: Record<string, unknown> = {};
  for (const key of known) if (key in input) known_input[key] = input[key];
  const result = schema.safeParse(known_input, { error: plainIssue });
  if (!result.success) {
    for (const issue of result.error.issues) {
      const name = issue.path.map(String).join('.');
      const info = infos.get(String(issue.path[0]));
      const got =
        issue.path.length > 0 && issue.path[0] !== undefined ? input[String(issue.path[0])] : undefined;
      const gotText =
        issue.message.includes('got ') || got === undefined ? '' : ` — got ${JSON.stringify(got)}`;
      const field = schema.shape[String(issue.path[0])] as z.ZodType | undefined;
      problems.push(
        `parameter "${name || '(params)'}": ${issue.message}${gotText}${quotedNumberFix(field, got)}${hint(info)}`,
      );
    }
  }
  if (problems.length > 0) throw new StrategyParamsError(strategy.name, problems);
  return (result as { data: z.output<S> }).data;
}
