// What a backtest is given: the candles, the strategy and its parameters, the money, the risk limits, and
// the callbacks a caller (the CLI, walk-forward, the lookahead check) listens on.
import type { CandleInterval } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { record } from '../market/shapes.js';
import type { FeeRates } from '../portfolio/fees.js';
import type { PortfolioFill } from '../portfolio/portfolio.js';
import type { TraderListener } from '../execution/trader-events.js';
import type { RiskLimits } from '../risk/limits.js';
import type { Strategy, StrategyLogger } from '../strategy/contract.js';
import type { ExitRules, Protections } from '../strategy/exits.js';
import type { StrategyLogLine } from '../strategy/strategy-log.js';
import type { WarmUpShortfall } from '../strategy/warm-up-probe.js';
import type { CandleSource } from '../data/format.js';

export interface BacktestOptions {
  /**
   * The candles: one source per symbol. Several sources (one symbol each, one interval, one quote coin)
   * are merged in time order, ties in the order given, into one run: one pipeline, one portfolio, one
   * capital, as a live bot with several symbols.
   */
  readonly source: CandleSource | readonly CandleSource[];
  readonly dataset: string;
  readonly strategy: Strategy;
  /**
   * The interval the run is at, as a live bot's configured one (default: the data's when the strategy declares
   * it, else the strategy's first). Finer data that divides it is resampled; other data is refused.
   */
  readonly interval?: CandleInterval | undefined;
  readonly params?: Record<string, unknown> | undefined;
  readonly capital?: string | undefined;
  readonly feeRate?: string | undefined;
  readonly makerFeeRate?: string | undefined;
  readonly slippageBps?: number | undefined;
  readonly risk: RiskLimits;
  /** Only candles with openTime in [from, to]. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  /**
   * Warm-up (walk-forward's out-of-sample windows): candles before this time reach the strategy, but its
   * intents are dropped before the gate, as those of the strategy's own warm-up (`Strategy.warmUp`) are.
   */
  readonly tradeFrom?: number | undefined;
  /**
   * Feed the pipeline's equity sample (the trading state's daily loss, the protections) every N time steps
   * (default: about once a day, as a live bot). The result's equity curve has a point at every step whatever N.
   */
  readonly equityEvery?: number | undefined;
  /** Keep downsampled bars for the HTML report (default true). */
  readonly chart?: boolean | undefined;
  readonly logger?: StrategyLogger | undefined;
  /** Each call of the strategy's `ctx.logger`, with the candle it was deciding (over `logger`). */
  readonly strategyLog?: ((line: StrategyLogLine) => void) | undefined;
  /** Name of the bot (it enters the client order ids, as live); default "backtest". */
  readonly bot?: string | undefined;
  /** Every event of the trading pipeline, as a live bot's subscribers see them. */
  readonly onEvent?: TraderListener | undefined;
  /** Whether a symbol is suspended at an instant (recorded suspensions); default never. */
  readonly suspended?: ((symbol: string, t: number) => boolean) | undefined;
  /** Called every batch with the number of candles done. */
  readonly onProgress?: ((candles: number) => void) | undefined;
  /** Exits from the backtest's YAML; each field overrides the strategy's declaration. */
  readonly exits?: ExitRules | undefined;
  /** Protections from the backtest's YAML; each field overrides the strategy's declaration. */
  readonly protections?: Protections | undefined;
  /**
   * A MARGIN backtest (docs/margin.md): orders borrow as on the simulator, within the leverage set per coin at
   * start, with its interest and liquidation; each dataset's instrument takes the margin row's fields
   * (`SIM_REALITY_MARGIN_FIELDS`, overridden by `instrument`). Absent: SPOT.
   */
  readonly margin?:
    | {
        readonly leverage: Readonly<Record<string, string>>;
        readonly instrument?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
  /**
   * Exit the positions still open when the data ends at the last close, through the pipeline (exit reason
   * `end_of_backtest`, fees charged). Default false: they stay open, marked at the last close, and the result
   * lists them.
   */
  readonly closeAtEnd?: boolean | undefined;
  /**
   * Fills before the first candle, applied to the capital (the portfolio and the venue's balances): a replay
   * that starts where a live bot's journal says it stood (the drift monitor). Default none.
   */
  readonly openingFills?: readonly PortfolioFill[] | undefined;
  /**
   * Called when a symbol's warm-up ends with an indicator from 'tradebot' short of the inputs it needs to be
   * exact, before the strategy's first trade: the shortfall and its sentence (with the number to declare).
   */
  readonly onWarmUpShort?: ((short: WarmUpShortfall, sentence: string) => void) | undefined;
  /** Each intent and exposed indicator value of the strategy, with its candle (the lookahead check). */
  readonly onSignal?: ((signal: StrategySignal) => void) | undefined;
}

/** A value the strategy produced on a candle: an intent (name "intent") or an exposed indicator. */
export interface StrategySignal {
  readonly symbol: string;
  /** Open time of the candle the value belongs to. */
  readonly openTime: number;
  readonly name: string;
  readonly value: number | string;
}

/** The run's money: the capital and the fee rates (taker, and maker when given), their defaults applied. */
export function runMoney(o: BacktestOptions): { capital: string; feeRate: Decimal; fees: FeeRates } {
  const capital = o.capital ?? '10000';
  const feeRate = new Decimal(o.feeRate ?? '0.001');
  const makerRate = new Decimal(o.makerFeeRate ?? o.feeRate ?? '0.001');
  // A record, not a literal: hot code reads the rates (src/market/shapes.ts).
  return { capital, feeRate, fees: record({ maker: makerRate, taker: feeRate }) };
}
