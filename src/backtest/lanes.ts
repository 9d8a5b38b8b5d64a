// The symbols of a run: one lane per candle source, checked to fit one run, each with its current candle,
// its quote, its warm-up count, its chart and the candle the strategy has not decided on yet.
import type { CandleInterval } from '../api/index.js';
import { emptyQuote, type Quote } from '../execution/market-state.js';
import type { Candle } from '../market/candle.js';
import { InformativeCandles } from '../market/resample.js';
import type { Decimal } from '../market/decimal.js';
import { parseInstrument, type InstrumentRules } from '../market/instrument-rules.js';
import { SIM_REALITY_MARGIN_FIELDS } from '../market/margin.js';
import { record } from '../market/shapes.js';
import type { CandleBar } from '../sim/candle-fills.js';
import { informativeProblems, StrategyDefinitionError } from '../strategy/contract.js';
import { WarmUpCounter, type WarmUp } from '../strategy/warm-up.js';
import { CandleFileError, type CandleSource } from '../data/format.js';
import { Downsampler } from './chart.js';
import type { BacktestOptions } from './options.js';

/** The mutable current candle that the in-process venue fills against (no allocation per candle). */
export interface CurrentBar extends CandleBar {
  t: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** False before the first candle and after the last: no market, nothing fills. */
  known: boolean;
  /** Set only while a pipeline exit that triggered inside the candle is placed (see candle-fills.ts). */
  touch: Decimal | undefined;
}

/**
 * One symbol of a run: its instrument, the mutable current candle the venue fills against, its quote in
 * the market state, and the candle it has not decided on yet.
 */
export interface Lane {
  readonly symbol: string;
  readonly rules: InstrumentRules;
  readonly cur: CurrentBar;
  /** A daily stock candle is decided at the regular close (16:00 ET) of its date, others at their close. */
  readonly dailyStock: boolean;
  readonly informative: InformativeCandles | undefined;
  /** The candles of the strategy's warm-up it has seen of this symbol: no intent is sent before it is over. */
  readonly warmUp: WarmUpCounter;
  readonly chart: Downsampler;
  q: Quote;
  /** The candle the strategy has not decided on yet (it decides once the next candle's open is known). */
  prev: Candle | undefined;
  lastClose: number;
  candles: number;
}

/**
 * Step 0: the symbols of a run, one lane per source, checked to fit one run (one interval, one quote
 * coin, distinct symbols, informative intervals that resample from the base).
 */
export function lanesOf(
  o: BacktestOptions,
  sources: readonly CandleSource[],
  warmUp: WarmUp,
): { lanes: Lane[]; interval: CandleInterval } {
  const first = sources[0];
  if (first === undefined) throw new CandleFileError('a backtest needs at least one dataset');
  const interval = first.meta.interval;
  const problems = informativeProblems(o.strategy, interval);
  if (problems.length > 0)
    throw new StrategyDefinitionError(
      `strategy "${o.strategy.name}" on ${interval} candles: ${problems.join('; ')}`,
    );
  const seen = new Set<string>();
  const lanes = sources.map((src): Lane => {
    const { symbol } = src.meta;
    const rules = parseInstrument(
      o.margin === undefined
        ? src.meta.instrument
        : {
            ...src.meta.instrument,
            ...SIM_REALITY_MARGIN_FIELDS,
            ...o.margin.instrument,
            category: 'MARGIN',
          },
    );
    if (src.meta.interval !== interval)
      throw new CandleFileError(
        `datasets of one backtest must share one interval: ${first.meta.symbol} is ${interval}, ${symbol} is ${src.meta.interval}`,
      );
    if (seen.has(symbol))
      throw new CandleFileError(
        `datasets of one backtest must be of distinct symbols: ${symbol} is given twice (files without tradebot metadata take theirs from names such as AAPL_USDT-1d.csv when \`instrument:\` names no symbol)`,
      );
    seen.add(symbol);
    if (rules.quoteCoin !== parseInstrument(first.meta.instrument).quoteCoin)
      throw new CandleFileError(
        `datasets of one backtest must share one quote coin (one capital): ${symbol} is quoted in ${rules.quoteCoin}`,
      );
    // Records, not literals: the venue, the replay and the gate read them (src/market/shapes.ts).
    return record({
      symbol,
      rules,
      cur: record({ t: 0, open: 0, high: 0, low: 0, close: 0, known: false, touch: undefined }),
      dailyStock: interval === '1D' && rules.isReality,
      informative:
        o.strategy.informative.length > 0
          ? new InformativeCandles(symbol, interval, o.strategy.informative)
          : undefined,
      warmUp: new WarmUpCounter(warmUp.candles, [interval, ...o.strategy.informative]),
      chart: new Downsampler(),
      // Replaced by the market state's record of the symbol (same shape: the field's type never changes).
      q: emptyQuote(),
      prev: undefined,
      lastClose: 0,
      candles: 0,
    });
  });
  return { lanes, interval };
}
