// The one trading pipeline (DESIGN principle 1): intent -> risk gate -> deterministic clientOid ->
// journal -> venue -> fills -> fee -> portfolio -> trading state -> events. The backtester and the live
// bot both drive a Trader; they differ only in the venue adapter behind the Venue port, the journal
// behind the journal port, and how they feed it market state. Neither keeps a copy of any step.
import type { DeliveryStatus } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { Decimal } from '../market/decimal.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import { fillFee, liquidityOf, type FeeRates, type Liquidity } from '../portfolio/fees.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { DenialCode, MarketSnapshot, RiskContext, RiskGate } from '../risk/gate.js';
import type { TradingState, TradingStateMachine } from '../risk/trading-state.js';
import type { StoredFill } from '../store/fills.js';
import { buildStrategyContext } from '../strategy/context.js';
import type { StrategyContext, StrategyLogger } from '../strategy/contract.js';
import type { OrderIntent, TradeCategory } from '../strategy/intent.js';
import type { StrategyState } from '../strategy/state.js';
import { IntentSequencer, deriveClientOid } from './client-oid.js';
import { Executor, type ExecutorLogger, type OrderOutcome } from './executor.js';
import type { TraderJournal } from './journal.js';
import type { Venue, VenueFill, VenueOrder } from './venue.js';

/** A fill as the pipeline booked it: the journaled fill, its liquidity, and the intent's tag. */
export interface TraderFill extends Omit<StoredFill, 'orderId' | 'clientOid'> {
  readonly orderId: string | undefined;
  readonly clientOid: string | undefined;
  readonly liquidity: Liquidity;
  /** True when the venue did not say maker or taker and the pipeline inferred it (see `liquidityOf`). */
  readonly liquidityInferred: boolean;
  readonly tag: string;
}

/** What the pipeline tells its subscribers (logs, metrics, journal views, backtest results, dashboards). */
export type TraderEvent =
  | {
      readonly type: 'intent';
      readonly bot: string;
      readonly ts: number;
      readonly intent: OrderIntent;
      /** When the data the strategy decided on was complete (a candle's close). */
      readonly signalTime: number;
    }
  | {
      readonly type: 'denied';
      readonly bot: string;
      readonly ts: number;
      readonly intent: OrderIntent;
      readonly code: DenialCode;
      readonly message: string;
    }
  | {
      readonly type: 'order';
      readonly bot: string;
      readonly ts: number;
      readonly intent: OrderIntent;
      readonly order: VenueOrder;
      readonly outcome: OrderOutcome;
      /** From the signal's time to the venue's answer, on the pipeline's clock. */
      readonly signalToAnswerMs: number;
    }
  | { readonly type: 'fill'; readonly bot: string; readonly ts: number; readonly fill: TraderFill }
  | {
      readonly type: 'trading-state';
      readonly bot: string;
      readonly ts: number;
      readonly from: TradingState;
      readonly to: TradingState;
      readonly reason: string;
    }
  | { readonly type: 'equity'; readonly bot: string; readonly ts: number; readonly equity: Decimal };

export type TraderListener = (e: TraderEvent) => void;

/** A symbol's latest quote as the gate needs it. Kept raw (wire strings or floats) until an intent needs it. */
export interface Quote {
  last: string | number;
  bid: string | number | undefined;
  ask: string | number | undefined;
  /** When the quote was received (a poll's time) or produced (a candle's close). */
  ts: number;
  deliveryStatus: DeliveryStatus | undefined;
}

/**
 * The market state the gate judges an intent against, fed by the driver: the live bot from its feeds
 * (instruments, tickers, session, suspensions), the backtester from the replayed candles.
 */
export class MarketState {
  private readonly rulesBySymbol = new Map<string, InstrumentRules>();
  private readonly quotes = new Map<string, Quote>();
  private readonly suspendedSymbols = new Set<string>();
  private current: SessionState | undefined;

