// The keys a strategy declaration may have. A key it does not know is refused, never ignored: a misspelt
// hook (`onFil`) would silently never be called. Each refusal says the nearest known key, and freqtrade's
// names (an author coming from it writes `stoploss`, `minimal_roi`) get their equivalents here.
import { closest } from '../market/spelling.js';

/** The keys both styles of declaration have. */
const COMMON_SPEC_KEYS = [
  'name',
  'description',
  'params',
  'intervals',
  'informative',
  'exits',
  'protections',
  'startupCandles',
  'searchSpace',
] as const;

/** The keys of `defineStrategy({...})`. */
export const CALLBACK_SPEC_KEYS = [
  ...COMMON_SPEC_KEYS,
  'init',
  'onCandle',
  'onSession',
  'onTicker',
  'onDenied',
  'onOrder',
  'onFill',
] as const;

/** The keys of `createStrategy({...})` (the stream style). */
export const STREAM_SPEC_KEYS = [...COMMON_SPEC_KEYS, 'run'] as const;

/** The keys of `exits: {...}` (see ExitRulesSchema). */
export const EXIT_KEYS = [
  'stopLoss',
  'takeProfit',
  'trailingStop',
  'minimalRoi',
  'maxTradeMinutes',
  'sessionEnd',
] as const;

/** freqtrade's strategy attributes and what says the same here, at the top of a declaration. */
const FREQTRADE_TOP: Readonly<Record<string, string>> = {
  stoploss:
    "exits: { stopLoss: '0.10' } (a distance below the entry price, positive: freqtrade's -0.10 is '0.10')",
  minimal_roi: "exits: { minimalRoi: { '0': '0.04', '30': '0.01' } } (minutes in trade -> profit ratio)",
  trailing_stop: "exits: { trailingStop: { distance: '0.02' } }",
  trailing_stop_positive: "exits: { trailingStop: { distance: '0.02' } }",
  trailing_stop_positive_offset: "exits: { trailingStop: { distance: '0.02', activation: '0.03' } }",
  startup_candle_count: 'startupCandles: 200 (or a function of the parameters, (p) => p.slow)',
  timeframe: "intervals: ['5m'] (the first is the suggested default)",
  informative_pairs: "informative: ['1H'] (higher intervals of the bot's own symbols)",
  populate_indicators: 'init (build the indicators) and onCandle (update them)',
  populate_entry_trend: "onCandle (emit(buyMarket(candle.symbol, '100', 'entry', 'why')))",
  populate_exit_trend: "onCandle (emit(sellMarket(candle.symbol, held, 'exit', 'why'))) or exits",
  custom_stoploss: "exits: { stopLoss, trailingStop } (declared), or onCandle's own sell",
  can_short: 'category: MARGIN on the bot (docs/margin.md), and sellShort / buyToCover intents',
  enter_short: "onCandle (emit(sellShort(candle.symbol, '1', 'short', 'why')))",
  exit_short: "onCandle (emit(buyToCover(candle.symbol, held.abs(), price, 'cover', 'why')))",
};

/** freqtrade's names inside `exits`. */
const FREQTRADE_EXITS: Readonly<Record<string, string>> = {
  stoploss: "stopLoss: '0.10' (positive: freqtrade's -0.10 is '0.10')",
  minimal_roi: "minimalRoi: { '0': '0.04' }",
  roi: "minimalRoi: { '0': '0.04' }",
  trailing_stop: "trailingStop: { distance: '0.02' }",
  trailing_stop_positive: "trailingStop: { distance: '0.02' }",
  trailing_stop_positive_offset: "trailingStop: { distance: '0.02', activation: '0.03' }",
};

/**
 * freqtrade's `stoploss: -0.05` with its own value: `stopLoss: '0.05'` (positive, a decimal string), not the
 * example's '0.10'; any other value keeps the example.
 */
function ownStopLoss(hint: string, value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value) || value >= 0) return hint;
  const own = String(-value);
  return hint.replaceAll("'0.10'", `'${own}'`).replace('-0.10', String(value));
}

/** The problem of one unknown key: freqtrade's equivalent, else the nearest known key, and the list. */
function unknownKey(
  key: string,
  known: readonly string[],
  where: string,
  freqtrade: Readonly<Record<string, string>>,
  value?: unknown,
): string {
  const hint = Object.hasOwn(freqtrade, key) ? freqtrade[key] : undefined;
  const equivalent = key === 'stoploss' && hint !== undefined ? ownStopLoss(hint, value) : hint;
  if (equivalent !== undefined) return `${where}"${key}" is freqtrade's name: write ${equivalent}`;
  const near = closest(key, known);
  return `${where}unknown key "${key}"${near === undefined ? '' : ` (did you mean "${near}"?)`}: the keys are ${known.join(', ')}`;
}

/** Problems of the keys of a declaration (empty when every key is known). */
export function specKeyProblems(spec: object, known: readonly string[]): string[] {
  const problems = Object.keys(spec)
    .filter((k) => !known.includes(k))
    .map((k) => unknownKey(k, known, '', FREQTRADE_TOP, (spec as Record<string, unknown>)[k]));
  const exits = (spec as { exits?: unknown }).exits;
  if (known.includes('exits') && typeof exits === 'object' && exits !== null && !Array.isArray(exits))
    problems.push(...exitKeyProblems(exits));
  return problems;
}

/** Problems of the keys of an `exits` mapping (a strategy's or a bot's). */
export function exitKeyProblems(exits: object): string[] {
  return Object.keys(exits)
    .filter((k) => !(EXIT_KEYS as readonly string[]).includes(k))
    .map((k) => unknownKey(k, EXIT_KEYS, 'exits: ', FREQTRADE_EXITS, (exits as Record<string, unknown>)[k]));
}
