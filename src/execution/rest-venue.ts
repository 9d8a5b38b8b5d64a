// The live adapter of the Venue port: the RestClient, pointed at the real venue or the simulator.
import type { Instrument, OrderAck, RealityFill, Ticker, WireCandle, CandleInterval } from '../api/index.js';
import type { RestClient } from '../client/index.js';
import type { Venue, VenueOrder } from './venue.js';

export class RestVenue implements Venue {
  constructor(readonly client: RestClient) {}

  async placeOrder(order: VenueOrder): Promise<OrderAck> {
    return this.client.placeRealityOrder({
      category: order.category,
      symbol: order.symbol,
      side: order.side,
      orderType: order.orderType,
      qty: order.qty,
      ...(order.price !== undefined ? { price: order.price } : {}),
      clientOid: order.clientOid,
    });
  }

  fills(symbol: string, limit = 100): Promise<RealityFill[]> {
    return this.client.realityFills({ symbol, limit });
  }

  instruments(category: Instrument['category'], symbol?: string): Promise<Instrument[]> {
    return this.client.instruments({ category, ...(symbol !== undefined ? { symbol } : {}) });
  }

  tickers(category: 'SPOT', symbol?: string): Promise<Ticker[]> {
    return this.client.tickers({ category, ...(symbol !== undefined ? { symbol } : {}) });
  }

  candles(a: {
    category: 'SPOT';
    symbol: string;
    interval: CandleInterval;
    startTime?: number;
    endTime?: number;
    limit?: number;
  }): Promise<WireCandle[]> {
    return this.client.candles({
      category: a.category,
      symbol: a.symbol,
      interval: a.interval,
      ...(a.startTime !== undefined ? { startTime: a.startTime } : {}),
      ...(a.endTime !== undefined ? { endTime: a.endTime } : {}),
      ...(a.limit !== undefined ? { limit: a.limit } : {}),
    });
  }
}
