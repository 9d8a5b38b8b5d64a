// The bot's orders that may still receive fills, by clientOid: tracked from before the send (the venue may
// fill an order before its acknowledgement is back), let go once they take no more fills (refused, a limit
// order filled in full, a market order whose fills were read). Fill attribution, the strategy's open
// orders, what resting orders hold (the gate) and the dashboard read them here.
import { Decimal, ZERO, aboveZero } from '../market/decimal.js';
import type { FeeRates } from '../portfolio/fees.js';
import type { RiskContext } from '../risk/gate.js';
import type { OrderRecord } from '../store/orders.js';
import type { OpenOrderView } from '../strategy/contract.js';
import type { AttributableOrder } from './fill-attribution.js';
import { exactPrice, exactQty, type VenueOrder } from './venue.js';

/** How long a market order may still receive fills after its acknowledgement when none came. */
const MARKET_FILL_WINDOW_MS = 10_000;

/** What the resting limit orders hold, as the gate reads it. */
export type HeldByOrders = NonNullable<RiskContext['heldByOrders']>;

/** An order of the bot that may still receive fills. */
interface TrackedOrder {
  readonly order: VenueOrder;
  /** Its size (quote amount of a market buy, else base) and limit price, as Decimals once. */
  readonly qty: Decimal;
  readonly price: Decimal | undefined;
  /** When it was journaled, just before the send: a fill of it is never older. */
  readonly placedAt: number;
  /** Its place among the sends of its fill router (see `AttributableOrder.sent`); undefined when tracked after a restart. */
  readonly sent: number | undefined;
  /** Base quantity booked so far. */
  filled: Decimal;
  /** Quote amount booked so far (a market buy's size is a quote amount). */
  spent: Decimal;
  /** When the venue answered (a market order is then done once its fills are read). */
  ackedAt: number | undefined;
  /** The intent's tag. */
  readonly tag: string;
}

/** An order in flight as the dashboard shows it. */
export interface OrderInFlight {
  readonly order: VenueOrder;
  readonly placedAt: number;
  readonly filled: Decimal;
}

export interface OrderTrackerOptions {
  readonly bot: string;
  readonly fees: FeeRates;
  /** Told when an order takes no more fills (`TraderJournal.settled`: a memory journal lets it go). */
  readonly settled?: ((clientOid: string) => void) | undefined;
}

/** The orders of one bot that may still receive fills: limit orders until filled in full, market ones until read. */
export class OrderTracker {
  private readonly open = new Map<string, TrackedOrder>();
  /** 1 + the higher fee rate: what a limit buy holds per unit of notional (the rates are the bot's, fixed). */
  private readonly feeMax: Decimal;

  constructor(private readonly o: OrderTrackerOptions) {
    this.feeMax = Decimal.max(o.fees.maker, o.fees.taker).plus(1);
  }

  /** An order about to be sent: attributable from now on. */
  sending(order: VenueOrder, tag: string, placedAt: number, sent: number): void {
    this.open.set(order.clientOid, {
      order,
      qty: exactQty(order),
      price: exactPrice(order),
      placedAt,
      sent,
      filled: ZERO,
      spent: ZERO,
      ackedAt: undefined,
      tag,
    });
  }

  /**
   * The venue's answer: a refused order never fills; one acknowledged (or left pending: it may have landed)
   * stays attributable, a market order's window counted from `at`.
   */
  answered(clientOid: string, refused: boolean, at: number): void {
    if (refused) this.settle(clientOid);
    else {
      const x = this.open.get(clientOid);
      if (x !== undefined) x.ackedAt = at;
    }
  }

  /** Stops tracking an order whose fill was booked otherwise (estimated from its acknowledgement). */
  forget(clientOid: string): void {
    this.open.delete(clientOid);
  }

  /** A fill of an order booked: a limit order filled in full takes no more. */
  filled(clientOid: string, size: Decimal, notional: Decimal): void {
    const x = this.open.get(clientOid);
    if (x === undefined) return;
    x.filled = x.filled.plus(size);
    // Only a market buy is sized in quote coin.
    if (x.order.orderType === 'market') {
      if (x.order.side === 'buy') x.spent = x.spent.plus(notional);
    } else if (!x.filled.lt(x.qty)) this.settle(clientOid);
  }

