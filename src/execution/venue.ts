// The Venue port (DESIGN principle 1): the trading pipeline places orders and reads fills through this
// interface only. Two adapters: RestVenue (the RestClient, pointed at the real venue or the simulator)
// and InProcessVenue (the simulator's matching core on replayed candles, for backtests).
import type { OrderAck, RealityFill } from '../api/index.js';
import type { Decimal } from '../market/decimal.js';
import type { Liquidity } from '../portfolio/fees.js';

export type { VenueOrder } from '../api/index.js';
import type { VenueOrder } from '../api/index.js';

/**
 * A fill as a venue reports it: the spec's five fields (2.13). An adapter that knows more (the
 * in-process venue; the simulator's debug extension) may add the order's ids and the liquidity;
 * the pipeline works without them.
 */
export type VenueFill = RealityFill & {
  readonly orderId?: string | undefined;
  readonly clientOid?: string | undefined;
  readonly liquidity?: Liquidity | undefined;
  /**
   * The price, size and time as the adapter has them (saves parsing the wire's strings back), and
   * price x size when the adapter computed it (saves the product).
   */
  readonly exact?:
    | {
        readonly price: Decimal;
        readonly size: Decimal;
        readonly ts: number;
        readonly notional?: Decimal | undefined;
      }
    | undefined;
};

export interface Venue {
  /** Places an order; a duplicate clientOid answer resolves to the original acknowledgement. */
  placeOrder(order: VenueOrder): Promise<OrderAck>;
  /** The account's recent fills of a Reality pair, newest first (at most `limit`, at most 100). */
  fills(symbol: string, limit?: number): Promise<VenueFill[]>;
}