  setRules(symbol: string, rules: InstrumentRules): void {
    this.rulesBySymbol.set(symbol, rules);
  }
  rules(symbol: string): InstrumentRules | undefined {
    return this.rulesBySymbol.get(symbol);
  }
  /** The quote record of a symbol, created on first use; the driver updates its fields in place. */
  quote(symbol: string): Quote {
    let q = this.quotes.get(symbol);
    if (q === undefined) {
      q = { last: 0, bid: undefined, ask: undefined, ts: 0, deliveryStatus: undefined };
      this.quotes.set(symbol, q);
    }
    return q;
  }
  hasQuote(symbol: string): boolean {
    return this.quotes.has(symbol);
  }
  setSession(s: SessionState): void {
    this.current = s;
  }
  session(): SessionState | undefined {
    return this.current;
  }
  setSuspended(symbol: string, suspended: boolean): void {
    if (suspended) this.suspendedSymbols.add(symbol);
    else this.suspendedSymbols.delete(symbol);
  }
  suspended(symbol: string): boolean {
    return this.suspendedSymbols.has(symbol);
  }
  /** The market snapshot of a symbol, in Decimals (built per intent, never per candle). */
  snapshot(symbol: string): MarketSnapshot | undefined {
    const q = this.quotes.get(symbol);
    if (q === undefined) return undefined;
    const last = new Decimal(q.last);
    return {
      last,
      bid: q.bid === undefined || q.bid === '' ? undefined : new Decimal(q.bid),
      ask: q.ask === undefined || q.ask === '' ? undefined : new Decimal(q.ask),
      ts: q.ts,
    };
  }
}

/** A traded pair: its coins (the portfolio books both). */
export interface TraderPair {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
}

export interface TraderOptions {
  readonly bot: string;
  readonly pairs: readonly TraderPair[];
  readonly venue: Venue;
  readonly journal: TraderJournal;
  readonly clock: Clock;
  readonly gate: RiskGate;
  readonly tradingState: TradingStateMachine;
  readonly portfolio: Portfolio;
  readonly market: MarketState;
  readonly fees: FeeRates;
  /** Signals older than this when they reach the gate are denied STALE_SIGNAL (0: no limit). */
  readonly maxSignalAgeMs?: number | undefined;
  readonly logger?: ExecutorLogger | undefined;
  /** Sends of one order before it is left pending for reconciliation (see Executor). */
  readonly maxAttempts?: number | undefined;
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** The trading pipeline of one bot. */
export class Trader {
  readonly executor: Executor;
  private readonly listeners: TraderListener[] = [];
  private readonly recentOrders: number[] = [];
  private readonly sequencer = new IntentSequencer();
  private readonly pairs: ReadonlyMap<string, TraderPair>;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private syncing: Promise<TraderFill[]> | undefined;
  private readonly trackEquity: boolean;
  private readonly markOf = (symbol: string): Decimal | undefined => this.o.portfolio.markOf(symbol);
  /** Acknowledged limit orders not yet filled in full: base quantity left, by clientOid. */
  private readonly open = new Map<string, { order: VenueOrder; left: Decimal }>();

  constructor(private readonly o: TraderOptions) {
    this.pairs = new Map(o.pairs.map((p) => [p.symbol, p]));
    this.executor = new Executor({
      venue: o.venue,
      journal: o.journal.orders,
      clock: o.clock,
      logger: o.logger,
      maxAttempts: o.maxAttempts,
      sleep: o.sleep,
    });
    // A daily loss limit needs equity at every price; without one, the state only changes at fills.
    this.trackEquity = o.gate.limits.dailyLossLimit !== undefined;
    o.tradingState.onChange((c) =>
      this.emit({ type: 'trading-state', bot: o.bot, ts: c.ts, from: c.from, to: c.to, reason: c.reason }),
    );
  }

  get bot(): string {
    return this.o.bot;
  }
  get portfolio(): Portfolio {
    return this.o.portfolio;
  }
  get market(): MarketState {
    return this.o.market;
  }
  /** The pipeline's clock (the venue's time). */
  clockNow(): number {
    return this.o.clock.now();
  }
  get tradingState(): TradingState {
    return this.o.tradingState.state;
  }

