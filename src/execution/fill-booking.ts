// The pipeline's fill step: the venue's fills read through the account's fill router (or, without
// whitelist access, a market order's fill estimated from its acknowledgement), each journaled once with
// its fee at its liquidity, then handed to the Trader's next steps (portfolio, exits and protections, events).
import { ApiError } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { Decimal, ZERO, aboveZero } from '../market/decimal.js';
import { fillFee, liquidityOf, type FeeRates, type Liquidity } from '../portfolio/fees.js';
import type { OrderRecord } from '../store/orders.js';
import { isExitReason } from '../strategy/exits.js';
import type { AttributableOrder } from './fill-attribution.js';
import type { FillRouter, FillSink, JournaledPart } from './fill-router.js';
import type { TraderJournal } from './journal.js';
import type { MarketState } from './market-state.js';
import type { OrderTracker } from './order-tracker.js';
import type { TraderFill } from './trader-events.js';
import type { VenueFill, VenueOrder } from './venue.js';

/** How the pipeline learns its fills: read from the venue, or estimated from acknowledgements. */
export type FillsMode = 'venue' | 'estimated';

/** The tag of a margin liquidation's fill (it has no order, so no intent's tag). */
export const LIQUIDATION_TAG = 'liquidation';

/** Prefix of the execId of an estimated fill in the journal. */
export const ESTIMATED_FILL_PREFIX = 'est:';

/** Whether a journaled fill was estimated (booked from the acknowledgement), by its execId. */
export const isEstimatedFill = (execId: string): boolean => execId.startsWith(ESTIMATED_FILL_PREFIX);

/** A traded pair: its coins (the portfolio books both). */
export interface TraderPair {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
}

/** What a driver asks of the fill step: read the venue's new fills and book them (a backtest's replay, a poll). */
export interface FillSync {
  /** `pollMs`: a periodic poll every `pollMs` real ms, which may share a recent read (`FillRouter.sync`). */
  syncFills(pollMs?: number): Promise<TraderFill[]>;
}

/** How much worse than the touch an estimated market buy is assumed to fill (10 bps). */
const ESTIMATE_MARGIN = new Decimal('0.001');

/** The venue refused to read fills for want of whitelist access (spec §5; the simulator's 90068). */
function isWhitelistRefusal(err: unknown): boolean {
  return err instanceof ApiError && err.code === '90068';
}

export interface FillBookingOptions {
  readonly bot: string;
  readonly pairs: ReadonlyMap<string, TraderPair>;
  readonly journal: TraderJournal;
  readonly clock: Clock;
  readonly fees: FeeRates;
  readonly market: MarketState;
  readonly orders: OrderTracker;
  /** The attribution step of the account's bots (it registers this bot's booking with it). */
  readonly router: FillRouter;
  readonly mode: FillsMode;
  /** Told when whitelist access arrived in `estimated` mode. */
  readonly onFillsMode?: ((mode: FillsMode) => void) | undefined;
  /** The pipeline's steps after a fill is journaled: portfolio, exits and protections, events. */
  readonly onFill: (fill: TraderFill) => void;
  /** After the fills of one sync (or one estimated fill) were booked: the trading state sees the equity. */
  readonly onSettled: () => void;
  /** What of the bot's position a liquidation's fill of `side` would close (FillSink.liquidatable); none by default. */
  readonly liquidatable?: ((symbol: string, side: string) => Decimal) | undefined;
}

/** The fill step of one bot's pipeline: its FillSink on the account's router. */
export class FillBooking implements FillSink, FillSync {
  private currentMode: FillsMode;
  private syncing: Promise<TraderFill[]> | undefined;
  private nextSync: Promise<TraderFill[]> | undefined;
  /** Fills booked by the sync this bot runs (the router books other bots' fills in the same step). */
  private bookedNow: TraderFill[] | undefined;

  constructor(private readonly o: FillBookingOptions) {
    this.currentMode = o.mode;
    o.router.register(this);
  }

  get bot(): string {
    return this.o.bot;
  }

  /** How the pipeline learns its fills now. */
  get mode(): FillsMode {
    return this.currentMode;
  }

  /**
   * Reads the venue's recent fills of every pair and books the new ones, oldest first. A fill of another
   * bot's order is left to that bot. A call while a sync runs is answered by the next sync, which starts
   * when that one ends (a sync that began before an order was acknowledged may not see its fill); calls in
   * the meantime share it.
   */
  syncFills(pollMs?: number): Promise<TraderFill[]> {
    // A poll needs no read of its own (see `FillRouter.sync`): it shares the sync running. Estimated fills
    // poll for whitelist access, which only a read of their own can tell.
    const poll = this.currentMode === 'venue' ? pollMs : undefined;
    if (poll !== undefined && this.syncing !== undefined) return this.syncing;
    if (this.syncing === undefined) {
      this.syncing = this.pullFills(poll).finally(this.synced);
      return this.syncing;
    }
    this.nextSync ??= this.syncing
      .catch(() => undefined)
      .then(() => {
        this.nextSync = undefined;
        return this.syncFills();
      });
    return this.nextSync;
  }

