// What a backtest produces: the fills, the round-trip trades, the equity curve and the meta.
// Money is in decimal strings; the equity curve (a point at every time step's close) is numbers in memory (it
// feeds statistics and charts) and decimal strings, rounded to the quote coin's precision, in result.json.
import type { WarmUpShortfall } from '../strategy/warm-up-probe.js';
import type { EquityCurve } from './equity-curve.js';

export interface BacktestFill {
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly price: string;
  readonly size: string;
  readonly fee: string;
  readonly liquidity: 'maker' | 'taker';
  readonly tag: string;
}

/** A round trip: from flat to flat on one symbol. */
export interface BacktestTrade {
  readonly symbol: string;
  /** long: opened with a buy; short: opened with a sell (a MARGIN run), its entry the sells, its exit the cover. */
  readonly side: 'long' | 'short';
  readonly entryTime: number;
  readonly exitTime: number;
  /** Average entry and exit prices. */
  readonly entryPrice: string;
  readonly exitPrice: string;
  readonly quantity: string;
  /** Realised PnL after fees. */
  readonly pnl: string;
  readonly fees: string;
  /** The tag of the fill that opened it (the strategy's entry intent). */
  readonly entryTag: string;
  /** The tag of the fill that closed it: the pipeline's exit reason (`stop_loss`, `end_of_backtest` ...) or the strategy's tag. */
  readonly exitReason: string;
}

/**
 * A position still open when the data ended, marked at its symbol's last close. Its unrealised PnL is after
 * the fees paid so far (as a closed trade's PnL is): final equity = capital + realised + unrealised.
 */
export interface OpenPosition {
  readonly symbol: string;
  readonly entryTime: number;
  readonly entryTag: string;
  /** Base quantity held. */
  readonly size: string;
  /** Average price of its buys. */
  readonly entryPrice: string;
  /** The last close. */
  readonly mark: string;
  readonly unrealisedPnl: string;
  /** unrealisedPnl / (entryPrice x size), to 6 places. */
  readonly unrealisedReturn: string;
}

export type { EquityCurvePoint } from './equity-curve.js';

/**
 * The time in the market, counted in time steps (candle open times) from the first one that may trade: all
 * of them, and those at whose close a position was open. Exposure is held / steps.
 */
export interface TimeInMarket {
  readonly steps: number;
  readonly held: number;
}

/**
 * The strategy's warm-up: the candles of each interval it reads that it must see first (per symbol), where
 * that number comes from, and the intents it emitted before (not sent to the gate, so they never traded).
 */
export interface WarmUpSummary {
  readonly candles: number;
  /** `declared` (the strategy's startupCandles), `derived from "slow"`, or `none`. */
  readonly source: string;
  /** Intents emitted during the warm-up (and before a walk-forward window's start): not sent. */
  readonly intents: number;
  /**
   * Measured when the warm-up ended: the indicators from 'tradebot' that had fewer inputs than they need
   * to be exact (src/strategy/warm-up-probe.ts) and the `startupCandles` to declare; absent when none.
   */
  readonly short?: WarmUpShortfall | undefined;
}

/** One chart bar (downsampled candles). */
export interface ChartBar {
  readonly time: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
}

/**
 * A series the strategy plotted (ctx.plot) on one symbol, at the chart's resolution: one point per chart
 * bar (the last value the strategy plotted in it), times the bars' open times, values decimal strings and
 * null for a gap.
 */
export interface PlotSeries {
  /** `price` over the candles, `own` in a panel below. */
  readonly pane: 'price' | 'own';
  readonly time: readonly number[];
  readonly value: readonly (string | null)[];
}

/** A refusal as the gate or the venue said it. */
export interface FirstDenial {
  readonly ts: number;
  readonly symbol: string;
  readonly message: string;
  /** The intent's tag (an exit's reason: stop_loss, trailing_stop ...). */
  readonly tag?: string | undefined;
  /** EXIT_BLOCKED: the clientOid of the strategy's own resting order that held the position. */
  readonly blockedBy?: string | undefined;
}

export interface IntentOutcome {
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly type: 'limit' | 'market';
  readonly tag: string;
  readonly approved: boolean;
  readonly code?: string | undefined;
}