  /**
   * After a read of the venue's fills: a market order's fills all come at its placement (the venue cancels
   * what the book cannot take), so once a read after its acknowledgement found them, or none came in the
   * window, it takes no more.
   */
  closeMarketOrders(now: number): void {
    for (const [oid, x] of this.open) {
      if (x.order.orderType !== 'market' || x.ackedAt === undefined) continue;
      if (aboveZero(x.filled) || now - x.ackedAt > MARKET_FILL_WINDOW_MS) this.settle(oid);
    }
  }

  /**
   * Tracks a journaled, acknowledged order that may still receive fills (after a restart: the journal's
   * acked orders, with what was booked of them), so fills without ids can be attributed to it.
   */
  track(record: OrderRecord, booked: { base: Decimal; quote: Decimal }): void {
    if (record.state !== 'acked' || this.open.has(record.clientOid)) return;
    const qty = new Decimal(record.order.qty);
    const quoteSized = record.order.orderType === 'market' && record.order.side === 'buy';
    if (!(quoteSized ? booked.quote : booked.base).lt(qty)) return;
    this.open.set(record.clientOid, {
      order: record.order,
      qty,
      price: exactPrice(record.order),
      placedAt: record.createdTs,
      sent: undefined,
      filled: booked.base,
      spent: booked.quote,
      ackedAt: record.updatedTs,
      tag: record.intent?.tag ?? '',
    });
  }

  /** The bot's orders on a symbol that may still receive fills, as fill attribution takes them. */
  attributable(symbol: string): AttributableOrder[] {
    const out: AttributableOrder[] = [];
    for (const [clientOid, x] of this.open) {
      if (x.order.symbol !== symbol) continue;
      const quoteSized = x.order.orderType === 'market' && x.order.side === 'buy';
      out.push({
        bot: this.o.bot,
        clientOid,
        side: x.order.side,
        orderType: x.order.orderType,
        placedAt: x.placedAt,
        sent: x.sent,
        size: x.qty,
        sizeUnit: quoteSized ? 'quote' : 'base',
        filled: quoteSized ? x.spent : x.filled,
        limitPrice: x.price,
        restingSince: x.order.orderType === 'limit' ? x.ackedAt : undefined,
      });
    }
    return out;
  }

  /** The bot's limit orders on a symbol that may still rest at the venue, oldest first. */
  openOrders(symbol: string): OpenOrderView[] {
    const out: OpenOrderView[] = [];
    for (const [clientOid, x] of this.open) {
      if (x.order.symbol !== symbol || x.order.orderType !== 'limit' || x.price === undefined) continue;
      out.push({
        clientOid,
        symbol,
        side: x.order.side,
        price: x.price,
        size: x.qty,
        filled: x.filled,
        placedAt: x.placedAt,
        tag: x.tag,
      });
    }
    return out;
  }

  /** Whether a limit order of the bot may still be resting at the venue (its fills are still to come). */
  /** How many orders are tracked (the bot's in-memory state sizes: none is kept past its last fill). */
  get size(): number {
    return this.open.size;
  }

  get hasOpenLimitOrders(): boolean {
    for (const x of this.open.values()) if (x.order.orderType === 'limit') return true;
    return false;
  }

  /**
   * What the resting limit orders hold: quote coin by buys (with the fee the venue reserves), base of
   * `symbol` by sells; undefined when no limit order rests.
   */
  held(symbol: string | undefined): HeldByOrders | undefined {
    if (!this.hasOpenLimitOrders) return undefined;
    let quote = ZERO;
    let base = ZERO;
    let buys = 0;
    let sells = 0;
    let firstSell: string | undefined;
    const { feeMax } = this;
    // Oldest first: the map keeps the order the sends came in.
    for (const x of this.open.values()) {
      if (x.order.orderType !== 'limit' || x.price === undefined) continue;
      const left = x.qty.minus(x.filled);
      if (!aboveZero(left)) continue;
      if (x.order.side === 'buy') {
        quote = quote.plus(left.mul(x.price).mul(feeMax));
        buys++;
      } else if (x.order.symbol === symbol) {
        base = base.plus(left);
        sells++;
        firstSell ??= x.order.clientOid;
      }
    }
    return buys + sells === 0 ? undefined : { quote, buys, base, sells, firstSell };
  }

  /** Every order that may still receive fills (limit orders resting, market orders being read). */
  inFlight(): OrderInFlight[] {
    return [...this.open.values()].map((x) => ({ order: x.order, placedAt: x.placedAt, filled: x.filled }));
  }

  private settle(clientOid: string): void {
    this.open.delete(clientOid);
    this.o.settled?.(clientOid);
  }
}
