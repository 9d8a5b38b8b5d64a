// The Venue port (DESIGN principle 1): the trading pipeline places orders and reads fills through this
// interface only. Two adapters: RestVenue (the RestClient, pointed at the real venue or the simulator)
// and InProcessVenue (the simulator's matching core on replayed candles, for backtests).
import { ApiError, type RealityFill } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import type { OrderIntent } from '../market/intent.js';
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

/**
 * What a venue answers to a placement it took. `alreadyPlaced`: the venue refused the clientOid as a
 * duplicate, so an earlier send of this order had landed (its answer was lost); the venue does not tell
 * that order's id then, so `orderId` is undefined.
 */
export type VenuePlacement =
  | { readonly alreadyPlaced: false; readonly orderId: string; readonly clientOid: string }
  | { readonly alreadyPlaced: true; readonly orderId: undefined; readonly clientOid: string };

/** The answer of an adapter whose venue refused a clientOid as a duplicate (every adapter answers it so). */
export const alreadyPlaced = (clientOid: string): VenuePlacement => ({
  alreadyPlaced: true,
  orderId: undefined,
  clientOid,
});

/** Whether a venue's refusal says the clientOid was used already (an earlier send landed). */
export const isDuplicateClientOid = (err: unknown): boolean =>
  err instanceof ApiError && err.kind === 'duplicate_order';

/**
 * The normalised intent each order of the pipeline was written from, by order: its Decimals are the order's
 * exact size and price, which an adapter in this process (the backtest's venue) and the order tracker read
 * instead of parsing the order's strings back. Held weakly: an order forgotten is gone from here too.
 */
const exactIntents = new WeakMap<VenueOrder, OrderIntent>();

/** Records the normalised intent an order's strings were written from (the gate's approval). */
export function noteExact(order: VenueOrder, intent: OrderIntent): void {
  exactIntents.set(order, intent);
}

/** An order's size as a Decimal (a market buy's quote amount, else its base quantity), exact. */
export function exactQty(order: VenueOrder): Decimal {
  const i = exactIntents.get(order);
  if (i === undefined) return new Decimal(order.qty);
  return 'quoteAmount' in i ? i.quoteAmount : i.quantity;
}

/** An order's limit price as a Decimal (undefined for a market order), exact. */
export function exactPrice(order: VenueOrder): Decimal | undefined {
  if (order.price === undefined) return undefined;
  const i = exactIntents.get(order);
  return i !== undefined && i.type === 'limit' ? i.price : new Decimal(order.price);
}

export interface Venue {
  /**
   * Sends an order once (the executor owns the resends). Resolves with the venue's acknowledgement, or
   * `alreadyPlaced` when the venue refused its clientOid as a duplicate; rejects with the venue's
   * typed error (a refusal, or a failure whose outcome is unknown).
   */
  placeOrder(order: VenueOrder): Promise<VenuePlacement>;
  /** The account's recent fills of a Reality pair, newest first (at most `limit`, at most 100). */
  fills(symbol: string, limit?: number): Promise<VenueFill[]>;
}
