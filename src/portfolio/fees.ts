// The fee convention shared across tradebot (executor, simulator, backtester) for Reality/spot pairs:
// charged in the QUOTE coin on buys and sells alike, fee = price x size x rate, exact (never rounded).
import { dec, type Decimal, type DecimalLike } from '../market/decimal.js';

/**
 * The fee of a fill in the quote coin: `price x size x rate`, exact.
 *
 * @example feeFor('189.40', '0.125', '0.001') // Decimal 0.023675
 */
export function feeFor(price: DecimalLike, size: DecimalLike, rate: DecimalLike): Decimal {
  const r = dec(rate, 'fee rate');
  if (r.lt(0)) throw new RangeError(`fee rate must not be negative, got ${r.toFixed()}`);
  return dec(price, 'price').times(dec(size, 'size')).times(r);
}
