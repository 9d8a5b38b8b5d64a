// A sweep's grid checked against the strategy's parameter schema before any run starts: a value no run
// could use (`fast=abc`, `fast=-1`, an unknown name) ends the command with a sentence naming the parameter
// and its rule, instead of a table of "error" rows. Combinations that break a rule across parameters
// (`fast=50 slow=20` where slow must be above fast) are skipped and listed; a grid with none left is refused.
// A key may also set one of the strategy's exits or protections (`exits.stopLoss=0.02..0.06:0.01`,
// `protections.cooldownAfterStop=2,5`): checked against their schema, and run as the job's exits/protections.
import type { z } from 'zod';
import { didYouMean, plainIssue } from '../market/spelling.js';
import type { Strategy } from '../strategy/contract.js';
import { describeParams, parseStrategyParams, StrategyParamsError } from '../strategy/params.js';
import { coerceParams, type BacktestJob } from '../backtest/run-config.js';
import { ExitRulesYamlSchema, mergeRules, ProtectionsYamlSchema, rulesAsData } from '../strategy/exits.js';

export type Grid = Readonly<Record<string, readonly (number | string | boolean)[]>>;

/**
 * Input a backtest, sweep or walk-forward cannot use (a grid, a range, a window length): the CLI prints
 * the sentence and exits 2, as for any invalid input.
 */
export class BacktestInputError extends Error {
  override readonly name: string = 'BacktestInputError';
}

/** A grid that cannot be run. */
export class GridError extends BacktestInputError {
  override readonly name = 'GridError';
}

export interface CheckedGrid {
  /** The parameter sets to run, in the grid's order, typed as the strategy takes them (numbers as numbers). */
  readonly sets: Record<string, unknown>[];
  /** Combinations refused by a rule across parameters, with the strategy's sentence. */
  readonly skipped: readonly { readonly params: Record<string, unknown>; readonly reason: string }[];
  /**
   * The job's exits and protections, with the strategy's declared object added where a grid key sets one of
   * its fields (`exits.trailingStop.activation` keeps the declared distance): what `jobWithSet` builds on.
   */
  readonly rules: JobRules;
}

/** A job's exits and protections, as plain data (decimal strings). */
export type JobRules = Pick<BacktestJob, 'exits' | 'protections'>;

/** The roots of the grid keys that set an exit or a protection, and the plain-data schema each is checked by. */
const RULE_ROOTS = { exits: ExitRulesYamlSchema, protections: ProtectionsYamlSchema } as const;
type RuleRoot = keyof typeof RULE_ROOTS;

/** Whether a grid key sets an exit or a protection (`exits.stopLoss`) rather than a parameter. */
export const isRuleKey = (key: string): boolean => /^(exits|protections)\./.test(key);

type Def = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (x: z.ZodType | undefined): Def | undefined =>
  (x as unknown as { _zod?: { def?: Def } } | undefined)?._zod?.def;
const unwrap = (x: z.ZodType | undefined): Def | undefined => {
  let d = defOf(x);
  while (d?.type === 'optional' || d?.type === 'default') d = defOf(d.innerType);
  return d;
};

/** Every grid key that sets an exit or a protection: `exits.stopLoss`, `exits.minimalRoi.<minutes>`, ... */
export function ruleKeys(): string[] {
  const out: string[] = [];
  const walk = (prefix: string, x: z.ZodType | undefined): void => {
    const d = unwrap(x);
    if (d?.type === 'object') for (const [k, v] of Object.entries(d.shape ?? {})) walk(`${prefix}.${k}`, v);
    else out.push(d?.type === 'record' ? `${prefix}.<minutes>` : prefix);
  };
  for (const [root, schema] of Object.entries(RULE_ROOTS)) walk(root, schema);
  return out;
}

/** The rule key a grid key names (`exits.minimalRoi.60` is `exits.minimalRoi.<minutes>`), or undefined. */
const ruleKeyOf = (key: string): string | undefined => {
  const general = key.replace(/^(exits\.minimalRoi)\.\d+$/, '$1.<minutes>');
  return ruleKeys().includes(general) ? general : undefined;
};

/** `rules` with `value` at `key` (`exits.trailingStop.distance`), copied along the path; the rest shared. */
function setRule(rules: JobRules, key: string, value: unknown): JobRules {
  const [root, ...path] = key.split('.') as [RuleRoot, ...string[]];
  const put = (o: unknown, [k, ...rest]: string[]): Record<string, unknown> => ({
    ...(o as Record<string, unknown> | undefined),
    [k as string]:
      rest.length === 0 ? value : put((o as Record<string, unknown> | undefined)?.[k as string], rest),
  });
  return { ...rules, [root]: put(rules[root], path) };
}

/** `rules` with the set's `exits.` and `protections.` keys set. */
const withRules = (rules: JobRules, set: Record<string, unknown>): JobRules =>
  Object.entries(set).reduce((r, [k, v]) => (isRuleKey(k) ? setRule(r, k, v) : r), rules);

