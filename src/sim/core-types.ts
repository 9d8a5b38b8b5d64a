// Types the matching core shares with its margin accounts (src/sim/margin-accounts.ts): the market port,
// a pair's rules, a balance, a fill and a refusal. Re-exported by matching.ts, where callers find them.
import type { Decimal } from '../market/decimal.js';
import type { Side } from '../market/intent.js';
import type { MarginPairRules } from '../market/margin.js';
import type { Liquidity } from '../portfolio/fees.js';

/** A price level the core can trade against (Decimal price and base quantity). */
export interface Level {
  readonly price: Decimal;
  readonly qty: Decimal;
  /**
   * The level is deeper than any order (the candle fill model's: the liquidity at a candle's open): a
   * taker takes all it asks for there without its depth being compared. `qty` is then only a bound.
   */
  readonly unlimited?: boolean;
}

/** What the core needs from a market. */
export interface MarketView {
  /** Levels a taker order meets at `now`: asks ascending for a buy, bids descending for a sell. */
  levels(symbol: string, side: 'buy' | 'sell', now: number): Iterable<Level>;
  /**
   * The first instant in (from, to] at which a resting order at `price` is reached by the market: for
   * a buy when the traded price falls to `price` or below, for a sell when it rises to it or above.
   */
  firstTouch(
    symbol: string,
    side: 'buy' | 'sell',
    price: Decimal,
    from: number,
    to: number,
  ): number | undefined;
}

/** Trading rules of a pair the core needs. */
export interface PairSpec {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  /** Decimals of a base quantity (market buys round their sizes down to it). */
  readonly quantityPrecision: number;
  /** Decimals of a price (a liquidation's fill price is rounded to it, against the account). */
  readonly pricePrecision?: number | undefined;
  /** The pair's margin limits when it is listed under MARGIN (spec 2.1). */
  readonly margin?: MarginPairRules | undefined;
}

/** One fill of one of the account's orders. */
export interface CoreFill {
  readonly execId: string;
  readonly orderId: string;
  readonly clientOid: string;
  readonly accountId: string;
  readonly symbol: string;
  readonly side: Side;
  readonly price: Decimal;
  readonly size: Decimal;
  /** price x size, exact, in the quote coin (what the fill moved, before its fee). */
  readonly notional: Decimal;
  /** price x size x rate, exact, in the quote coin. */
  readonly fee: Decimal;
  readonly feeCoin: string;
  readonly liquidity: Liquidity;
  readonly ts: number;
}

export interface Balance {
  available: Decimal;
  frozen: Decimal;
}

/** A refusal of the core: a venue error code and a sentence. */
export interface CoreRefusal {
  readonly ok: false;
  readonly code: '25202' | '25203' | '95212' | '40034' | '95401' | '95402' | '95403';
  readonly msg: string;
}
