// The order intent: what a strategy asks for. Decimal-safe by type: a strategy cannot put a JS number
// where money goes. The risk gate turns an intent into an approved (normalised) order or a denial.
// Declared in market (the lowest layer that needs it: precision rules normalise intents).
import type { Decimal } from './decimal.js';

export type Side = 'buy' | 'sell';
export type OrderType = 'limit' | 'market';
export type TradeCategory = 'SPOT' | 'MARGIN';

interface IntentBase {
  /** Bot that produced it (filled in by the runner). */
  readonly bot?: string;
  readonly symbol: string;
  readonly category: TradeCategory;
  readonly side: Side;
  /** Free label from the strategy, e.g. "entry" or "exit"; part of the deterministic clientOid. */
  readonly tag: string;
  /** One sentence on why, for the journal and the logs. */
  readonly reason: string;
}

/** A limit order: quantity in base coin at a limit price. */
export interface LimitIntent extends IntentBase {
  readonly type: 'limit';
  readonly quantity: Decimal;
  readonly price: Decimal;
}

/** A market sell: quantity in base coin. */
export interface MarketSellIntent extends IntentBase {
  readonly type: 'market';
  readonly side: 'sell';
  readonly quantity: Decimal;
}

/** A market buy: the spec's qty rule makes its size a quote-coin amount. */
export interface MarketBuyIntent extends IntentBase {
  readonly type: 'market';
  readonly side: 'buy';
  readonly quoteAmount: Decimal;
}

export type OrderIntent = LimitIntent | MarketSellIntent | MarketBuyIntent;

/** The wire `qty` of an intent (spec 4.3 qty unit rule). */
export function intentQty(i: OrderIntent): Decimal {
  return 'quoteAmount' in i ? i.quoteAmount : i.quantity;
}
