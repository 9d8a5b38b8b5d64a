// Builders for order intents. They are the one place a strategy turns its float world into Decimals, and
// they check at run time what the types promise at compile time (a JS strategy has no type checker).
import { Decimal, aboveZero } from '../market/decimal.js';
import type {
  LimitIntent,
  MarketBuyIntent,
  MarketSellIntent,
  OrderIntent,
  Side,
  TradeCategory,
} from './intent.js';

/** Thrown when an intent is malformed: the message names the field and the fix. */
export class IntentError extends TypeError {
  override readonly name = 'IntentError';
}

function positiveDecimal(value: unknown, field: string): Decimal {
  if (!(value instanceof Decimal)) {
    const got = typeof value === 'number' ? `the JS number ${String(value)}` : JSON.stringify(value);
    throw new IntentError(
      `${field} must be a Decimal (money is never a JS number), got ${got}: build it with toDecimal(x) or new Decimal("...")`,
    );
  }
  if (!value.isFinite() || !aboveZero(value)) {
    throw new IntentError(`${field} must be a finite Decimal above zero, got ${value.toString()}`);
  }
  return value;
}

function label(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new IntentError(`${field} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Converts a float (an indicator value, a candle price) into a Decimal, for building an intent.
 * Uses the shortest round-trip spelling of the float, so 0.1 + 0.2 becomes 0.30000000000000004; the risk
 * gate rounds prices and quantities to the instrument precision, so pass `dp` only to round earlier.
 *
 * @example limit('AAPLUSDT', 'buy', qty, toDecimal(candle.close * 0.999, 2), 'entry', 'bought the dip')
 */
export function toDecimal(x: number, dp?: number): Decimal {
  if (!Number.isFinite(x))
    throw new IntentError(`cannot convert ${String(x)} to a Decimal: the value must be finite`);
  const d = new Decimal(x);
  return dp === undefined ? d : d.toDecimalPlaces(dp, Decimal.ROUND_HALF_EVEN);
}

// The category argument defaults to SPOT; a strategy need not pass it, because the contract stamps the
// bot's own category (and name) on every intent it emits.

/** A market buy spending `quoteAmount` of the quote coin (spec 4.3: a market buy's qty is in quote coin). */
export function buyMarket(
  symbol: string,
  quoteAmount: Decimal,
  tag: string,
  reason: string,
  category: TradeCategory = 'SPOT',
): MarketBuyIntent {
  return {
    symbol: label(symbol, 'symbol'),
    category,
    side: 'buy',
    type: 'market',
    quoteAmount: positiveDecimal(quoteAmount, 'quoteAmount'),
    tag: label(tag, 'tag'),
    reason: label(reason, 'reason'),
  };
}

/** A market sell of `quantity` base coin. */
export function sellMarket(
  symbol: string,
  quantity: Decimal,
  tag: string,
  reason: string,
  category: TradeCategory = 'SPOT',
): MarketSellIntent {
  return {
    symbol: label(symbol, 'symbol'),
    category,
    side: 'sell',
    type: 'market',
    quantity: positiveDecimal(quantity, 'quantity'),
    tag: label(tag, 'tag'),
    reason: label(reason, 'reason'),
  };
}

/** A limit order of `quantity` base coin at `price`. */
export function limit(
  symbol: string,
  side: Side,
  quantity: Decimal,
  price: Decimal,
  tag: string,
  reason: string,
  category: TradeCategory = 'SPOT',
): LimitIntent {
  if (side !== 'buy' && side !== 'sell')
    throw new IntentError(`side must be "buy" or "sell", got ${JSON.stringify(side)}`);
  return {
    symbol: label(symbol, 'symbol'),
    category,
    side,
    type: 'limit',
    quantity: positiveDecimal(quantity, 'quantity'),
    price: positiveDecimal(price, 'price'),
    tag: label(tag, 'tag'),
    reason: label(reason, 'reason'),
  };
}

/**
 * Checks an intent that did not come from the builders (e.g. a stream strategy written in JS) and returns
 * it; throws an IntentError naming the field otherwise.
 */
export function assertIntent(value: unknown): OrderIntent {
  if (typeof value !== 'object' || value === null) {
    throw new IntentError(`an order intent must be an object, got ${JSON.stringify(value)}`);
  }
  const i = value as Record<string, unknown>;
  if (i.category !== 'SPOT' && i.category !== 'MARGIN') {
    throw new IntentError(`category must be "SPOT" or "MARGIN", got ${JSON.stringify(i.category)}`);
  }
  label(i.symbol, 'symbol');
  label(i.tag, 'tag');
  label(i.reason, 'reason');
  if (i.type === 'limit') {
    positiveDecimal(i.quantity, 'quantity');
    positiveDecimal(i.price, 'price');
    if (i.side !== 'buy' && i.side !== 'sell') {
      throw new IntentError(`side must be "buy" or "sell", got ${JSON.stringify(i.side)}`);
    }
  } else if (i.type === 'market') {
    if (i.side === 'buy') {
      if ('quantity' in i) {
        throw new IntentError(
          `a market buy is sized by quoteAmount (quote coin), not quantity: use buyMarket(...)`,
        );
      }
      positiveDecimal(i.quoteAmount, 'quoteAmount');
    } else if (i.side === 'sell') {
      if ('quoteAmount' in i) {
        throw new IntentError(
          `a market sell is sized by quantity (base coin), not quoteAmount: use sellMarket(...)`,
        );
      }
      positiveDecimal(i.quantity, 'quantity');
    } else {
      throw new IntentError(`side must be "buy" or "sell", got ${JSON.stringify(i.side)}`);
    }
  } else {
    throw new IntentError(`type must be "limit" or "market", got ${JSON.stringify(i.type)}`);
  }
  return value as OrderIntent;
}