/**
 * The job of one grid set: its parameters over the base ones, and its `exits.` / `protections.` keys set in
 * the job's exits and protections (the base's, as `checkGrid` filled them in `rules`).
 */
export function jobWithSet(base: BacktestJob, set: Record<string, unknown>): BacktestJob {
  const rules = withRules({ exits: base.exits, protections: base.protections }, set);
  const params: Record<string, unknown> = { ...base.params };
  for (const [k, v] of Object.entries(set)) if (!isRuleKey(k)) params[k] = v;
  return {
    ...base,
    params,
    ...(rules.exits !== undefined ? { exits: rules.exits } : {}),
    ...(rules.protections !== undefined ? { protections: rules.protections } : {}),
  };
}

/**
 * The job's rules over the strategy's declaration, by the one rule of mergeRules (src/strategy/exits.ts): what
 * a grid's keys are set in and checked against, so `exits.trailingStop.distance` keeps the declared activation
 * and `protections.maxDrawdown.lockCandles` the declared ratio. A grid without such keys leaves the job's as is.
 */
function rulesFor(strategy: Strategy, job: JobRules, keys: readonly string[]): JobRules {
  if (keys.length === 0) return job;
  const exits = mergeRules(rulesAsData(strategy.exits) as JobRules['exits'], job.exits);
  const protections = mergeRules(
    rulesAsData(strategy.protections) as JobRules['protections'],
    job.protections,
  );
  return {
    ...(Object.keys(exits).length > 0 ? { exits } : {}),
    ...(Object.keys(protections).length > 0 ? { protections } : {}),
  };
}

/**
 * The value of a rule key as its schema takes it (a decimal string, a whole number, true/false), or the
 * schema's sentence for that field: checked inside its whole exit or protection, the grid's other keys of it at
 * their first value (`maxDrawdown.ratio` with the grid's `maxDrawdown.lockCandles`), over the job's rules.
 */
function ruleValue(
  rules: JobRules,
  key: string,
  v: unknown,
  grid: Grid,
): { value: unknown } | { problem: string } {
  const [root, ...path] = key.split('.') as [RuleRoot, ...string[]];
  let base = rules;
  for (const [k, values] of Object.entries(grid))
    if (k !== key && isRuleKey(k) && ruleKeyOf(k) !== undefined && values.length > 0)
      base = setRule(base, k, typedGuess(values[0]));
  const tries: unknown[] = [v];
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) tries.push(Number(v));
  if (v === 'true' || v === 'false') tries.unshift(v === 'true');
  const problems: { problem: string; typeOnly: boolean }[] = [];
  const mine = (i: z.core.$ZodIssue) => i.path.join('.') === path.join('.');
  for (const t of tries) {
    const r = RULE_ROOTS[root].safeParse(setRule(base, key, t)[root], { error: plainIssue });
    const issues = r.success ? [] : r.error.issues.filter(mine);
    if (issues.length === 0) return { value: t };
    problems.push({
      problem: issues.map((i) => `${[root, ...i.path].join('.')}: ${i.message}`).join('; '),
      typeOnly: issues.every((i) => i.code === 'invalid_type'),
    });
  }
  // The rule the value broke (a whole number, 0 or more), not "must be a string" from the other reading of it.
  return problems.find((p) => !p.typeOnly) ?? (problems[0] as { problem: string });
}

/** A grid value as a rule most likely takes it: a whole number as a number, true/false as booleans. */
const typedGuess = (v: unknown): unknown =>
  typeof v === 'string' && /^-?\d+$/.test(v.trim())
    ? Number(v)
    : v === 'true' || v === 'false'
      ? v === 'true'
      : v;

const show = (k: string, v: unknown) => `${k}=${String(v)}`;

/** The first problem of a StrategyParamsError, or the message of anything else. */
const reasonOf = (e: unknown): string =>
  e instanceof StrategyParamsError ? e.problems.join('; ') : e instanceof Error ? e.message : String(e);

/**
 * Checks `grid` for `strategy` with the run's other parameters `base`: every name a parameter of the
 * strategy, every value valid for its parameter on its own (after the same string-to-number coercion the
 * runs use), then every combination as a whole.
 *
 * @example checkGrid(maCrossover, { quoteAmount: '100' }, { fast: ['10', 'abc'] }) // throws GridError naming fast=abc
 */
