// The one trading pipeline (DESIGN principle 1): intent -> risk gate -> deterministic clientOid -> journal
// -> venue -> fills -> portfolio -> events. The backtester and the live bot both drive a Trader; they differ
// only in the venue adapter behind the Venue port, the journal behind the journal port, and how they feed
// it market state. The Trader sequences the steps; each is a component of its own: the gate, the Executor
// (journal and venue), the OrderTracker (orders that may still fill), the FillBooking (fills and fees),
// the TradeGuard (exits and protections) and the OperatorControl (pause, halt, re-arm).
import type { Observable } from 'rxjs';
import type { Clock } from '../feeds/clock.js';
import { floats, record } from '../market/shapes.js';
import { Decimal, ZERO } from '../market/decimal.js';
import type { FeeRates } from '../portfolio/fees.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskContext, RiskGate } from '../risk/gate.js';
import type { TradingState, TradingStateMachine } from '../risk/trading-state.js';
import { buildStrategyContext, type StrategyContextParts } from '../strategy/context.js';
import type { OrderFeedback, StrategyContext, StrategyLogger } from '../strategy/contract.js';
import { isExitReason, type ExitRules, type Protections } from '../strategy/exits.js';
import type { OrderIntent, TradeCategory } from '../strategy/intent.js';
import type { StrategyState } from '../strategy/state.js';
import { IntentSequencer, deriveClientOid } from './client-oid.js';
import { Executor, type ExecutorLogger } from './executor.js';
import type { ExitDecision } from './exits.js';
import { FillBooking, type FillSync, type FillsMode, type TraderPair } from './fill-booking.js';
import { FillRouter } from './fill-router.js';
import type { TraderJournal } from './journal.js';
import type { MarketState } from './market-state.js';
import { OperatorControl } from './operator-control.js';
import { OrderTracker } from './order-tracker.js';
import { TradeGuard } from './trade-guard.js';
import { TraderEvents, type TraderFill, type TraderListener } from './trader-events.js';
import { noteExact, type VenueOrder, type Venue } from './venue.js';

// The pipeline's public types, from the modules that hold them.
export { MarketState, emptyQuote, type Quote } from './market-state.js';
export type { TraderEvent, TraderFill, TraderListener } from './trader-events.js';
export { ESTIMATED_FILL_PREFIX, isEstimatedFill, type FillsMode, type TraderPair } from './fill-booking.js';

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
  /**
   * The attribution step the bots of one account share (the runtime's); default one of the Trader's
   * own, without a baseline (a backtest's venue starts empty).
   */
  readonly fillRouter?: FillRouter | undefined;
  /**
   * `estimated` when the account cannot read its fills (no whitelist access): market orders are booked
   * from the acknowledgement at the touch, limit orders are denied, and the venue is still asked
   * for fills at each sync, so the pipeline switches to `venue` once access arrives. Default `venue`.
   */
  readonly fillsMode?: FillsMode | undefined;
  /** Told when whitelist access arrived in `estimated` mode. */
  readonly onFillsMode?: ((mode: FillsMode) => void) | undefined;
  /** Exits the pipeline evaluates on every price (strategy's declaration merged with the bot's YAML). */
  readonly exits?: ExitRules | undefined;
  /** Entry locks (strategy's declaration merged with the bot's YAML). */
  readonly protections?: Protections | undefined;
  /** Length of the bot's candle, ms: the unit of protections and of the session exit (default 1 minute). */
  readonly intervalMs?: number | undefined;
  /** MARGIN: the cross-margin leverage set per coin at start (set-leverage); the gate's margin check reads it. */
  readonly marginLeverage?: ReadonlyMap<string, Decimal> | undefined;
  /** Category stamped on the pipeline's own exit intents (default SPOT). */
  readonly category?: TradeCategory | undefined;
}

/** What a driver sends into the pipeline: intents, one after the other, and exits. */
export interface IntentPort {
  submit(intent: OrderIntent, signalTime: number): Promise<void>;
  exit(d: ExitDecision, signalTime: number): Promise<void>;
  /** Intents accepted and not yet through the pipeline. */
  readonly busy: boolean;
  /** Resolves when every submitted intent went through. */
  idle(): Promise<void>;
}

