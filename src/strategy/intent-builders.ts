// Builders for order intents. They are the one place a strategy turns its float world into Decimals, and
// they check at run time what the types promise at compile time (a JS strategy has no type checker).
import { SIGNED_DECIMAL_RE } from '../api/index.js';
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

/** Money as a strategy may write it: a Decimal, or a decimal string such as "100" or "0.25". */
export type MoneyInput = Decimal | string;

/**
 * Money from a builder's argument: a Decimal, or a decimal string ("100", "0.25"); a JS number is refused
 * with the spelling to use instead (a float has already lost what a decimal string keeps).
 */
function positiveDecimal(value: unknown, field: string): Decimal {
  let d: Decimal;
  if (value instanceof Decimal) d = value;
  else if (typeof value === 'string' && SIGNED_DECIMAL_RE.test(value.trim())) d = new Decimal(value.trim());
  else if (typeof value === 'number')
    throw new IntentError(
      `${field} must be a Decimal or a decimal string (money is never a JS number), got the number ${String(value)}: pass '${String(value)}' or new Decimal(${String(value)}) (toDecimal(x) for a computed float)`,
    );
  else
    throw new IntentError(
      `${field} must be a Decimal or a decimal string such as '100' or '0.25', got ${describeValue(value)}`,
    );
  if (!d.isFinite()) throw new IntentError(`${field} must be finite, got ${d.toString()}`);
  if (!aboveZero(d)) throw new IntentError(`${field} must be above zero, got ${d.toString()}`);
  return d;
}

/** Money already in an intent object (assertIntent): a Decimal, since the pipeline reads it as one. */
function intentDecimal(value: unknown, field: string): Decimal {
  if (!(value instanceof Decimal))
    throw new IntentError(
      `${field} of an order intent must be a Decimal, got ${typeof value === 'number' ? `the number ${String(value)}` : describeValue(value)}: build the intent with buyMarket, sellMarket or limit (they take '100' or new Decimal(100))`,
    );
  return positiveDecimal(value, field);
}

/** A value as a message shows it: its kind and spelling ("the string \"abc\"", "undefined"). */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value)})`;
  return `${typeof value} ${String(value)}`;
}

function label(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new IntentError(`${field} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Converts a float (an indicator value, a candle price), a decimal string or a Decimal into a Decimal, for
 * building an intent. A float takes its shortest round-trip spelling, so 0.1 + 0.2 becomes
 * 0.30000000000000004; the risk gate rounds prices and quantities to the instrument precision, so pass `dp`
 * only to round earlier.
 *
 * @example limit('AAPLUSDT', 'buy', qty, toDecimal(candle.close * 0.999, 2), 'entry', 'bought the dip')
 */
export function toDecimal(x: number | string | Decimal, dp?: number): Decimal {
  let d: Decimal;
  if (x instanceof Decimal) d = x;
  else if (typeof x === 'number') {
    if (!Number.isFinite(x))
      throw new IntentError(
        `cannot convert the number ${String(x)} to a Decimal: it is not finite (an indicator not ready yet, or a division by zero?)`,
      );
    d = new Decimal(x);
  } else if (typeof x === 'string') {
    if (!SIGNED_DECIMAL_RE.test(x.trim()))
      throw new IntentError(
        `cannot convert the string ${JSON.stringify(x)} to a Decimal: write a decimal number such as "100" or "0.25"`,
      );
    d = new Decimal(x.trim());
  } else
    throw new IntentError(
      `cannot convert ${describeValue(x)} to a Decimal: pass a number, a decimal string such as "100" or a Decimal`,
    );
  if (dp === undefined) return d;
  if (!Number.isInteger(dp) || dp < 0)
    throw new IntentError(`toDecimal's dp must be a whole number of decimal places, got ${String(dp)}`);
  return d.toDecimalPlaces(dp, Decimal.ROUND_HALF_EVEN);
}

// The category argument defaults to SPOT; a strategy need not pass it, because the contract stamps the
// bot's own category (and name) on every intent it emits.

/**
 * A market buy spending `quoteAmount` of the quote coin (spec 4.3: a market buy's qty is in quote coin): a
 * Decimal or a decimal string, `buyMarket(symbol, '100', 'entry', 'why')`.
 */
export function buyMarket(
  symbol: string,
  quoteAmount: MoneyInput,
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
  quantity: MoneyInput,
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
  quantity: MoneyInput,
  price: MoneyInput,
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
 * Opens (or adds to) a short: a MARGIN market sell of `quantity` base coin, which the venue lets borrow
 * the coin within the leverage set for it (docs/margin.md). freqtrade's `enter_short`. The bot must be
 * configured `category: MARGIN` (freqtrade's `can_short`); on a SPOT bot the gate refuses it (OVERSELL).
 *
 * @example emit(sellShort(c.symbol, '2', 'short', 'death cross'))
 */
export function sellShort(
  symbol: string,
  quantity: MoneyInput,
  tag: string,
  reason: string,
): MarketSellIntent {
  return sellMarket(symbol, quantity, tag, reason, 'MARGIN');
}

/**
 * Closes (part of) a short: a MARGIN limit buy of `quantity` base coin at `price` at most, whose fill repays
 * the loan (and, with its last part, the interest). A limit, not a market buy: a market buy is sized in the
 * quote coin (spec 4.3) and would cover a quantity the price decides; a limit at or above the ask (within
 * buyLimitPriceRatio) covers exactly `quantity` at once. freqtrade's `exit_short`.
 *
 * @example emit(buyToCover(c.symbol, short.abs(), toDecimal(c.close * 1.01, 2), 'cover', 'golden cross'))
 */
export function buyToCover(
  symbol: string,
  quantity: MoneyInput,
  price: MoneyInput,
  tag: string,
  reason: string,
): LimitIntent {
  return limit(symbol, 'buy', quantity, price, tag, reason, 'MARGIN');
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
    intentDecimal(i.quantity, 'quantity');
    intentDecimal(i.price, 'price');
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
      intentDecimal(i.quoteAmount, 'quoteAmount');
    } else if (i.side === 'sell') {
      if ('quoteAmount' in i) {
        throw new IntentError(
          `a market sell is sized by quantity (base coin), not quoteAmount: use sellMarket(...)`,
        );
      }
      intentDecimal(i.quantity, 'quantity');
    } else {
      throw new IntentError(`side must be "buy" or "sell", got ${JSON.stringify(i.side)}`);
    }
  } else {
    throw new IntentError(`type must be "limit" or "market", got ${JSON.stringify(i.type)}`);
  }
  return value as OrderIntent;
}