  /** The context the bot's strategy runs with: market state and portfolio as this pipeline knows them. */
  strategyContext<P>(p: {
    params: P;
    logger: StrategyLogger;
    state: StrategyState;
    category: TradeCategory;
  }): StrategyContext<P> {
    const { o } = this;
    return buildStrategyContext({
      bot: o.bot,
      params: p.params,
      clock: o.clock,
      logger: p.logger,
      symbols: o.pairs.map((x) => x.symbol),
      category: p.category,
      rules: (s) => o.market.rules(s),
      portfolio: o.portfolio,
      session: () => o.market.session(),
      state: p.state,
    });
  }

  /** Subscribes to the pipeline's events; answers the unsubscribe function. */
  subscribe(listener: TraderListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Intents accepted and not yet through the pipeline. */
  get busy(): boolean {
    return this.queued > 0;
  }

  /** Resolves when every submitted intent went through (placed, refused or denied, fills synced). */
  idle(): Promise<void> {
    return this.queue;
  }

  /**
   * Takes an intent into the pipeline; intents go through one after the other, in order. `signalTime`
   * is when the data the strategy decided on was complete (the close of the candle it saw).
   */
  submit(intent: OrderIntent, signalTime: number): Promise<void> {
    this.queued++;
    const run = this.queue.then(() => this.handle(intent, signalTime));
    // The caller sees a failed intent through `run`; the queue itself goes on. Were it left rejected, every
    // later intent would be refused unrun, and the rejection (handled by nobody) would end the process.
    this.queue = run
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => this.queued--);
    return run;
  }

  /** The risk context of an intent: THE one place it is built. */
  riskContext(intent: OrderIntent, signalTime: number): RiskContext {
    const { o } = this;
    const s = intent.symbol;
    const q = o.market.hasQuote(s) ? o.market.quote(s) : undefined;
    return {
      now: o.clock.now(),
      rules: o.market.rules(s),
      market: o.market.snapshot(s),
      session: o.market.session(),
      suspended: o.market.suspended(s),
      deliveryStatus: q?.deliveryStatus,
      portfolio: o.portfolio,
      tradingState: o.tradingState.state,
      recentOrderTimes: this.recentOrders,
      markOf: this.markOf,
      signal: { time: signalTime, maxAgeMs: o.maxSignalAgeMs ?? 0 },
    };
  }

  private async handle(intent: OrderIntent, signalTime: number): Promise<void> {
    const { o } = this;
    const now = o.clock.now();
    this.emit({ type: 'intent', bot: o.bot, ts: now, intent, signalTime });
    o.journal.recordIntent(intent, now);
    const d = o.gate.check(intent, this.riskContext(intent, signalTime));
    if (!d.ok) {
      o.journal.recordDenial({ bot: o.bot, code: d.code, message: d.message, intent }, now);
      this.emit({ type: 'denied', bot: o.bot, ts: now, intent, code: d.code, message: d.message });
      return;
    }
    const trigger = signalTime > 0 ? signalTime : now;
    const clientOid = deriveClientOid({
      bot: o.bot,
      symbol: intent.symbol,
      side: intent.side,
      tag: intent.tag,
      triggerTime: trigger,
      seq: this.sequencer.next(trigger),
    });
    this.recentOrders.push(now);
    if (this.recentOrders.length > 64) this.recentOrders.shift();
    const order = { ...d.order, clientOid };
    const outcome = await this.executor.place(order, { bot: o.bot, intent: d.intent });
    const answered = o.clock.now();
    this.emit({
      type: 'order',
      bot: o.bot,
      ts: answered,
      intent: d.intent,
      order,
      outcome,
      signalToAnswerMs: answered - trigger,
    });
    if (outcome.status === 'acked') {
      if (order.orderType === 'limit') this.open.set(clientOid, { order, left: new Decimal(order.qty) });
      await this.syncFills();
    }
  }