  /** Resolves when the syncs running or queued are through (graceful stop). */
  async drain(): Promise<void> {
    await this.syncing;
    await this.nextSync;
  }

  /** A sync ended (one function for every sync). */
  private readonly synced = (): void => {
    this.syncing = undefined;
  };

  private async pullFills(pollMs?: number): Promise<TraderFill[]> {
    const { o } = this;
    const booked: TraderFill[] = [];
    this.bookedNow = booked;
    try {
      for (const symbol of o.pairs.keys()) await o.router.sync(symbol, pollMs);
    } catch (err) {
      // Without whitelist access the read is refused; the pipeline stays on estimated fills.
      if (this.currentMode === 'estimated' && isWhitelistRefusal(err)) return booked;
      throw err;
    } finally {
      this.bookedNow = undefined;
    }
    if (this.currentMode === 'estimated') {
      // Whitelist access arrived: from now on fills are the venue's. The router took the baseline at
      // this first successful read, so the real fills of the estimated orders are not booked twice.
      this.currentMode = 'venue';
      o.onFillsMode?.('venue');
    }
    // A poll may have read nothing (it shared a read from before an acknowledgement, or none): only a sync
    // of the bot's own, started after its market orders' acknowledgements, lets them go.
    if (pollMs === undefined) o.orders.closeMarketOrders(o.clock.now());
    return booked;
  }

  /** FillSink: whether the symbol is one of the bot's pairs. */
  hasPair(symbol: string): boolean {
    return this.o.pairs.has(symbol);
  }

  /** FillSink: whether a fill is journaled. */
  hasFill(execId: string): boolean {
    return this.o.journal.hasFill(execId);
  }

  /** FillSink: the journaled order of this bot a fill's ids name. */
  orderOf(f: VenueFill): OrderRecord | undefined {
    const orders = this.o.journal.orders;
    const order =
      (f.clientOid ? orders.byClientOid(f.clientOid) : undefined) ??
      (f.orderId ? orders.byOrderId(f.orderId) : undefined);
    if (order === undefined) return undefined;
    return order.bot === undefined || order.bot === this.o.bot ? order : undefined;
  }

  /** FillSink: the bot's orders on a symbol that may still receive fills. */
  attributableOrders(symbol: string): AttributableOrder[] {
    return this.o.orders.attributable(symbol);
  }

  /**
   * FillSink: books a fill no open order of a bot can take to the deployment: a journal row of no bot, at
   * the taker fee (its order is not known), outside every bot's portfolio.
   */
  bookToDeployment(symbol: string, f: VenueFill): boolean {
    const { o } = this;
    const pair = o.pairs.get(symbol);
    if (pair === undefined || (f.side !== 'buy' && f.side !== 'sell')) return false;
    const price = f.exact?.price ?? new Decimal(f.price);
    const size = f.exact?.size ?? new Decimal(f.size);
    const notional = price.mul(size);
    const liquidity = f.liquidity ?? 'taker';
    const seq = o.journal.addFill({
      execId: f.execId,
      bot: undefined,
      symbol,
      baseCoin: pair.baseCoin,
      quoteCoin: pair.quoteCoin,
      side: f.side,
      price,
      size,
      fee: fillFee(notional, liquidity, o.fees),
      feeCoin: pair.quoteCoin,
      ts: f.exact?.ts ?? Number(f.ts),
      orderId: f.orderId,
      clientOid: f.clientOid,
      liquidity,
      liquidityInferred: f.liquidity === undefined,
    });
    return seq !== undefined;
  }

  /** FillSink: the journal's fills of the symbol since `ts` (the router's conservation check). */
  journaledSince(symbol: string, ts: number): readonly JournaledPart[] | undefined {
    return this.o.journal.fillsSince?.(symbol, ts);
  }

  /** FillSink: what of the bot's position a liquidation's fill of `side` would close. */
  liquidatable(symbol: string, side: string): Decimal {
    return this.o.liquidatable?.(symbol, side) ?? ZERO;
  }

  /** FillSink: the fills of a sync are booked. */
  settle(): void {
    this.o.onSettled();
  }

