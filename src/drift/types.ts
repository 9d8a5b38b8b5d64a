// The drift monitor's vocabulary: the causes, the kinds of difference, the two sides' records and the report.
import type { Decimal } from '../market/decimal.js';
import type { DecidedCandle } from '../store/index.js';

/** Why a difference is there. Everything but `unexplained` is a known way for live to differ from the replay. */
export const DRIFT_CAUSES = [
  'stale_signal',
  'restart_gap',
  'operator_action',
  'venue_refusal',
  'forming_candle',
  'missing_candle',
  'late_decision',
  'fill_model',
  'fee',
  'unexplained',
] as const;
export type DriftCause = (typeof DRIFT_CAUSES)[number];

/** What differs. */
export type DriftKind =
  | 'candle_missing'
  | 'candle_not_decided'
  | 'candle_forming'
  | 'candle_differs'
  | 'candle_late'
  | 'candle_not_at_venue'
  | 'intent_missing'
  | 'intent_extra'
  | 'decision_differs'
  | 'order_refused'
  | 'fill_price'
  | 'fee_differs';

export interface DriftDifference {
  readonly kind: DriftKind;
  readonly cause: DriftCause;
  readonly symbol: string;
  /** Open time of the candle it concerns (absent for an operator's order). */
  readonly candle?: number | undefined;
  /** Venue time of the difference (the decision, the order, the fill). */
  readonly at: number;
  /** One sentence: what differs and why. */
  readonly detail: string;
  /** Set when the difference follows an earlier one on the symbol (its portfolio or indicators differ since). */
  readonly follows?: string | undefined;
}

/** A candle as the venue answers it (history-candles), prices as decimal text. */
export interface VenueCandle {
  readonly symbol: string;
  readonly openTime: number;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;
}

/** An intent and the gate's decision (`approved` or the denial code). */
export interface DecidedIntent {
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly tag: string;
  readonly decision: string;
}

/** A journaled intent: judged at `ts` (venue time). */
export interface LiveIntent extends DecidedIntent {
  readonly ts: number;
}

/** A replayed intent: decided on the candle opening at `candle`. */
export interface ReplayIntent extends DecidedIntent {
  readonly candle: number;
}

export interface LiveOrder {
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly tag: string;
  readonly state: 'pending' | 'acked' | 'rejected';
  readonly clientOid: string;
  readonly reject?: string | undefined;
}

/** A fill of either side; `key` groups the fills of one order. */
export interface DriftFill {
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly tag: string;
  readonly price: Decimal;
  readonly size: Decimal;
  readonly fee: Decimal;
  readonly key: string;
}

export interface OperatorAction {
  readonly ts: number;
  readonly action: string;
  readonly symbol?: string | undefined;
  readonly who: string;
  readonly reason: string;
}

export interface DriftInputs {
  readonly bot: string;
  /** The bot's interval, ms. */
  readonly stepMs: number;
  /** The span: candles opening in [from, to - stepMs] are compared. */
  readonly from: number;
  readonly to: number;
  /** A decision later than this after its candle's close is late (the bot's maxSignalAgeMs, else one interval). */
  readonly lateAfterMs: number;
  readonly venueCandles: readonly VenueCandle[];
  /** The journal's decided candles (all phases), in the order decided; rows before the span help place restarts. */
  readonly decided: readonly DecidedCandle[];
  readonly liveIntents: readonly LiveIntent[];
  readonly replayIntents: readonly ReplayIntent[];
  readonly orders: readonly LiveOrder[];
  readonly liveFills: readonly DriftFill[];
  readonly replayFills: readonly DriftFill[];
  readonly controls: readonly OperatorAction[];
  /** The fee rates the replay charges (taker; maker defaults to it). */
  readonly feeRate: Decimal;
  readonly makerFeeRate?: Decimal | undefined;
  /**
   * The strategy's warm-up in candles of the bot's interval: a decision within one candle more than this of a
   * start was made by a strategy that had seen less history than the replay's (its indicators may differ).
   */
  readonly warmUpCandles?: number | undefined;
  /** How far outside the venue candle's range a live fill may be (the book's spread), basis points. Default 100. */
  readonly fillToleranceBps?: number | undefined;
}

export interface DriftReport {
  readonly bot: string;
  readonly from: number;
  readonly to: number;
  readonly candles: { readonly venue: number; readonly decided: number };
  /** Venue times the bot (re)started in the span: where a warm-up began. */
  readonly starts: readonly number[];
  readonly intents: { readonly live: number; readonly replay: number; readonly equal: number };
  readonly fills: { readonly live: number; readonly replay: number; readonly withinModel: number };
  readonly differences: readonly DriftDifference[];
  readonly byCause: Readonly<Partial<Record<DriftCause, number>>>;
  readonly unexplained: number;
}

/** The daemon's alarm after a drift check found unexplained differences (notifications, the dashboard). */
export interface DriftAlarmEvent {
  readonly type: 'drift-alarm';
  readonly bot: string;
  readonly ts: number;
  readonly from: number;
  readonly to: number;
  readonly unexplained: number;
  /** The unexplained differences (the first few). */
  readonly differences: readonly DriftDifference[];
}
