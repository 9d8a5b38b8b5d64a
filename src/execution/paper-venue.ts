// The paper adapter of the Venue port: the real venue's public data (instruments, tickers, order book,
// public trades, suspensions, calendar) through the deployment's RestClient and its limiter, and orders
// filled locally by the simulator's matching core on a paper account kept in the journal. It never calls
// a private endpoint: its client carries no credentials, so the client refuses one before sending.
//   - a market order walks the order book polled at the order (its age recorded on each fill);
//   - a limit order that crosses takes the book as a taker, up to its price; the rest rests;
//   - a resting limit fills whole at its price, as a maker, when a public trade goes THROUGH it (below it
//     for a buy, above it for a sell): a trade at the price is a touch and fills nothing (the candle fill
//     model's rule, src/sim/candle-fills.ts);
//   - place-reality-order's rules are the simulator's (src/market/reality-order-rules.ts).
import { apiErrorFor, type Instrument, type OrderBook } from '../api/index.js';
import type { RestClient } from '../client/index.js';
import type { Clock } from '../feeds/clock.js';
import { isSuspended } from '../feeds/hub.js';
import { calendarFromWire } from '../feeds/session.js';
import { Decimal, toWire } from '../market/decimal.js';
import {
  limitsRefusal,
  pairRefusal,
  precisionRefusal,
  tradingRefusal,
  type OrderRuleRefusal,
} from '../market/reality-order-rules.js';
import type { MarketCalendarData } from '../market/sessions.js';
import { MatchingCore, type CoreFill, type Level, type MarketView } from '../sim/matching.js';
import {
  PAPER_ACCOUNT_KEY,
  decodePaperAccount,
  encodePaperAccount,
  type PaperJournal,
} from './paper-journal.js';
import { coreOrderOf } from './in-process-venue.js';
import { alreadyPlaced, type Venue, type VenueFill, type VenueOrder, type VenuePlacement } from './venue.js';

export interface PaperVenueOptions {
  /** The venue's client, without credentials (public endpoints only). */
  readonly client: RestClient;
  /** The venue's clock (orders and fills are dated on it, as the venue's public data is). */
  readonly clock: Clock;
  /** Where the paper account is kept (the deployment journal's meta table). */
  readonly journal: PaperJournal;
  /** Starting balances of a new paper account (ignored when the journal has one). */
  readonly balances: Readonly<Record<string, Decimal>>;
  readonly feeRate: Decimal;
  /** Levels of the order book read at a taker order (default 50). */
  readonly bookDepth?: number | undefined;
  /** How long the venue's calendar is reused, ms (default 6 hours). */
  readonly calendarTtlMs?: number | undefined;
}

const ACCOUNT = 'paper';
const PLACE = 'placeRealityOrder';

/** A public trade as the paper market keeps it. */
interface Trade {
  readonly price: Decimal;
  readonly ts: number;
}

/** The MarketView of the paper venue: the book polled at the order, and the public trades since. */
class PaperMarket implements MarketView {
  readonly books = new Map<string, OrderBook>();
  private readonly tapes = new Map<string, Trade[]>();
  private readonly seen = new Map<string, Set<string>>();

  levels(symbol: string, side: 'buy' | 'sell'): Iterable<Level> {
    const book = this.books.get(symbol);
    if (book === undefined) return [];
    const rows = side === 'buy' ? book.a : book.b;
    return rows.map(([p, q]) => ({ price: new Decimal(p), qty: new Decimal(q) }));
  }

  firstTouch(
    symbol: string,
    side: 'buy' | 'sell',
    price: Decimal,
    from: number,
    to: number,
  ): number | undefined {
    let first: number | undefined;
    for (const t of this.tapes.get(symbol) ?? []) {
      if (t.ts < from || t.ts > to) continue;
      const through = side === 'buy' ? t.price.lt(price) : t.price.gt(price);
      if (through && (first === undefined || t.ts < first)) first = t.ts;
    }
    return first;
  }

