// A static look for exits that resting orders can block (issue 30): a strategy with a stop-loss or a trailing
// stop that also builds limit sells. The venue has no cancel, so a resting limit sell holds the position and
// every stop after it is denied EXIT_BLOCKED. `validate` and the daemon's start say so before it happens.
import { readFileSync } from 'node:fs';
import type { Strategy } from './contract.js';
import { mergeExitRules, type ExitRules } from './exits.js';

/**
 * A call of the `limit` builder with side 'sell' ("sell" or `sell`) within its first arguments: what the check
 * reads in a strategy's source. A sell side built another way (a variable, another builder) is not seen.
 */
const LIMIT_SELL = /\blimit\s*\(\s*[^;{}]{0,200}?,\s*(['"`])sell\1/;

/** Whether a strategy's source builds a limit sell (see LIMIT_SELL); false when the file cannot be read. */
export function buildsLimitSells(file: string): boolean {
  try {
    return LIMIT_SELL.test(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The warning for a strategy whose stop-loss or trailing stop (its own, or the YAML's `exits` over them) can be
 * blocked by the limit sells its source builds; undefined when it has no such exit or builds no limit sell.
 */
export function exitBlockWarning(
  strategy: Strategy,
  file: string,
  yamlExits?: ExitRules,
): string | undefined {
  const exits = mergeExitRules(strategy.exits, yamlExits);
  const stops = [exits.stopLoss && 'stopLoss', exits.trailingStop && 'trailingStop'].filter(Boolean);
  if (stops.length === 0 || !buildsLimitSells(file)) return undefined;
  return `strategy "${strategy.name}" has ${stops.join(' and ')} exits and builds limit sells (${file} calls limit(..., 'sell', ...)): on a venue without cancel a resting limit sell holds the position, and every stop after it is denied EXIT_BLOCKED. Take profits with exits.takeProfit or exits.minimalRoi instead, or rest sells for part of the position only (docs/strategies.md, "Exits behind resting orders")`;
}