  /** Whether a limit order of the bot may still be resting at the venue (its fills are still to come). */
  get hasOpenOrders(): boolean {
    return this.open.size > 0;
  }

  /**
   * Reads the venue's recent fills of every pair and books the new ones, oldest first: journal, fee at
   * the fill's liquidity, portfolio, trading state, events. A fill of another bot's order is left to
   * that bot. Concurrent calls share one sync.
   */
  syncFills(): Promise<TraderFill[]> {
    this.syncing ??= this.pullFills().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private async pullFills(): Promise<TraderFill[]> {
    const booked: TraderFill[] = [];
    for (const pair of this.o.pairs) {
      const fills = await this.o.venue.fills(pair.symbol, 100);
      // Newest first on the wire: booked oldest first, as they happened.
      for (let i = fills.length - 1; i >= 0; i--) booked.push(...this.book(pair, fills[i] as VenueFill));
    }
    if (booked.length > 0) {
      const now = this.o.clock.now();
      this.o.tradingState.update(this.o.portfolio.equity(), now);
    }
    return booked;
  }

  /** Books one venue fill if it is new and ours; answers what was booked (zero or one fill). */
  private book(pair: TraderPair, f: VenueFill): TraderFill[] {
    const { o } = this;
    if (o.journal.hasFill(f.execId)) return [];
    const orders = o.journal.orders;
    const order =
      (f.clientOid ? orders.byClientOid(f.clientOid) : undefined) ??
      (f.orderId ? orders.byOrderId(f.orderId) : undefined);
    if (order?.bot !== undefined && order.bot !== o.bot) return [];
    const ts = Number(f.ts);
    const price = new Decimal(f.price);
    const size = new Decimal(f.size);
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
    const orderId = order?.orderId ?? f.orderId;
    const clientOid = order?.clientOid ?? f.clientOid;
    const input = {
      execId: f.execId,
      bot: o.bot,
      symbol: pair.symbol,
      baseCoin: pair.baseCoin,
      quoteCoin: pair.quoteCoin,
      side: f.side,
      price,
      size,
      fee: fillFee(price, size, liquidity, o.fees),
      feeCoin: pair.quoteCoin,
      ts,
      orderId,
      clientOid,
    };
    const seq = o.journal.addFill(input);
    if (seq === undefined) return [];
    if (clientOid !== undefined) {
      const open = this.open.get(clientOid);
      if (open !== undefined) {
        open.left = open.left.minus(size);
        if (!open.left.gt(0)) this.open.delete(clientOid);
      }
    }
    const fill: TraderFill = {
      ...input,
      seq,
      liquidity,
      liquidityInferred: f.liquidity === undefined,
      tag: order?.intent?.tag ?? '',
    };
    o.portfolio.applyFill(fill);
    this.emit({ type: 'fill', bot: o.bot, ts, fill });
    return [fill];
  }

  /** A new price of a symbol: the portfolio's mark, and the daily loss limit checked when one is set. */
  mark(symbol: string, price: Decimal, now: number): void {
    this.o.portfolio.mark(symbol, price);
    if (this.trackEquity) this.o.tradingState.update(this.o.portfolio.equity(), now);
  }

  /** Whether `mark` does more than set a price (the backtester skips it per candle otherwise). */
  get tracksEquity(): boolean {
    return this.trackEquity;
  }

  /** Emits the current equity (and feeds it to the trading state). */
  sampleEquity(now: number): Decimal {
    const equity = this.o.portfolio.equity();
    this.o.tradingState.update(equity, now);
    this.emit({ type: 'equity', bot: this.o.bot, ts: now, equity });
    return equity;
  }

  /** Drains orders in flight (graceful stop). */
  async drain(): Promise<void> {
    await this.queue;
    await this.executor.drain();
    await this.syncing;
  }

  /** Whether a pair is one of the bot's. */
  trades(symbol: string): boolean {
    return this.pairs.has(symbol);
  }

  private emit(e: TraderEvent): void {
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) (ls[i] as TraderListener)(e);
  }
}
