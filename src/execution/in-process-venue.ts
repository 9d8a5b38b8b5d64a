// The in-process adapter of the Venue port, for backtests: the simulator's matching core over replayed
// candles (the candle fill model), one account, time set by the replay loop. It answers like the wire:
// an acknowledgement (`alreadyPlaced` for a duplicate clientOid, as RestVenue) or a typed venue error on
// placement, fills read back through `fills()`.
import { apiErrorFor } from '../api/index.js';
import { toWire, type Decimal } from '../market/decimal.js';
import type { MarginModel } from '../market/margin.js';
import { record } from '../market/shapes.js';
import type { CoreFill, MarketView, MatchingCore, PairSpec } from '../sim/matching.js';
import { MatchingCore as Core } from '../sim/matching.js';
import type { FeeRates } from '../portfolio/fees.js';
import {
  alreadyPlaced,
  exactPrice,
  exactQty,
  isDuplicateClientOid,
  type Venue,
  type VenueFill,
  type VenueOrder,
  type VenuePlacement,
} from './venue.js';

export interface InProcessVenueOptions {
  readonly market: MarketView;
  readonly pairs: readonly PairSpec[];
  /** Starting balances by coin. */
  readonly balances: Readonly<Record<string, Decimal>>;
  readonly fees: FeeRates;
  /** The margin model its loans follow (a MARGIN backtest; default the simulator's, DEFAULT_MARGIN_MODEL). */
  readonly margin?: MarginModel | undefined;
}

const ACCOUNT = 'backtest';

/**
 * A venue order as the matching core takes it (the simulator's, the paper venue's): money as Decimals, the
 * pipeline's own (`exactQty`) when the order is one of this process's, parsed from the strings otherwise.
 */
export function coreOrderOf(order: VenueOrder): Parameters<MatchingCore['place']>[1] {
  return {
    symbol: order.symbol,
    side: order.side,
    orderType: order.orderType,
    qty: exactQty(order),
    price: exactPrice(order),
    clientOid: order.clientOid,
  };
}

export class InProcessVenue implements Venue {
  private readonly core: MatchingCore;
  private now = 0;
  /** Fills per symbol not read yet, oldest first. */
  private readonly unreadBySymbol = new Map<string, VenueFill[]>();
  private fresh = 0;

  constructor(o: InProcessVenueOptions) {
    const pairs = new Map(o.pairs.map((p) => [p.symbol, p]));
    this.core = new Core(
      record({ market: o.market, pair: (s) => pairs.get(s), history: false, margin: o.margin }),
    );
    this.core.createAccount(
      ACCOUNT,
      record({
        balances: o.balances,
        makerFeeRate: o.fees.maker,
        takerFeeRate: o.fees.taker,
      }),
    );
  }

  /** Moves the venue's time (the replay loop: a candle's open, then its close). */
  setTime(t: number): void {
    this.now = t;
  }

  /** Fills resting orders up to the venue's time; answers how many new fills there are to read. */
  advance(): number {
    if (this.core.hasResting || this.core.hasLoans) this.keep(this.core.advance(this.now));
    return this.fresh;
  }

  /** Sets the account's cross-margin leverage for a coin (a MARGIN backtest's set-leverage at start). */
  setLeverage(coin: string, leverage: Decimal): void {
    this.core.setLeverage(ACCOUNT, coin, leverage);
  }

  /** Fills booked since the last `fills()` read. */
  get unread(): number {
    return this.fresh;
  }

  placeOrder(order: VenueOrder): Promise<VenuePlacement> {
    const r = this.core.place(ACCOUNT, { ...coreOrderOf(order), category: order.category }, this.now);
    if (!r.ok) {
      const err = apiErrorFor({ code: r.code, msg: r.msg, endpoint: 'placeRealityOrder', httpStatus: 400 });
      return isDuplicateClientOid(err)
        ? Promise.resolve(alreadyPlaced(order.clientOid))
        : Promise.reject(err);
    }
    this.keep(r.fills);
    return Promise.resolve({ alreadyPlaced: false, orderId: r.order.orderId, clientOid: r.order.clientOid });
  }

  /**
   * The symbol's fills not read before, newest first. The wire answers the latest `limit` fills and the
   * pipeline skips those it has booked; answering only the unread ones is the same to it, and keeps a
   * backtest's cost per order constant.
   */
  fills(symbol: string): Promise<VenueFill[]> {
    const unread = this.unreadBySymbol.get(symbol);
    if (unread === undefined || unread.length === 0) return Promise.resolve([]);
    this.fresh -= unread.length;
    this.unreadBySymbol.set(symbol, []);
    return Promise.resolve(unread.reverse());
  }

  private keep(fills: readonly CoreFill[]): void {
    for (const f of fills) {
      let list = this.unreadBySymbol.get(f.symbol);
      if (list === undefined) this.unreadBySymbol.set(f.symbol, (list = []));
      list.push(new InProcessFill(f));
      this.fresh++;
    }
  }
}

/**
 * A fill of the in-process venue as the port reports it: its Decimals handed over as they are (`exact`),
 * the wire's strings written only if someone reads them (the pipeline books from `exact`).
 */
class InProcessFill implements VenueFill {
  [key: string]: unknown;
  readonly execId: string;
  readonly side: 'buy' | 'sell';
  readonly orderId: string;
  readonly clientOid: string;
  readonly liquidity: CoreFill['liquidity'];
  readonly exact: {
    readonly price: Decimal;
    readonly size: Decimal;
    readonly ts: number;
    readonly notional: Decimal;
  };

  constructor(f: CoreFill) {
    this.execId = f.execId;
    this.side = f.side;
    this.orderId = f.orderId;
    this.clientOid = f.clientOid;
    this.liquidity = f.liquidity;
    this.exact = { price: f.price, size: f.size, ts: f.ts, notional: f.notional };
  }
  get price(): string {
    return toWire(this.exact.price);
  }
  get size(): string {
    return toWire(this.exact.size);
  }
  get ts(): string {
    return String(this.exact.ts);
  }
}
