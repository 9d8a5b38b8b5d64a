// The fee convention shared across tradebot (the pipeline, the simulator, the backtester) for Reality/spot
// pairs: charged in the QUOTE coin on buys and sells alike, fee = price x size x rate, exact (never
// rounded), at the maker rate for a fill that rested on the book and the taker rate otherwise. The venue's
// fills carry no fee and no liquidity (spec 2.13), so where the venue does not say, `liquidityOf` decides.
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

/**
 * The fee of a fill at the rate of its liquidity, from its notional (`price x size`, which the caller
 * books as well): the one fee function of the trading pipeline, equal to `feeFor(price, size, rate)`.
 *
 * @example fillFee(new Decimal('190').times('2'), 'maker', { maker: dec('0.0008'), taker: dec('0.001') }) // 0.304
 */
export function fillFee(notional: Decimal, liquidity: Liquidity, rates: FeeRates): Decimal {
  return notional.times(liquidity === 'maker' ? rates.maker : rates.taker);
}

/** What is known of a fill and its order, for telling maker from taker. */
export interface FillLiquidityContext {
  readonly orderType: 'limit' | 'market';
  readonly side: 'buy' | 'sell';
  /** Limit price of a limit order. */
  readonly limitPrice?: DecimalLike | undefined;
  /** Best bid and ask when the order was placed, if known. */
  readonly bookAtPlacement?: {
    readonly bid?: DecimalLike | undefined;
    readonly ask?: DecimalLike | undefined;
  };
  /** When the venue's acknowledgement arrived and when the fill happened (the same clock), if known. */
  readonly ackedAt?: number | undefined;
  readonly fillTs?: number | undefined;
}

/**
 * The liquidity of a fill when the venue does not say, erring toward taker (the higher fee): a market
 * order takes; a limit order takes when it crossed the book as placed (a buy at or above the ask, a sell
 * at or below the bid) or when its fill is stamped no later than its acknowledgement (it matched on
 * arrival); otherwise it rested and made.
 */
export function liquidityOf(o: FillLiquidityContext): Liquidity {
  if (o.orderType === 'market') return 'taker';
  if (o.ackedAt !== undefined && o.fillTs !== undefined && o.fillTs <= o.ackedAt) return 'taker';
  if (o.limitPrice === undefined || o.bookAtPlacement === undefined) return 'maker';
  const px = dec(o.limitPrice, 'limitPrice');
  const { bid, ask } = o.bookAtPlacement;
  if (o.side === 'buy') return ask !== undefined && ask !== '' && px.gte(dec(ask, 'ask')) ? 'taker' : 'maker';
  return bid !== undefined && bid !== '' && px.lte(dec(bid, 'bid')) ? 'taker' : 'maker';
}