export function checkGrid(
  strategy: Strategy,
  base: Record<string, unknown>,
  grid: Grid,
  job: JobRules = {},
): CheckedGrid {
  const problems: string[] = [];
  const rules = rulesFor(
    strategy,
    job,
    Object.keys(grid).filter((k) => ruleKeyOf(k) !== undefined),
  );
  /** Rule values as their schema takes them, by key and value as written. */
  const typed = new Map<string, unknown>();
  for (const [name, values] of Object.entries(grid))
    problems.push(
      ...(isRuleKey(name)
        ? checkRuleValues(rules, name, values, typed, grid)
        : checkParamValues(strategy, name, values)),
    );
  if (problems.length > 0)
    throw new GridError(`the grid does not fit ${strategy.name}:\n  - ${problems.join('\n  - ')}`);

  let combos: Record<string, unknown>[] = [{}];
  for (const [k, values] of Object.entries(grid))
    combos = combos.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  const sets: Record<string, unknown>[] = [];
  const skipped: { params: Record<string, unknown>; reason: string }[] = [];
  for (const combo of combos) {
    // Typed as the runs use them ("20" -> 20 for a number parameter): the tables, the JSON files and the
    // walk-forward's "best" show what ran.
    const set = Object.fromEntries(
      Object.entries(coerceParams(strategy, combo)).map(([k, v]) => [
        k,
        isRuleKey(k) ? typed.get(`${k}\0${String(v)}`) : v,
      ]),
    );
    const params = Object.fromEntries(Object.entries(set).filter(([k]) => !isRuleKey(k)));
    try {
      parseStrategyParams(strategy, { ...base, ...params });
      const r = ruleProblem(withRules(rules, set));
      if (r !== undefined) throw new Error(r);
      sets.push(set);
    } catch (e) {
      skipped.push({ params: set, reason: reasonOf(e) });
    }
  }
  if (sets.length === 0) {
    const first = skipped[0];
    throw new GridError(
      `no combination of the grid is valid for ${strategy.name}${
        first
          ? `: ${Object.entries(first.params)
              .map(([k, v]) => show(k, v))
              .join(' ')}: ${first.reason}`
          : ''
      }`,
    );
  }
  return { sets, skipped, rules };
}

/** The problems of one parameter's values: an unknown name (with a did-you-mean), a value its rule refuses. */
function checkParamValues(strategy: Strategy, name: string, values: readonly unknown[]): string[] {
  const infos = new Map(describeParams(strategy.params).map((p) => [p.name, p]));
  const info = infos.get(name);
  const field = (strategy.params.shape as Record<string, z.ZodType>)[name];
  if (info === undefined || field === undefined)
    return [
      `"${name}" is not a parameter of ${strategy.name}${didYouMean(name, [...infos.keys(), ...ruleKeys()])}; its parameters are ${[...infos.keys()].join(', ') || '(none)'}, and exits and protections are set with exits.NAME or protections.NAME (e.g. exits.stopLoss=0.02..0.06:0.01)`,
    ];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(String(v))) problems.push(`${show(name, v)} is listed twice; give each value once`);
    seen.add(String(v));
    if (v === '') {
      problems.push(`${name} has an empty value; write e.g. ${name}=10,20`);
      continue;
    }
    let r = field.safeParse(coerceParams(strategy, { [name]: v })[name], { error: plainIssue });
    // A number-like value the number rule refused (10.5 for a whole number, -1 below a minimum): report
    // that rule, not "must be a number".
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    if (!r.success && Number.isFinite(n)) {
      const asNumber = field.safeParse(n, { error: plainIssue });
      const wantsString = (i: z.core.$ZodIssue) => i.code === 'invalid_type' && i.expected === 'string';
      if (!asNumber.success && !asNumber.error.issues.some(wantsString)) r = asNumber;
    }
    if (!r.success) {
      const rule = r.error.issues.map((i) => i.message).join('; ');
      const dflt = info.hasDefault ? `; default ${JSON.stringify(info.default)}` : '';
      problems.push(`${show(name, v)} is not valid: ${rule} (${info.description ?? name}${dflt})`);
    }
  }
  return problems;
}

/** The problems of one rule key's values (an unknown key gets a did-you-mean); each value typed into `typed`. */
function checkRuleValues(
  rules: JobRules,
  name: string,
  values: readonly unknown[],
  typed: Map<string, unknown>,
  grid: Grid,
): string[] {
  if (ruleKeyOf(name) === undefined)
    return [
      `"${name}" is not an exit or a protection${didYouMean(name, ruleKeys())}; they are ${ruleKeys().join(', ')}`,
    ];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(String(v))) problems.push(`${show(name, v)} is listed twice; give each value once`);
    seen.add(String(v));
    const r = ruleValue(rules, name, v, grid);
    if ('problem' in r) problems.push(`${show(name, v)} is not valid: ${r.problem}`);
    else typed.set(`${name}\0${String(v)}`, r.value);
  }
  return problems;
}

/** What is wrong with a set's exits and protections taken together, or undefined. */
function ruleProblem(job: JobRules): string | undefined {
  for (const root of Object.keys(RULE_ROOTS) as RuleRoot[]) {
    const r = RULE_ROOTS[root].safeParse(job[root] ?? {}, { error: plainIssue });
    if (!r.success)
      return r.error.issues.map((i) => `${[root, ...i.path].join('.')}: ${i.message}`).join('; ');
  }
  return undefined;
}

/** One line per skipped combination, for the terminal. */
export function formatSkipped(skipped: CheckedGrid['skipped']): string {
  return skipped
    .map(
      (s) =>
        `skipped ${Object.entries(s.params)
          .map(([k, v]) => show(k, v))
          .join(' ')}: ${s.reason}`,
    )
    .join('\n');
}