/** What a driver tells the pipeline of prices, and asks of its equity. */
export interface EquityPort {
  /** Whether `mark` does more than set a price (the backtester skips it per candle otherwise). */
  readonly tracksEquity: boolean;
  mark(symbol: string, price: Decimal, now: number): void;
  sampleEquity(now: number): Decimal;
}

/** An order the gate approved, on its way to the venue. */
interface Approved {
  readonly intent: OrderIntent;
  readonly order: VenueOrder;
  /** The signal's time (or the decision's, without one): the clientOid's trigger. */
  readonly trigger: number;
  /** When the gate approved it, and the intent as the strategy emitted it (journaled with the order). */
  readonly judgedAt: number;
  readonly asEmitted: OrderIntent;
  /** When the data the strategy decided on was complete, as given to `submit` (the 'intent' event's). */
  readonly signalTime: number;
}

const DONE: Promise<void> = Promise.resolve();

/** The trading pipeline of one bot. */
export class Trader implements IntentPort, FillSync, EquityPort {
  readonly executor: Executor;
  /** The bot's orders that may still receive fills. */
  readonly orders: OrderTracker;
  /** Exits and protections of the bot's trades (a backtest's replay asks its `ExitHooks` per candle). */
  readonly guard: TradeGuard;
  /** The operator's pause, halt and re-arm. */
  readonly control: OperatorControl;
  /** Whether a daily loss limit needs the equity at every price (without one, the state moves at fills). */
  readonly tracksEquity: boolean;
  private readonly events = new TraderEvents();
  private readonly booking: FillBooking;
  private readonly router: FillRouter;
  /** Times of the recent orders: floats from the start (see src/market/shapes.ts). */
  private readonly recentOrders: number[] = floats();
  private readonly sequencer = new IntentSequencer();
  private readonly pairs: ReadonlyMap<string, TraderPair>;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly markOf = (symbol: string): Decimal | undefined => this.o.portfolio.markOf(symbol);
  private readonly leverageOf = (coin: string): Decimal | undefined => this.o.marginLeverage?.get(coin);

  constructor(private readonly o: TraderOptions) {
    const { events } = this;
    this.pairs = new Map(o.pairs.map((p) => [p.symbol, p]));
    this.tracksEquity = o.gate.limits.dailyLossLimit !== undefined;
    this.executor = new Executor(
      record({
        venue: o.venue,
        journal: o.journal.orders,
        clock: o.clock,
        logger: o.logger,
        maxAttempts: o.maxAttempts,
        sleep: o.sleep,
        atomically: (fn) => o.journal.atomically(fn),
        beforeSend: o.journal.beforeSend?.bind(o.journal),
      }),
    );
    this.orders = new OrderTracker(
      record({ bot: o.bot, fees: o.fees, settled: o.journal.settled?.bind(o.journal) }),
    );
    this.router = o.fillRouter ?? new FillRouter(record({ venue: o.venue, now: () => o.clock.now() }));
    this.booking = new FillBooking(
      record({
        bot: o.bot,
        pairs: this.pairs,
        journal: o.journal,
        clock: o.clock,
        fees: o.fees,
        market: o.market,
        orders: this.orders,
        router: this.router,
        mode: o.fillsMode ?? 'venue',
        onFillsMode: o.onFillsMode,
        onFill: (fill) => this.booked(fill),
        onSettled: () => this.settled(),
        liquidatable: (symbol, side) => this.liquidatable(symbol, side),
      }),
    );
    this.guard = new TradeGuard(
      record({
        exits: o.exits,
        protections: o.protections,
        intervalMs: o.intervalMs ?? 60_000,
        market: o.market,
        portfolio: o.portfolio,
        allowedSessions: o.gate.limits.allowedSessions,
        now: o.clock.now(),
        // Logged by the subscribers (the daemon's pipeline events); entries it refuses are journaled denials.
        onLock: (lock) => events.emit({ type: 'protection', bot: o.bot, ts: o.clock.now(), lock }),
      }),
    );
    this.control = new OperatorControl(
      record({
        bot: o.bot,
        clock: o.clock,
        journal: o.journal,
        tradingState: o.tradingState,
        events,
      }),
    );
    o.tradingState.onChange((c) => {
      // A pause or resume under a halt changes no state shown: the control event says it.
      if (c.from !== c.to)
        events.emit({
          type: 'trading-state',
          bot: o.bot,
          ts: c.ts,
          from: c.from,
          to: c.to,
          reason: c.reason,
        });
    });
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
  /** How the pipeline learns its fills now. */
  get fillsMode(): FillsMode {
    return this.booking.mode;
  }
  /** Whether a pair is one of the bot's. */
  hasPair(symbol: string): boolean {
    return this.pairs.has(symbol);
  }

  /** The context the bot's strategy runs with: market state and portfolio as this pipeline knows them. */
  strategyContext<P>(p: {
    params: P;
    logger: StrategyLogger;
    state: StrategyState;
    category: TradeCategory;
    /** Where the strategy's exposed indicator values go (the backtester's lookahead check). */
    expose?: StrategyContext<P>['expose'] | undefined;
    /** Where the strategy's ctx.plot points go (the backtest's series); a live bot drops them. */
    plot?: StrategyContextParts<P>['plot'];
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
      expose: p.expose,
      plot: p.plot,
      quoteCoin: o.portfolio.quoteCoin,
      openOrders: (s) => this.orders.openOrders(s),
      freeCash: () => this.freeCash(),
      unrealisedPnl: (s) => this.unrealisedPnl(s),
    });
  }

