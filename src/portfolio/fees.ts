// The fee convention shared across tradebot (the pipeline, the simulator, the backtester) for Reality/spot
// pairs: charged in the QUOTE coin on buys and sells alike, fee = price x size x rate, exact (never
// rounded), at the maker rate for a fill that rested on the book and the taker rate otherwise.
import { dec, type Decimal, type DecimalLike } from '../market/decimal.js';

/** Whether a fill added liquidity (a resting limit order) or took it. */
export type Liquidity = 'maker' | 'taker';

/** The account's fee rates. */
export interface FeeRates {
  readonly maker: Decimal;
  readonly taker: Decimal;
}

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

/** The fee of a fill at the rate of its liquidity: the one fee function of the trading pipeline. */
export function fillFee(
  price: DecimalLike,
  size: DecimalLike,
  liquidity: Liquidity,
  rates: FeeRates,
): Decimal {
  return feeFor(price, size, liquidity === 'maker' ? rates.maker : rates.taker);
}
