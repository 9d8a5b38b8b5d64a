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

/** Which side of the book a fill took: maker (it rested) or taker (it crossed). */
export type Liquidity = 'maker' | 'taker';

/** What is known of the order behind a fill, for estimating its fee. */
export interface FeeOrderContext {
  readonly orderType: 'limit' | 'market';
  readonly side: 'buy' | 'sell';
  /** Limit price of a limit order. */
  readonly limitPrice?: DecimalLike | undefined;
  /**
   * Best bid and ask when the order was placed. A limit order that crossed them was marketable and
   * took liquidity; without them a limit order is taken to have rested.
   */
  readonly bookAtPlacement?: {
    readonly bid?: DecimalLike | undefined;
    readonly ask?: DecimalLike | undefined;
  };
}

/**
 * The liquidity a fill of this order most likely took: taker for a market order or a marketable
 * limit order (a buy at or above the ask, a sell at or below the bid when it was placed), maker for a
 * limit order that rested.
 */
export function liquidityOf(o: FeeOrderContext): Liquidity {
  if (o.orderType === 'market') return 'taker';
  if (o.limitPrice === undefined || o.bookAtPlacement === undefined) return 'maker';
  const px = dec(o.limitPrice, 'limitPrice');
  const { bid, ask } = o.bookAtPlacement;
  if (o.side === 'buy') return ask !== undefined && px.gte(dec(ask, 'ask')) ? 'taker' : 'maker';
  return bid !== undefined && px.lte(dec(bid, 'bid')) ? 'taker' : 'maker';
}

/** A fee tradebot worked out itself because the venue does not report one (spec 2.13 has no fee). */
export interface EstimatedFee {
  /** In the quote coin, exact (see feeFor). */
  readonly fee: Decimal;
  readonly rate: Decimal;
  readonly liquidity: Liquidity;
  /** Always true: journal, logs and dashboard must show the fee as estimated. */
  readonly estimated: true;
}

/**
 * Estimates the fee of one fill from its order's type: the maker rate for a resting limit order, the
 * taker rate for a market or marketable order (see liquidityOf).
 *
 * @example
 * estimateFee({ price: '190', size: '2' }, { orderType: 'market', side: 'buy' }, { maker: '0.0008', taker: '0.001' })
 * // { fee: Decimal 0.38, rate: Decimal 0.001, liquidity: 'taker', estimated: true }
 */
export function estimateFee(
  fill: { readonly price: DecimalLike; readonly size: DecimalLike },
  order: FeeOrderContext,
  rates: { readonly maker: DecimalLike; readonly taker: DecimalLike },
): EstimatedFee {
  const liquidity = liquidityOf(order);
  const rate = dec(liquidity === 'maker' ? rates.maker : rates.taker, `${liquidity} fee rate`);
  return { fee: feeFor(fill.price, fill.size, rate), rate, liquidity, estimated: true };
}