  /** Quote cash free for a new buy: the cash minus what resting limit buys hold. */
  freeCash(): Decimal {
    const cash = this.o.portfolio.cash(this.o.portfolio.quoteCoin);
    const h = this.orders.held(undefined);
    return h === undefined ? cash : Decimal.max(cash.minus(h.quote), ZERO);
  }

  /** Unrealised PnL of a symbol's position at its last mark (zero when flat or unmarked). */
  unrealisedPnl(symbol: string): Decimal {
    const p = this.o.portfolio.position(symbol);
    const mark = this.o.portfolio.markOf(symbol);
    if (p.quantity.isZero() || mark === undefined) return ZERO;
    return mark.minus(p.avgPrice).mul(p.quantity);
  }

  /** Subscribes to the pipeline's events; answers the unsubscribe function. */
  subscribe(listener: TraderListener, o: { first?: boolean } = {}): () => void {
    return this.events.subscribe(listener, o);
  }

  /** What became of the bot's intents, as the strategy sees them (the `orders$` input of its run). */
  feedback$(): Observable<OrderFeedback> {
    return this.events.feedback$();
  }

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
    // With nothing ahead of it, an intent is judged at once and an approved order is journaled and sent
    // in the same turn (no hop through the queue's promise: the strategy's tick to the venue's socket is
    // one synchronous run); a denial costs no promise (a backtest denies thousands). Behind others an
    // intent waits its turn, so the gate always sees the fills of the orders before it.
    if (this.queued === 0) {
      let approved: Approved | undefined;
      try {
        approved = this.judge(intent, signalTime);
      } catch (err) {
        return Promise.reject(err);
      }
      if (approved === undefined) return DONE;
      this.queued++;
      return this.queueBehind(this.placeThenTell(approved));
    }
    this.queued++;
    return this.queueBehind(
      this.queue.then(() => {
        const a = this.judge(intent, signalTime);
        return a === undefined ? undefined : this.placeThenTell(a);
      }),
    );
  }

  /**
   * Places an approved order, then tells its 'intent': the order's journal commit and its request run first
   * (place runs synchronously up to the request's write), the subscribers' metrics after, and still before
   * the order's answer and its 'order' event.
   */
  private placeThenTell(a: Approved): Promise<void> {
    const placed = this.place(a);
    this.tellIntent(a.asEmitted, a.judgedAt, a.signalTime);
    return placed;
  }

  private tellIntent(intent: OrderIntent, ts: number, signalTime: number): void {
    this.events.emit({ type: 'intent', bot: this.o.bot, ts, intent, signalTime });
  }

  /** The next intent waits for `run` (counted in `queued` by the caller, before it started). */
  private queueBehind(run: Promise<void>): Promise<void> {
    // The caller sees a failed intent through `run`; the queue itself goes on. Were it left rejected, every
    // later intent would be refused unrun, and the rejection (handled by nobody) would end the process.
    this.queue = run.then(this.dequeue, this.dequeue);
    return run;
  }

  /** An intent went through (or failed): one less in the queue. One function for every intent. */
  private readonly dequeue = (): void => {
    this.queued--;
  };

  /** The risk context of an intent: THE one place it is built. */
  riskContext(intent: OrderIntent, signalTime: number): RiskContext {
    const { o } = this;
    const s = intent.symbol;
    const q = o.market.hasQuote(s) ? o.market.quote(s) : undefined;
    const now = o.clock.now();
    return {
      now,
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
      fillsEstimated: this.booking.mode === 'estimated',
      heldByOrders: this.orders.held(s),
      entryLock: this.guard.lockOf(s, now),
      // A field, not a spread: one shape of context per intent, SPOT or MARGIN, and no copy per intent.
      margin:
        o.category === 'MARGIN'
          ? {
              leverage: this.leverageOf,
              // Accrued up to the venue's now, as the venue counts it (the bot's own LoanBook).
              interest: o.portfolio.margin(now)?.interest ?? ZERO,
            }
          : undefined,
    };
  }

  /**
   * Steps 1-2, the gate and the clientOid: a denial journaled and emitted (after its 'intent'); an approved
   * order, or undefined. An approved intent's 'intent' event is told once its order is sent (placeThenTell).
   */
  private judge(intent: OrderIntent, signalTime: number): Approved | undefined {
    const { o } = this;
    const now = o.clock.now();
    const d = o.gate.check(intent, this.riskContext(intent, signalTime));
    if (!d.ok) {
      this.tellIntent(intent, now, signalTime);
      o.journal.atomically(() => {
        o.journal.recordIntent(intent, now);
        o.journal.recordDenial({ bot: o.bot, code: d.code, message: d.message, intent }, now);
      });
      this.events.emit({
        type: 'denied',
        bot: o.bot,
        ts: now,
        intent,
        code: d.code,
        message: d.message,
        signalTime,
        blockedBy: d.blockedBy,
      });
      // A denied exit is tried again a candle later (a closed session, a suspension ...).
      if (isExitReason(intent.tag)) this.guard.retryLater(intent.symbol, now);
      return undefined;
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
    const order: VenueOrder = Object.assign({}, d.order, { clientOid });
    // Its exact Decimals, for the in-process venue and the order tracker (no strings parsed back).
    noteExact(order, d.intent);
    return {
      intent: d.intent,
      order,
      trigger,
      judgedAt: now,
      asEmitted: intent,
      signalTime,
    };
  }

  /**
   * Steps 3-5: journal, venue (see Executor), the answer; then the fills. A market order first takes its
   * symbol's turn on the account (`FillRouter.marketTurn`) and holds it until its fills are read, so its
   * fills have one order they can belong to; free, the turn costs no promise hop.
   */
  private async place(a: Approved): Promise<void> {
    if (a.order.orderType !== 'market') return this.send(a);
    const turn = this.router.marketTurn(a.order.symbol);
    const release = typeof turn === 'function' ? turn : await turn;
    try {
      await this.send(a);
    } finally {
      release();
    }
  }

  private async send({ intent, order, trigger, judgedAt, asEmitted }: Approved): Promise<void> {
    const { o } = this;
    // Attributable from before the send: the venue may fill it before the acknowledgement is back, and
    // another bot's poll must not take that fill.
    this.orders.sending(order, intent.tag, o.clock.now(), this.router.nextSend());
    // The intent as the strategy emitted it, the order and its first attempt: one commit, then the send.
    const outcome = await this.executor.place(order, { bot: o.bot, intent }, () =>
      o.journal.recordIntent(asEmitted, judgedAt),
    );
    const answered = o.clock.now();
    this.orders.answered(order.clientOid, outcome.status === 'rejected', answered);
    // An exit refused is tried again a candle later; one acknowledged whose fill never comes (a market
    // order the venue cancelled) too, if the position is still there: its fill ends the trade before that.
    if (isExitReason(intent.tag)) this.guard.retryLater(intent.symbol, answered);
    this.events.emit({
      type: 'order',
      bot: o.bot,
      ts: answered,
      intent,
      order,
      outcome,
      signalToAnswerMs: answered - trigger,
    });
    if (outcome.status !== 'acked') return;
    if (this.booking.mode === 'estimated') this.booking.bookEstimated(order, outcome.orderId);
    else await this.booking.syncFills();
  }

  /**
   * What of the bot's position on `symbol` the venue's liquidation would close with a fill of `side`: only a
   * MARGIN bot owing a loan is liquidated; its short by a buy, its long by a sell.
   */
  private liquidatable(symbol: string, side: string): Decimal {
    const { portfolio } = this.o;
    if (!portfolio.owesLoan) return ZERO;
    const q = portfolio.position(symbol).quantity;
    if (side === 'buy') return q.lt(0) ? q.neg() : ZERO;
    return side === 'sell' && q.gt(0) ? q : ZERO;
  }

  /** Steps 6-7, after a fill is journaled (FillBooking): portfolio, exits and protections, events. */
  private booked(fill: TraderFill): void {
    this.o.portfolio.applyFill(fill);
    this.guard.afterFill(fill);
    this.events.emit({ type: 'fill', bot: this.o.bot, ts: fill.ts, fill });
  }

  /**
   * After a sync's fills: the trading state sees the equity. Only a daily loss limit moves it with equity;
   * without one there is nothing to update (and a backtest saves the equity sum per fill).
   */
  private settled(): void {
    if (this.tracksEquity) this.o.tradingState.update(this.o.portfolio.equity(), this.o.clock.now());
  }

  /** Reads the venue's recent fills of every pair and books the new ones (see FillBooking.syncFills). */
  syncFills(pollMs?: number): Promise<TraderFill[]> {
    return this.booking.syncFills(pollMs);
  }

  /** Whether a limit order of the bot may still be resting at the venue (its fills are still to come). */
  get hasOpenOrders(): boolean {
    return this.orders.hasOpenLimitOrders;
  }

  /**
   * A new price of a symbol (live: each ticker poll): the portfolio's mark, the daily loss limit checked
   * when one is set, and the exits of an open trade (sent at market through the gate).
   */
  mark(symbol: string, price: Decimal, now: number): void {
    const { o } = this;
    o.portfolio.mark(symbol, price);
    if (this.tracksEquity) o.tradingState.update(o.portfolio.equity(), now);
    const d = this.guard.atPrice(symbol, price, now);
    // A failure here is the venue's or the journal's, not the price feed's: it is logged, and the exit
    // is tried again on a later price (the book holds it a candle).
    if (d !== undefined)
      this.exit(d, now).catch((err: unknown) => {
        this.guard.retryLater(symbol, o.clock.now());
        o.logger?.warn('exit failed, will retry', {
          bot: o.bot,
          symbol,
          exit: d.reason,
          error: err instanceof Error ? err.message : String(err),
        });
      });
  }

  /** Sends an exit through the pipeline: a market sell of the trade, tagged with its reason. */
  exit(d: ExitDecision, signalTime: number): Promise<void> {
    const intent: OrderIntent = {
      type: 'market',
      side: 'sell',
      symbol: d.symbol,
      category: this.o.category ?? 'SPOT',
      quantity: d.quantity,
      tag: d.reason,
      reason: d.sentence,
      bot: this.o.bot,
    };
    return this.submit(intent, signalTime);
  }

  /**
   * What the pipeline holds in memory, entries by part: none of it may grow with fills or time (the endurance
   * run samples it through the daemon's /metrics).
   */
  stateSizes(): Record<string, number> {
    const { portfolio } = this.o;
    return {
      orders: this.orders.size,
      trades: this.guard.size,
      positions: portfolio.positions().length,
      equitySeries: portfolio.equitySeries().length,
      recentOrders: this.recentOrders.length,
    };
  }

  /** Emits the current equity (and feeds it to the trading state and the protections). */
  sampleEquity(now: number): Decimal {
    const equity = this.o.portfolio.equity();
    this.o.tradingState.update(equity, now);
    this.guard.onEquity(equity, now);
    this.events.emit({ type: 'equity', bot: this.o.bot, ts: now, equity });
    return equity;
  }

  /** Drains orders in flight (graceful stop); then the bot no longer shares the journal's group commits. */
  async drain(): Promise<void> {
    await this.queue;
    await this.executor.drain();
    await this.booking.drain();
    this.o.journal.leave?.();
  }
}
