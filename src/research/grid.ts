// A sweep's grid checked against the strategy's parameter schema before any run starts: a value no run
// could use (`fast=abc`, `fast=-1`, an unknown name) ends the command with a sentence naming the parameter
// and its rule, instead of a table of "error" rows. Combinations that break a rule across parameters
// (`fast=50 slow=20` where slow must be above fast) are skipped and listed; a grid with none left is refused.
import type { z } from 'zod';
import { plainIssue } from '../market/spelling.js';
import type { Strategy } from '../strategy/contract.js';
import { describeParams, parseStrategyParams, StrategyParamsError } from '../strategy/params.js';
import { coerceParams } from '../backtest/run-config.js';

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
}

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
export function checkGrid(strategy: Strategy, base: Record<string, unknown>, grid: Grid): CheckedGrid {
  const infos = new Map(describeParams(strategy.params).map((p) => [p.name, p]));
  const shape = strategy.params.shape as Record<string, z.ZodType>;
  const problems: string[] = [];
  for (const [name, values] of Object.entries(grid)) {
    const info = infos.get(name);
    const field = shape[name];
    if (info === undefined || field === undefined) {
      problems.push(
        `"${name}" is not a parameter of ${strategy.name}; its parameters are ${[...infos.keys()].join(', ') || '(none)'}`,
      );
      continue;
    }
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
  }
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
    const set = coerceParams(strategy, combo);
    try {
      parseStrategyParams(strategy, { ...base, ...set });
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
  return { sets, skipped };
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