/** The figures of one symbol of a run (money as decimal strings). */
export interface SymbolResult {
  readonly candles: number;
  readonly fills: number;
  /** Round trips closed. */
  readonly trades: number;
  readonly wins: number;
  /** Realised PnL of the closed round trips, after their fees. */
  readonly pnl: string;
  /** Fees of all the symbol's fills (open positions included). */
  readonly fees: string;
  /** Base quantity held at the end. */
  readonly position: string;
  /** Set when that position is dust (below the venue's minimum tradable quantity): no trade, shown apart. */
  readonly dust?: string | undefined;
  readonly lastClose: string;
}

export interface BacktestMeta {
  readonly strategy: string;
  readonly params: Record<string, unknown>;
  readonly dataset: string;
  /** The symbol, or the symbols joined by commas. */
  readonly symbol: string;
  /** The symbols of a run over several, in the order of their datasets. */
  readonly symbols?: readonly string[] | undefined;
  readonly interval: string;
  /** The data's interval when the candles were resampled to `interval` (a 5m run on 1m data); else absent. */
  readonly resampledFrom?: string | undefined;
  /** Informative intervals the strategy declared (resampled from `interval`). */
  readonly informative?: readonly string[] | undefined;
  readonly from: number;
  readonly to: number;
  readonly candles: number;
  readonly capital: string;
  readonly feeRate: string;
  readonly slippageBps: number;
  /** Set when the positions open at the end were sold at the last close (`closeAtEnd`). */
  readonly closeAtEnd?: true | undefined;
  /** MARGIN for a MARGIN backtest (`BacktestOptions.margin`), with the leverage set per coin; else absent (SPOT). */
  readonly category?: 'MARGIN' | undefined;
  readonly leverage?: Readonly<Record<string, string>> | undefined;
  /**
   * The exits and protections in force: the strategy's declaration with the YAML's (and a sweep row's) over
   * it, field by field (mergeRules in src/strategy/exits.ts), as plain data (decimal strings).
   */
  readonly exits: Readonly<Record<string, unknown>>;
  readonly protections: Readonly<Record<string, unknown>>;
  /** SHA-256 of the fill list: same inputs, same hash. */
  readonly tradeHash: string;
}

export interface BacktestResult {
  readonly meta: BacktestMeta;
  readonly fills: readonly BacktestFill[];
  readonly trades: readonly BacktestTrade[];
  /** Positions open when the data ended (marked at the last close; none when `closeAtEnd` exited them). */
  readonly openPositions: readonly OpenPosition[];
  /**
   * The equity marked at every time step's close (every symbol at its last close), at the step's decision
   * time (a daily stock candle's 16:00 ET); `closeAtEnd` replaces the last point with the equity after its sells.
   */
  readonly equity: EquityCurve;
  readonly inMarket: TimeInMarket;
  readonly warmUp: WarmUpSummary;
  readonly intents: readonly IntentOutcome[];
  readonly denials: Readonly<Record<string, number>>;
  /** The first refusal of each code in `denials`: when, on which symbol, and the gate's (or venue's) sentence. */
  readonly firstDenials: Readonly<Record<string, FirstDenial>>;
  readonly finalEquity: string;
  readonly fees: string;
  /** Final balances by coin and positions by symbol (decimal strings). */
  readonly portfolio: {
    readonly cash: Readonly<Record<string, string>>;
    readonly positions: Readonly<Record<string, string>>;
    /** The positions that are dust (below the venue's minimum tradable quantity); absent when none is. */
    readonly dust?: Readonly<Record<string, string>> | undefined;
  };
  /** Downsampled candles of the first symbol, for the report. */
  readonly chart: readonly ChartBar[];
  /** Downsampled candles per symbol, in a run over several symbols. */
  readonly charts?: Readonly<Record<string, readonly ChartBar[]>> | undefined;
  /** The strategy's ctx.plot series by symbol, then by name (absent when it plotted nothing). */
  readonly plots?: Readonly<Record<string, Readonly<Record<string, PlotSeries>>>> | undefined;
  /** Per-symbol figures (in the order of the datasets). */
  readonly bySymbol: Readonly<Record<string, SymbolResult>>;
  /** Wall-clock timings of the run, ms. */
  readonly timing: { readonly runMs: number };
}