  /** Adds the public trades not seen before; keeps only those at or after `since`. */
  addTrades(
    symbol: string,
    trades: readonly { execId: string; price: string; ts: string }[],
    since: number,
  ): void {
    const seen = this.seen.get(symbol) ?? new Set<string>();
    const tape = (this.tapes.get(symbol) ?? []).filter((t) => t.ts >= since);
    for (const t of trades) {
      if (seen.has(t.execId)) continue;
      seen.add(t.execId);
      const ts = Number(t.ts);
      if (ts >= since) tape.push({ price: new Decimal(t.price), ts });
    }
    this.tapes.set(symbol, tape);
    // The venue answers the latest 100 trades: remembering the ids of a few pages is enough.
    if (seen.size > 1000) this.seen.set(symbol, new Set(trades.map((t) => t.execId)));
    else this.seen.set(symbol, seen);
  }
}

/**
 * The paper adapter (see the top of this file).
 *
 * @example
 * const venue = await PaperVenue.open({ client, clock, journal: store.meta, balances: { USDT: new Decimal('10000') }, feeRate: new Decimal('0.001') });
 */
export class PaperVenue implements Venue {
  private readonly market = new PaperMarket();
  private readonly core: MatchingCore;
  private readonly instruments = new Map<string, Instrument>();
  private bookAgeMs: Record<string, number> = {};
  private calendar: { data: MarketCalendarData; at: number } | undefined;

  constructor(private readonly o: PaperVenueOptions) {
    this.core = new MatchingCore({ market: this.market, pair: (s) => this.pairOf(s) });
    const saved = o.journal.get(PAPER_ACCOUNT_KEY);
    if (saved !== undefined) {
      const r = decodePaperAccount(saved);
      this.core.restore(r.core);
      this.bookAgeMs = { ...r.bookAgeMs };
    } else {
      this.core.createAccount(ACCOUNT, { balances: o.balances, feeRate: o.feeRate });
      this.save();
    }
  }

  /** Whether the journal held a paper account before this venue opened it. */
  static hasAccount(journal: PaperJournal): boolean {
    return journal.get(PAPER_ACCOUNT_KEY) !== undefined;
  }

  /** The paper account's balances (available and frozen by coin). */
  balances(): Record<string, { available: Decimal; frozen: Decimal }> {
    return this.core.balances(ACCOUNT);
  }

  /** How old the polled book was when a taker fill was made on it (ms), by execId. */
  bookAge(execId: string): number | undefined {
    return this.bookAgeMs[execId];
  }

  /** The paper account's resting limit orders. */
  restingOrders(): { orderId: string; clientOid: string; symbol: string; side: string; price: string }[] {
    return this.core
      .state()
      .orders.filter((o) => o.resting)
      .map((o) => ({
        orderId: o.orderId,
        clientOid: o.clientOid,
        symbol: o.symbol,
        side: o.side,
        price: toWire(o.price ?? new Decimal(0)),
      }));
  }

  async placeOrder(order: VenueOrder): Promise<VenuePlacement> {
    const inst = await this.instrument(order.symbol);
    this.refuse(pairRefusal(inst, order));
    const w = inst as Instrument;
    if (this.core.hasClientOid(ACCOUNT, order.clientOid)) return alreadyPlaced(order.clientOid);
    const code = w.baseCoin;
    const [suspension, calendar, tickers, book] = await Promise.all([
      this.o.client.suspensionResumptionInfo({ code }),
      this.calendarNow(),
      this.o.client.tickers({ category: 'SPOT', symbol: order.symbol }),
      this.o.client.orderbook({ category: 'SPOT', symbol: order.symbol, limit: this.o.bookDepth ?? 50 }),
    ]);
    // Resting orders see the public trades up to this order first (fills in time order).
    await this.catchUp();
    const now = this.o.clock.now();
    const suspended = isSuspended(suspension, now);
    this.refuse(tradingRefusal(w, { realityCode: code, suspended, now, calendar }));
    this.refuse(precisionRefusal(w, order));
    const last = tickers.find((t) => t.symbol === order.symbol)?.lastPrice;
    this.refuse(limitsRefusal(w, order, new Decimal(last ?? book.a[0]?.[0] ?? book.b[0]?.[0] ?? '0')));
    this.market.books.set(order.symbol, book);
    const r = this.core.place(ACCOUNT, coreOrderOf(order), now);
    this.market.books.delete(order.symbol);
    if (!r.ok) throw refusal(r);
    const age = Math.max(0, now - Number(book.ts));
    for (const f of r.fills) this.bookAgeMs[f.execId] = age;
    this.save();
    return { alreadyPlaced: false, orderId: r.order.orderId, clientOid: r.order.clientOid };
  }