  /**
   * FillSink: books one venue fill as this bot's: journal, fee at the fill's liquidity (inferred from the
   * order when the venue does not say), the order's tracking, then the pipeline's next steps. A margin
   * liquidation (no order: the venue closed the position) is marked so, tagged `liquidation`, at the taker
   * fee when the venue does not say. Answers false when it was journaled already.
   */
  bookFill(symbol: string, f: VenueFill, order: OrderRecord | undefined, liquidation = false): boolean {
    const { o } = this;
    const pair = o.pairs.get(symbol);
    // A fill journaled already is refused by addFill below, before it touches anything.
    if (pair === undefined) return false;
    // The in-process venue hands its Decimals and time over; the wire's strings are parsed.
    const ts = f.exact?.ts ?? Number(f.ts);
    const price = f.exact?.price ?? new Decimal(f.price);
    const size = f.exact?.size ?? new Decimal(f.size);
    const liquidity =
      f.liquidity ??
      liquidityOf({
        orderType: order?.order.orderType ?? 'market',
        side: f.side,
        limitPrice: order?.order.price,
        // An order still pending has no known acknowledgement time (its answer was lost): its fill is
        // taken as matched on arrival (taker), as it is once a resend's duplicate answer acknowledges it.
        ackedAt: order?.state === 'acked' ? order.updatedTs : order?.state === 'pending' ? ts : undefined,
        fillTs: ts,
      });
    const clientOid = order?.clientOid ?? f.clientOid;
    const notional = f.exact?.notional ?? price.mul(size);
    // One object: journaled, applied to the portfolio and emitted (its seq set once journaled).
    const fill: { -readonly [K in keyof TraderFill]: TraderFill[K] } = {
      seq: 0,
      execId: f.execId,
      bot: o.bot,
      symbol: pair.symbol,
      baseCoin: pair.baseCoin,
      quoteCoin: pair.quoteCoin,
      side: f.side,
      price,
      size,
      notional,
      fee: fillFee(notional, liquidity, o.fees),
      feeCoin: pair.quoteCoin,
      ts,
      orderId: order?.orderId ?? f.orderId,
      clientOid,
      liquidity,
      liquidityInferred: f.liquidity === undefined,
      tag: liquidation ? LIQUIDATION_TAG : (order?.intent?.tag ?? ''),
      exitReason: undefined,
      ...(liquidation ? { liquidation: true as const } : {}),
    };
    if (isExitReason(fill.tag)) fill.exitReason = fill.tag;
    const seq = o.journal.addFill(fill);
    if (seq === undefined) return false;
    fill.seq = seq;
    if (clientOid !== undefined) o.orders.filled(clientOid, size, notional);
    o.onFill(fill);
    this.bookedNow?.push(fill);
    return true;
  }

  /**
   * Books an acknowledged market order as filled in full, marked estimated: without whitelist access
   * the venue's fills cannot be read, and a market order fills at once. The estimate errs on the side
   * the account can honour: a sell is booked at the bid (or last), its exact quantity; a buy's quantity
   * is its quote amount at the ask (or last) plus `ESTIMATE_MARGIN`, rounded down, at the price that
   * spends exactly the quote amount. Booking a buy at the last price overstated the position in the
   * e2e run, and every later sell of it was refused for insufficient balance.
   */
  bookEstimated(order: VenueOrder, orderId: string | undefined): void {
    const { o } = this;
    o.orders.forget(order.clientOid);
    const pair = o.pairs.get(order.symbol);
    const m = o.market.snapshot(order.symbol);
    if (pair === undefined || m === undefined || order.orderType !== 'market') return;
    const ref = (order.side === 'buy' ? m.ask : m.bid) ?? m.last;
    if (!aboveZero(ref)) return;
    const qty = new Decimal(order.qty);
    const rules = o.market.rules(order.symbol);
    const size =
      order.side === 'buy'
        ? qty
            .div(ref.mul(ESTIMATE_MARGIN.plus(1)))
            .toDecimalPlaces(rules?.quantityPrecision ?? 8, Decimal.ROUND_DOWN)
        : qty;
    if (!aboveZero(size)) return;
    const price = order.side === 'buy' ? qty.div(size).toDecimalPlaces(12, Decimal.ROUND_DOWN) : ref;
    const liquidity: Liquidity = 'taker';
    const notional = price.mul(size);
    const input = {
      execId: `${ESTIMATED_FILL_PREFIX}${order.clientOid}`,
      bot: o.bot,
      symbol: pair.symbol,
      baseCoin: pair.baseCoin,
      quoteCoin: pair.quoteCoin,
      side: order.side,
      price,
      size,
      notional,
      fee: fillFee(notional, liquidity, o.fees),
      feeCoin: pair.quoteCoin,
      ts: o.clock.now(),
      orderId,
      clientOid: order.clientOid,
      liquidity,
      liquidityInferred: true,
    };
    const seq = o.journal.addFill(input);
    if (seq === undefined) return;
    const tag = o.journal.orders.byClientOid(order.clientOid)?.intent?.tag ?? '';
    o.onFill({
      ...input,
      seq,
      tag,
      exitReason: isExitReason(tag) ? tag : undefined,
      estimated: true,
    });
    o.onSettled();
  }
}
