// The live adapter of the Venue port: the RestClient, pointed at the real venue or the simulator.
import type { Instrument, RealityFill, Ticker, WireCandle, CandleInterval } from '../api/index.js';
import type { RestClient } from '../client/index.js';
import {
  alreadyPlaced,
  isDuplicateClientOid,
  type Venue,
  type VenueOrder,
  type VenuePlacement,
} from './venue.js';

export class RestVenue implements Venue {
  constructor(readonly client: RestClient) {}

  /** One send: the executor resends under the same clientOid and journals each attempt (see Executor). */
  async placeOrder(order: VenueOrder): Promise<VenuePlacement> {
    try {
      const ack = await this.client.request(
        'placeRealityOrder',
        {
          category: order.category,
          symbol: order.symbol,
          side: order.side,
          orderType: order.orderType,
          qty: order.qty,
          ...(order.price !== undefined ? { price: order.price } : {}),
          clientOid: order.clientOid,
        },
        { maxAttempts: 1 },
      );
      return { alreadyPlaced: false, orderId: ack.orderId, clientOid: ack.clientOid };
    } catch (err) {
      if (isDuplicateClientOid(err)) return alreadyPlaced(order.clientOid);
      throw err;
    }
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