  /** The paper account's fills of a pair, newest first, after the resting orders met the public trades. */
  async fills(symbol: string, limit = 100): Promise<VenueFill[]> {
    await this.catchUp();
    return this.core
      .listFills(ACCOUNT, symbol)
      .slice(0, limit)
      .map((f) => paperFill(f));
  }

  /** Reads the public trades of every pair with a resting order and fills those they trade through. */
  private async catchUp(): Promise<void> {
    const resting = this.core.state().orders.filter((o) => o.resting);
    if (resting.length === 0) return;
    const symbols = [...new Set(resting.map((o) => o.symbol))];
    // After a restart the pairs of the resting orders are learnt again before they can fill.
    for (const s of symbols) if (!this.instruments.has(s)) await this.instrument(s);
    const pages = await Promise.all(
      symbols.map((symbol) => this.o.client.fills({ category: 'SPOT', symbol, limit: 100 })),
    );
    const since = Math.min(...resting.map((o) => o.createdAt));
    symbols.forEach((s, i) => this.market.addTrades(s, pages[i] ?? [], since));
    // Only a fill changes the account: a restart looks at the trades since each order again, to the same end.
    if (this.core.advance(this.o.clock.now()).length > 0) this.save();
  }

  private async instrument(symbol: string): Promise<Instrument | undefined> {
    const listed = await this.o.client.instruments({ category: 'SPOT', symbol });
    const inst = listed.find((i) => i.symbol === symbol);
    if (inst !== undefined) this.instruments.set(symbol, inst);
    return inst;
  }

  private pairOf(symbol: string) {
    const i = this.instruments.get(symbol);
    return i === undefined
      ? undefined
      : {
          symbol,
          baseCoin: i.baseCoin,
          quoteCoin: i.quoteCoin,
          quantityPrecision: Number(i.quantityPrecision),
        };
  }

  /** The venue's calendar, read again after its time to live. */
  private async calendarNow(): Promise<MarketCalendarData> {
    const now = this.o.clock.now();
    if (this.calendar !== undefined && now - this.calendar.at < (this.o.calendarTtlMs ?? 21_600_000))
      return this.calendar.data;
    const data = calendarFromWire(await this.o.client.marketCalendar());
    this.calendar = { data, at: now };
    return data;
  }

  /** Throws a rule's refusal as the venue's error. */
  private refuse(r: OrderRuleRefusal | undefined): void {
    if (r !== undefined) throw refusal(r);
  }

  private save(): void {
    this.o.journal.set(
      PAPER_ACCOUNT_KEY,
      encodePaperAccount({ core: this.core.state(), bookAgeMs: this.bookAgeMs }),
    );
  }
}

/** A refusal as the venue's error would read (the same code and sentence), said to be the paper venue's. */
const refusal = (r: OrderRuleRefusal) =>
  apiErrorFor({ code: r.code, msg: `${r.msg} (paper venue)`, endpoint: PLACE, httpStatus: 400 });

/** A paper fill as the port reports it: the wire's five fields, the order's ids and the liquidity. */
const paperFill = (f: CoreFill): VenueFill => ({
  execId: f.execId,
  price: toWire(f.price),
  size: toWire(f.size),
  side: f.side,
  ts: String(f.ts),
  orderId: f.orderId,
  clientOid: f.clientOid,
  liquidity: f.liquidity,
  exact: { price: f.price, size: f.size, ts: f.ts, notional: f.notional },
});
