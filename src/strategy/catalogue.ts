// The strategies a user can run, as `tradebot strategies` shows them (freqtrade's list-strategies): their
// own folders first, then the bundled ones, each loaded and described from its own declaration.
import { describeParams, parseStrategyParams } from './params.js';
import type { WarmUp } from './warm-up.js';
import {
  StrategyLoadError,
  listStrategies,
  loadStrategy,
  strategyFileIn,
  strategyFolders,
  type StrategyLookup,
} from './loader.js';

/** One parameter as a config file would spell it. */
export interface StrategyParamEntry {
  readonly name: string;
  /** The default on the input side (a decimal string for money), undefined when there is none. */
  readonly default: unknown;
  readonly description: string;
}

/** One strategy of the catalogue. */
export interface StrategyEntry {
  readonly name: string;
  /** `own` from a strategies folder of the user, `bundled` from the package. */
  readonly source: 'own' | 'bundled';
  readonly file: string;
  /** A bundled strategy of the same name as an own one is not reachable by name. */
  readonly shadowed: boolean;
  readonly description?: string | undefined;
  readonly intervals?: readonly string[] | undefined;
  readonly params?: readonly StrategyParamEntry[] | undefined;
  /** Informative intervals the strategy declares (resampled from its base candles). */
  readonly informative?: readonly string[] | undefined;
  /** Its built-in exits and protections as data (ratios as decimal strings); a bot's YAML overrides each. */
  readonly exits?: Readonly<Record<string, unknown>> | undefined;
  readonly protections?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Its warm-up at the default parameters: candles it must see before it may trade, and whether its
   * `startupCandles` declares them or they are derived from a parameter. Undefined when a parameter has no default.
   */
  readonly warmUp?: WarmUp | undefined;
  /** Why the module did not load (then description, intervals and params are missing). */
  readonly error?: string | undefined;
}

/**
 * Every strategy reachable by name from `lookup`, loaded and described; one that fails to load is listed
 * with its error instead of stopping the list.
 */
export async function strategyCatalogue(lookup: StrategyLookup = {}): Promise<StrategyEntry[]> {
  const out: StrategyEntry[] = [];
  const seen = new Set<string>();
  for (const { dir, bundled } of strategyFolders(lookup)) {
    for (const name of listStrategies(dir)) {
      const file = strategyFileIn(dir, name);
      if (file === undefined) continue;
      const base = { name, source: bundled ? ('bundled' as const) : ('own' as const), file };
      const shadowed = seen.has(name);
      seen.add(name);
      try {
        const s = await loadStrategy(file, lookup);
        if (s.name !== name) {
          throw new StrategyLoadError(
            `${file} declares the strategy name "${s.name}": rename the file or the strategy so they match`,
          );
        }
        out.push({
          ...base,
          shadowed,
          description: s.description,
          intervals: s.intervals,
          ...(s.informative.length > 0 ? { informative: s.informative } : {}),
          ...(s.exits !== undefined && Object.keys(s.exits).length > 0 ? { exits: asData(s.exits) } : {}),
          ...(s.protections !== undefined && Object.keys(s.protections).length > 0
            ? { protections: asData(s.protections) }
            : {}),
          ...warmUpAtDefaults(s),
          params: describeParams(s.params).map((p) => ({
            name: p.name,
            default: p.default,
            description: p.description ?? '',
          })),
        });
      } catch (e) {
        out.push({ ...base, shadowed, error: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  return out;
}

/** The warm-up with the schema's defaults, or nothing when the defaults are not a whole set of parameters. */
function warmUpAtDefaults(s: Awaited<ReturnType<typeof loadStrategy>>): { warmUp?: WarmUp } {
  let params: unknown;
  try {
    params = parseStrategyParams(s, {});
  } catch {
    return {};
  }
  return { warmUp: s.warmUp(params as never) };
}

/** Decimals as their strings, as a YAML file spells them. */
const asData = (o: object): Record<string, unknown> =>
  JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
