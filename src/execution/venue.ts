// The Venue port (DESIGN principle 1): the executor talks to this interface only. One live adapter
// (the RestClient, pointed at the real venue or the simulator) and one in-process adapter (the
// simulator's matching core, for backtests) implement it.
import type { Instrument, OrderAck, RealityFill, Ticker, WireCandle, CandleInterval } from '../api/index.js';

/** An order as sent on the wire (strings), with its idempotency key. */
export interface VenueOrder {
  readonly category: 'SPOT' | 'MARGIN';
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly orderType: 'limit' | 'market';
  /** Quote coin for a market buy, base coin otherwise. */
  readonly qty: string;
  readonly price?: string;
  readonly clientOid: string;
}

export interface Venue {
  /** Places an order; a duplicate clientOid answer resolves to the original acknowledgement. */
  placeOrder(order: VenueOrder): Promise<OrderAck>;
  /** The account's recent fills of a Reality pair, newest first. */
  fills(symbol: string, limit?: number): Promise<RealityFill[]>;
  instruments(category: Instrument['category'], symbol?: string): Promise<Instrument[]>;
  tickers(category: 'SPOT', symbol?: string): Promise<Ticker[]>;
  candles(args: {
    category: 'SPOT';
    symbol: string;
    interval: CandleInterval;
    startTime?: number;
    endTime?: number;
    limit?: number;
  }): Promise<WireCandle[]>;
}
