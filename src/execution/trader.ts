// The one trading pipeline (DESIGN principle 1): intent -> risk gate -> deterministic clientOid ->
// journal -> venue -> fills -> fee -> portfolio -> trading state -> events. The backtester and the live
// bot both drive a Trader; they differ only in the venue adapter behind the Venue port, the journal
// behind the journal port, and how they feed it market state. Neither keeps a copy of any step.
import { Observable } from 'rxjs';
import { ApiError, type DeliveryStatus } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { Decimal, ZERO, aboveZero } from '../market/decimal.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import { fillFee, liquidityOf, type FeeRates, type Liquidity } from '../portfolio/fees.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { DenialCode, MarketSnapshot, RiskContext, RiskGate } from '../risk/gate.js';
import type { TradingState, TradingStateMachine } from '../risk/trading-state.js';
import type { ControlInput } from '../store/control.js';
import type { StoredFill } from '../store/fills.js';
import type { OrderRecord } from '../store/orders.js';
import { buildStrategyContext } from '../strategy/context.js';
import type { OpenOrderView, OrderFeedback, StrategyContext, StrategyLogger } from '../strategy/contract.js';
import {
  hasExits,
  hasProtections,
  isExitReason,
  type ExitReason,
  type ExitRules,
  type Protections,
} from '../strategy/exits.js';
import type { OrderIntent, TradeCategory } from '../strategy/intent.js';
import type { StrategyState } from '../strategy/state.js';
import { IntentSequencer, deriveClientOid } from './client-oid.js';
import { Executor, type ExecutorLogger, type OrderOutcome } from './executor.js';
import type { AttributableOrder } from './fill-attribution.js';
import { FillRouter, type FillSink } from './fill-router.js';
import { ExitBook, type BarPrices, type ExitDecision } from './exits.js';
import type { TraderJournal } from './journal.js';
import { ProtectionBook, type ProtectionLock } from './protections.js';
import type { Venue, VenueFill, VenueOrder } from './venue.js';

/** A fill as the pipeline booked it: the journaled fill, its liquidity, and the intent's tag. */
export interface TraderFill extends Omit<StoredFill, 'orderId' | 'clientOid'> {
  readonly orderId: string | undefined;
  readonly clientOid: string | undefined;
  readonly liquidity: Liquidity;
  /** price x size, in the quote coin (worked out once per fill: the fee, the portfolio and results use it). */
  readonly notional: Decimal;
  /** True when the venue did not say maker or taker and the pipeline inferred it (see `liquidityOf`). */
  readonly liquidityInferred: boolean;
  readonly tag: string;
  /** Set when the order was one of the pipeline's exits (its tag is the reason). */
  readonly exitReason?: ExitReason | undefined;
  /**
   * The venue's fills could not be read (`fills: estimated`): the fill was made up from the market
   * order's acknowledgement at the touch (see `bookEstimated`); its execId starts with `est:` in the journal.
   */
  readonly estimated?: boolean | undefined;
}

/** How the pipeline learns its fills: read from the venue, or estimated from acknowledgements. */
export type FillsMode = 'venue' | 'estimated';

/** Prefix of the execId of an estimated fill in the journal. */
export const ESTIMATED_FILL_PREFIX = 'est:';

/** Whether a journaled fill was estimated (booked from the acknowledgement), by its execId. */
export const isEstimatedFill = (execId: string): boolean => execId.startsWith(ESTIMATED_FILL_PREFIX);

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
  | { readonly type: 'equity'; readonly bot: string; readonly ts: number; readonly equity: Decimal }
  | {
      readonly type: 'protection';
      readonly bot: string;
      readonly ts: number;
      readonly lock: ProtectionLock;
    }
  | {
      readonly type: 'control';
      readonly bot: string;
      readonly ts: number;
      /** What the operator asked for, who asked and why (journaled before it was applied). */
      readonly control: Omit<ControlInput, 'bot'>;
    };

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

/** A quote record before any price is known (every quote record has this shape). */
export function emptyQuote(): Quote {
  return { last: 0, bid: undefined, ask: undefined, ts: 0, deliveryStatus: undefined };
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
      q = emptyQuote();
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
  /** Category stamped on the pipeline's own exit intents (default SPOT). */
  readonly category?: TradeCategory | undefined;
}

/** A closed trade's cost and proceeds (quote coin), for the low-profit protection. */
interface TradeMoney {
  cost: Decimal;
  proceeds: Decimal;
}

/** The venue refused to read fills for want of whitelist access (spec §5; the simulator's 90068). */
function isWhitelistRefusal(err: unknown): boolean {
  return err instanceof ApiError && err.code === '90068';
}

/** How much worse than the touch an estimated market buy is assumed to fill (10 bps). */
const ESTIMATE_MARGIN = new Decimal('0.001');

/**
 * The orders sent by this process, counted across its Traders: the bots of one deployment share the
 * process and the fill router, and FIFO attribution needs their send order (see `AttributableOrder.sent`).
 */
let sends = 0;

/** How long a market order may still receive fills after its acknowledgement when none came. */
const MARKET_FILL_WINDOW_MS = 10_000;

/** An order of the bot that may still receive fills. */
interface OpenOrder {
  readonly order: VenueOrder;
  /** When it was journaled, just before the send: a fill of it is never older. */
  readonly placedAt: number;
  /** Its place among this process's sends (see `AttributableOrder.sent`); undefined when tracked after a restart. */
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

/** An order the gate approved, on its way to the venue. */
interface Approved {
  readonly intent: OrderIntent;
  readonly order: VenueOrder;
  /** The signal's time (or the decision's, without one): the clientOid's trigger. */
  readonly trigger: number;
  /** When the gate approved it, and the intent as the strategy emitted it (journaled with the order). */
  readonly judgedAt: number;
  readonly asEmitted: OrderIntent;
}

const DONE: Promise<void> = Promise.resolve();

/** The trading pipeline of one bot. */
export class Trader implements FillSink {
  readonly executor: Executor;
  private readonly listeners: TraderListener[] = [];
  private readonly recentOrders: number[] = [];
  private readonly sequencer = new IntentSequencer();
  private readonly pairs: ReadonlyMap<string, TraderPair>;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private syncing: Promise<TraderFill[]> | undefined;
  private nextSync: Promise<TraderFill[]> | undefined;
  private readonly trackEquity: boolean;
  private readonly markOf = (symbol: string): Decimal | undefined => this.o.portfolio.markOf(symbol);
  /** Orders that may still receive fills, by clientOid: limit orders until filled in full, market ones until read. */
  private readonly open = new Map<string, OpenOrder>();
  private readonly router: FillRouter;
  private mode: FillsMode;
  /** Undefined when no exit is configured: the pipeline then does no exit work at all. */
  private readonly exitBook: ExitBook | undefined;
  private readonly protect: ProtectionBook | undefined;
  private readonly tradeMoney = new Map<string, TradeMoney>();
  private readonly intervalMs: number;
  private pausedByOperator = false;

  constructor(private readonly o: TraderOptions) {
    this.pairs = new Map(o.pairs.map((p) => [p.symbol, p]));
    this.executor = new Executor({
      venue: o.venue,
      journal: o.journal.orders,
      clock: o.clock,
      logger: o.logger,
      maxAttempts: o.maxAttempts,
      sleep: o.sleep,
      atomically: (fn) => o.journal.atomically(fn),
    });
    // A daily loss limit needs equity at every price; without one, the state only changes at fills.
    this.trackEquity = o.gate.limits.dailyLossLimit !== undefined;
    this.mode = o.fillsMode ?? 'venue';
    this.router = o.fillRouter ?? new FillRouter({ venue: o.venue, now: () => o.clock.now() });
    this.router.register(this);
    this.intervalMs = o.intervalMs ?? 60_000;
    this.exitBook = hasExits(o.exits)
      ? new ExitBook({
          rules: o.exits as ExitRules,
          pricePrecision: (s) => o.market.rules(s)?.pricePrecision ?? 8,
          instrument: (s) => o.market.rules(s),
          intervalMs: this.intervalMs,
          allowedSessions: o.gate.limits.allowedSessions,
        })
      : undefined;
    // After a restart the journal's positions are open trades again (their time in trade counts from now).
    if (this.exitBook !== undefined)
      for (const p of o.portfolio.positions())
        if (aboveZero(p.quantity)) this.exitBook.onPosition(p.symbol, p.quantity, p.avgPrice, o.clock.now());
    this.protect = hasProtections(o.protections)
      ? new ProtectionBook(o.protections as Protections, this.intervalMs, (lock) =>
          // Logged by the subscribers (the daemon's pipeline events); entries it refuses are journaled denials.
          this.emit({ type: 'protection', bot: o.bot, ts: o.clock.now(), lock }),
        )
      : undefined;
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
    /** Where the strategy's exposed indicator values go (the backtester's lookahead check). */
    expose?: StrategyContext<P>['expose'] | undefined;
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
      quoteCoin: o.portfolio.quoteCoin,
      openOrders: (s) => this.openOrders(s),
      freeCash: () => this.freeCash(),
      unrealisedPnl: (s) => this.unrealisedPnl(s),
    });
  }

  /** The bot's limit orders on a symbol that may still rest at the venue, oldest first. */
  openOrders(symbol: string): OpenOrderView[] {
    const out: OpenOrderView[] = [];
    for (const [clientOid, x] of this.open) {
      if (x.order.symbol !== symbol || x.order.orderType !== 'limit' || x.order.price === undefined) continue;
      out.push({
        clientOid,
        symbol,
        side: x.order.side,
        price: new Decimal(x.order.price),
        size: new Decimal(x.order.qty),
        filled: x.filled,
        placedAt: x.placedAt,
        tag: x.tag,
      });
    }
    return out;
  }

  /** What the resting limit orders hold: quote coin by buys (with the fee the venue reserves), base by sells. */
  private held(symbol: string | undefined): NonNullable<RiskContext['heldByOrders']> | undefined {
    let quote = ZERO;
    let base = ZERO;
    let buys = 0;
    let sells = 0;
    const feeMax = Decimal.max(this.o.fees.maker, this.o.fees.taker).plus(1);
    for (const x of this.open.values()) {
      if (x.order.orderType !== 'limit' || x.order.price === undefined) continue;
      const left = new Decimal(x.order.qty).minus(x.filled);
      if (!aboveZero(left)) continue;
      if (x.order.side === 'buy') {
        quote = quote.plus(left.mul(x.order.price).mul(feeMax));
        buys++;
      } else if (x.order.symbol === symbol) {
        base = base.plus(left);
        sells++;
      }
    }
    return buys + sells === 0 ? undefined : { quote, buys, base, sells };
  }

  /** Quote cash free for a new buy: the cash minus what resting limit buys hold. */
  freeCash(): Decimal {
    const cash = this.o.portfolio.cash(this.o.portfolio.quoteCoin);
    const h = this.hasOpenOrders ? this.held(undefined) : undefined;
    return h === undefined ? cash : Decimal.max(cash.minus(h.quote), ZERO);
  }

  /** Unrealised PnL of a symbol's position at its last mark (zero when flat or unmarked). */
  unrealisedPnl(symbol: string): Decimal {
    const p = this.o.portfolio.position(symbol);
    const mark = this.o.portfolio.markOf(symbol);
    if (p.quantity.isZero() || mark === undefined) return ZERO;
    return mark.minus(p.avgPrice).mul(p.quantity);
  }

  /**
   * What became of the bot's intents, as the strategy sees them (the `orders$` input of its run):
   * denials, placements, refusals and fills, delivered as the pipeline emits them.
   */
  feedback$(): Observable<OrderFeedback> {
    return new Observable<OrderFeedback>((sub) =>
      this.subscribe((e) => {
        switch (e.type) {
          case 'denied':
            sub.next({ type: 'denied', ts: e.ts, intent: e.intent, code: e.code, message: e.message });
            break;
          case 'order':
            if (e.outcome.status === 'acked')
              sub.next({
                type: 'placed',
                ts: e.ts,
                intent: e.intent,
                clientOid: e.outcome.clientOid,
                orderId: e.outcome.orderId,
              });
            else if (e.outcome.status === 'rejected')
              sub.next({
                type: 'refused',
                ts: e.ts,
                intent: e.intent,
                clientOid: e.outcome.clientOid,
                code: e.outcome.code,
                message: e.outcome.message,
              });
            break;
          case 'fill': {
            const f = e.fill;
            sub.next({
              type: 'fill',
              ts: e.ts,
              fill: {
                symbol: f.symbol,
                side: f.side,
                price: f.price,
                size: f.size,
                fee: f.fee,
                tag: f.tag,
                clientOid: f.clientOid,
                exitReason: f.exitReason,
                ts: f.ts,
              },
            });
            break;
          }
          default:
            break;
        }
      }),
    );
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
      return this.queueBehind(this.place(approved));
    }
    return this.enqueue(async () => {
      const a = this.judge(intent, signalTime);
      if (a !== undefined) await this.place(a);
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queued++;
    return this.queueBehind(this.queue.then(step));
  }

  /** The next intent waits for `run` (counted in `queued` by the caller, before it started). */
  private queueBehind(run: Promise<void>): Promise<void> {
    // The caller sees a failed intent through `run`; the queue itself goes on. Were it left rejected, every
    // later intent would be refused unrun, and the rejection (handled by nobody) would end the process.
    this.queue = run.then(this.dequeue, this.dequeue);
    return run;
  }

  /** A sync ended (one function for every sync). */
  private readonly synced = (): void => {
    this.syncing = undefined;
  };

  /** An intent went through (or failed): one less in the queue. One function for every intent. */
  private readonly dequeue = (): void => {
    this.queued--;
  };

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
      fillsEstimated: this.mode === 'estimated',
      heldByOrders: this.hasOpenOrders ? this.held(s) : undefined,
      entryLock: this.protect?.lockOf(s, o.clock.now())?.reason,
      paused: this.pausedByOperator,
    };
  }

  /** The intent through the gate: journaled and emitted; an approved order with its clientOid, or undefined. */
  private judge(intent: OrderIntent, signalTime: number): Approved | undefined {
    const { o } = this;
    const now = o.clock.now();
    this.emit({ type: 'intent', bot: o.bot, ts: now, intent, signalTime });
    const d = o.gate.check(intent, this.riskContext(intent, signalTime));
    if (!d.ok) {
      o.journal.atomically(() => {
        o.journal.recordIntent(intent, now);
        o.journal.recordDenial({ bot: o.bot, code: d.code, message: d.message, intent }, now);
      });
      this.emit({ type: 'denied', bot: o.bot, ts: now, intent, code: d.code, message: d.message });
      // A denied exit is tried again a candle later (a closed session, a suspension ...).
      if (isExitReason(intent.tag)) this.exitBook?.retryFrom(intent.symbol, now + this.intervalMs);
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
    return {
      intent: d.intent,
      order: Object.assign({}, d.order, { clientOid }),
      trigger,
      judgedAt: now,
      asEmitted: intent,
    };
  }

  /** An approved order to the venue (journal first, see Executor), then its fills. */
  private async place({ intent, order, trigger, judgedAt, asEmitted }: Approved): Promise<void> {
    const { o } = this;
    const clientOid = order.clientOid;
    // Attributable from before the send: the venue may fill it before the acknowledgement is back, and
    // another bot's poll must not take that fill.
    this.open.set(clientOid, {
      order,
      placedAt: o.clock.now(),
      sent: ++sends,
      filled: ZERO,
      spent: ZERO,
      ackedAt: undefined,
      tag: intent.tag,
    });
    // The intent as the strategy emitted it, the order and its first attempt: one commit, then the send.
    const outcome = await this.executor.place(order, { bot: o.bot, intent }, () =>
      o.journal.recordIntent(asEmitted, judgedAt),
    );
    const answered = o.clock.now();
    const open = this.open.get(clientOid);
    // A refused order never fills. One left pending may have landed: it stays attributable (a market
    // order's window counted from now).
    if (outcome.status === 'rejected') {
      this.open.delete(clientOid);
      o.journal.settled?.(clientOid);
      if (isExitReason(intent.tag)) this.exitBook?.retryFrom(intent.symbol, answered + this.intervalMs);
    } else {
      if (open !== undefined) open.ackedAt = answered;
      // An acknowledged exit whose fill never comes (a market order the venue cancelled) is sent again a
      // candle later if the position is still there; its fill ends the trade before that.
      if (isExitReason(intent.tag)) this.exitBook?.retryFrom(intent.symbol, answered + this.intervalMs);
    }
    this.emit({
      type: 'order',
      bot: o.bot,
      ts: answered,
      intent,
      order,
      outcome,
      signalToAnswerMs: answered - trigger,
    });
    if (outcome.status !== 'acked') return;
    if (this.mode === 'estimated') this.bookEstimated(order, outcome.orderId);
    else await this.syncFills();
  }

  /** How the pipeline learns its fills now. */
  get fillsMode(): FillsMode {
    return this.mode;
  }

  /**
   * Books an acknowledged market order as filled in full, marked estimated: without whitelist access
   * the venue's fills cannot be read, and a market order fills at once. The estimate errs on the side
   * the account can honour: a sell is booked at the bid (or last), its exact quantity; a buy's quantity
   * is its quote amount at the ask (or last) plus `ESTIMATE_MARGIN`, rounded down, at the price that
   * spends exactly the quote amount. Booking a buy at the last price overstated the position in the
   * e2e run, and every later sell of it was refused for insufficient balance.
   */
  private bookEstimated(order: VenueOrder, orderId: string | undefined): void {
    const { o } = this;
    this.open.delete(order.clientOid);
    const pair = this.pairs.get(order.symbol);
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
    const ts = o.clock.now();
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
      ts,
      orderId,
      clientOid: order.clientOid,
    };
    const seq = o.journal.addFill(input);
    if (seq === undefined) return;
    const record = o.journal.orders.byClientOid(order.clientOid);
    const tag = record?.intent?.tag ?? '';
    const fill: TraderFill = {
      ...input,
      seq,
      liquidity,
      liquidityInferred: true,
      tag,
      exitReason: isExitReason(tag) ? tag : undefined,
      estimated: true,
    };
    o.portfolio.applyFill(fill);
    this.afterFill(fill);
    this.emit({ type: 'fill', bot: o.bot, ts, fill });
    this.settle();
  }

  /** Whether a limit order of the bot may still be resting at the venue (its fills are still to come). */
  get hasOpenOrders(): boolean {
    for (const x of this.open.values()) if (x.order.orderType === 'limit') return true;
    return false;
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
      placedAt: record.createdTs,
      sent: undefined,
      filled: booked.base,
      spent: booked.quote,
      ackedAt: record.updatedTs,
      tag: record.intent?.tag ?? '',
    });
  }

  /**
   * Reads the venue's recent fills of every pair and books the new ones, oldest first: journal, fee at
   * the fill's liquidity, portfolio, trading state, events. A fill of another bot's order is left to
   * that bot. A call while a sync runs is answered by the next sync, which starts when that one ends (a
   * sync that began before an order was acknowledged may not see its fill); calls in the meantime share it.
   */
  syncFills(): Promise<TraderFill[]> {
    if (this.syncing === undefined) {
      this.syncing = this.pullFills().finally(this.synced);
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

  private async pullFills(): Promise<TraderFill[]> {
    const booked: TraderFill[] = [];
    this.bookedNow = booked;
    try {
      for (const pair of this.o.pairs) await this.router.sync(pair.symbol);
    } catch (err) {
      // Without whitelist access the read is refused; the pipeline stays on estimated fills.
      if (this.mode === 'estimated' && isWhitelistRefusal(err)) return booked;
      throw err;
    } finally {
      this.bookedNow = undefined;
    }
    if (this.mode === 'estimated') {
      // Whitelist access arrived: from now on fills are the venue's. The router took the baseline at
      // this first successful read, so the real fills of the estimated orders are not booked twice.
      this.mode = 'venue';
      this.o.onFillsMode?.('venue');
    }
    // A market order's fills all come at its placement (the venue cancels what the book cannot take):
    // once a read after its acknowledgement found them, or none came in the window, it takes no more.
    const now = this.o.clock.now();
    for (const [oid, x] of this.open) {
      if (x.order.orderType !== 'market' || x.ackedAt === undefined) continue;
      if (aboveZero(x.filled) || now - x.ackedAt > MARKET_FILL_WINDOW_MS) {
        this.open.delete(oid);
        this.o.journal.settled?.(oid);
      }
    }
    return booked;
  }

  /** Fills booked by the sync this Trader runs (the router books other bots' fills in the same step). */
  private bookedNow: TraderFill[] | undefined;

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
        size: new Decimal(x.order.qty),
        sizeUnit: quoteSized ? 'quote' : 'base',
        filled: quoteSized ? x.spent : x.filled,
        limitPrice: x.order.price === undefined ? undefined : new Decimal(x.order.price),
      });
    }
    return out;
  }

  /**
   * FillSink: the trading state sees the equity after a sync's fills. Only a daily loss limit moves it
   * with equity; without one there is nothing to update (and a backtest saves the equity sum per fill).
   */
  settle(): void {
    if (this.trackEquity) this.o.tradingState.update(this.o.portfolio.equity(), this.o.clock.now());
  }

  /**
   * FillSink: books one venue fill as this bot's: journal, fee at the fill's liquidity (inferred from
   * the order when the venue does not say), portfolio, events. Answers false when it was journaled already.
   */
  bookFill(symbol: string, f: VenueFill, order: OrderRecord | undefined): boolean {
    const { o } = this;
    const pair = this.pairs.get(symbol);
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
      tag: order?.intent?.tag ?? '',
      exitReason: undefined,
    };
    if (isExitReason(fill.tag)) fill.exitReason = fill.tag;
    const seq = o.journal.addFill(fill);
    if (seq === undefined) return false;
    fill.seq = seq;
    if (clientOid !== undefined) {
      const open = this.open.get(clientOid);
      if (open !== undefined) {
        open.filled = open.filled.plus(size);
        // Only a market buy is sized in quote coin.
        if (open.order.orderType === 'market') {
          if (open.order.side === 'buy') open.spent = open.spent.plus(notional);
        } else if (!open.filled.lt(open.order.qty)) {
          this.open.delete(clientOid);
          o.journal.settled?.(clientOid);
        }
      }
    }
    o.portfolio.applyFill(fill);
    this.afterFill(fill);
    this.bookedNow?.push(fill);
    this.emit({ type: 'fill', bot: o.bot, ts, fill });
    return true;
  }

  /**
   * A new price of a symbol (live: each ticker poll): the portfolio's mark, the daily loss limit checked
   * when one is set, and the exits of an open trade (sent at market through the gate).
   */
  mark(symbol: string, price: Decimal, now: number): void {
    this.o.portfolio.mark(symbol, price);
    if (this.trackEquity) this.o.tradingState.update(this.o.portfolio.equity(), now);
    if (this.exitBook?.holds(symbol) === true) {
      const d = this.exitBook.atPrice(symbol, price.toNumber(), now, this.o.market.session());
      // A failure here is the venue's or the journal's, not the price feed's: it is logged, and the exit
      // is tried again on a later price (the book holds it a candle).
      if (d !== undefined)
        this.exit(d, now).catch((err: unknown) => {
          this.exitBook?.retryFrom(symbol, this.o.clock.now() + this.intervalMs);
          this.o.logger?.warn('exit failed, will retry', {
            bot: this.o.bot,
            symbol,
            exit: d.reason,
            error: err instanceof Error ? err.message : String(err),
          });
        });
    }
  }

  /** After a fill is booked: the exits follow the position; a closed trade reaches the protections. */
  private afterFill(fill: TraderFill): void {
    const { o } = this;
    if (this.exitBook === undefined && this.protect === undefined) return;
    const p = o.portfolio.position(fill.symbol);
    this.exitBook?.onPosition(fill.symbol, p.quantity, p.avgPrice, fill.ts);
    const pr = this.protect;
    if (pr === undefined) return;
    let m = this.tradeMoney.get(fill.symbol);
    if (m === undefined) this.tradeMoney.set(fill.symbol, (m = { cost: ZERO, proceeds: ZERO }));
    if (fill.side === 'buy') m.cost = m.cost.plus(fill.notional).plus(fill.fee);
    else m.proceeds = m.proceeds.plus(fill.notional).minus(fill.fee);
    if (p.quantity.isZero() && aboveZero(m.cost)) {
      const profit = m.proceeds.div(m.cost).minus(1).toNumber();
      this.tradeMoney.delete(fill.symbol);
      pr.onTradeClosed(fill.symbol, profit, fill.exitReason, fill.ts);
    }
    if (pr.watchesEquity) pr.onEquity(o.portfolio.equity(), fill.ts);
  }

  /** Whether an exit may trigger (a trade is open and exits are set): the backtester asks per candle. */
  get exitsArmed(): boolean {
    return this.exitBook?.armed === true;
  }

  /** Whether a time exit may be due (a trade is open and maxTradeMinutes or sessionEnd is set). */
  get timeExitsArmed(): boolean {
    const book = this.exitBook;
    return book !== undefined && book.hasTimeExits && book.armed;
  }

  /** A backtest's candle of a symbol through the price exits (see src/execution/exits.ts for the order). */
  barExit(symbol: string, bar: BarPrices): ExitDecision | undefined {
    return this.exitBook?.onBar(symbol, bar);
  }

  /** The time exits (maxTradeMinutes, sessionEnd) due at `now`. */
  timedExits(now: number): ExitDecision[] | undefined {
    return this.exitBook?.timedExits(now, this.o.market.session());
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

  /** The exits in force (the strategy's declaration merged with the bot's YAML), undefined when none. */
  get exitRules(): ExitRules | undefined {
    return this.exitBook === undefined ? undefined : this.o.exits;
  }

  /** The protections configured, undefined when none. */
  get protectionRules(): Protections | undefined {
    return this.protect === undefined ? undefined : this.o.protections;
  }

  /** The protections' locks in force now (for /readyz and the logs). */
  protectionLocks(): ProtectionLock[] {
    return this.protect?.active(this.o.clock.now()) ?? [];
  }

  /** Whether `mark` does more than set a price (the backtester skips it per candle otherwise). */
  get tracksEquity(): boolean {
    return this.trackEquity;
  }

  /** Emits the current equity (and feeds it to the trading state). */
  sampleEquity(now: number): Decimal {
    const equity = this.o.portfolio.equity();
    this.o.tradingState.update(equity, now);
    if (this.protect?.watchesEquity === true) this.protect.onEquity(equity, now);
    this.emit({ type: 'equity', bot: this.o.bot, ts: now, equity });
    return equity;
  }

  /** Whether the operator paused the bot: the gate denies new entries (PAUSED); exits still run. */
  get paused(): boolean {
    return this.pausedByOperator;
  }

  /** Pauses (true) or resumes (false) new entries; see the gate's `paused` check. */
  setPaused(paused: boolean): void {
    this.pausedByOperator = paused;
  }

  /** The kill switch by hand: HALTED until `rearm` (a new day does not lift it). */
  halt(reason: string): void {
    this.o.tradingState.halt(reason, this.o.clock.now());
  }

  /** HALTED (or REDUCING) -> ACTIVE, only ever by an explicit action. */
  rearm(reason: string): void {
    this.o.tradingState.resume(reason, this.o.clock.now());
  }

  /** Every order of the bot that may still receive fills (limit orders resting, market orders being read). */
  ordersInFlight(): { readonly order: VenueOrder; readonly placedAt: number; readonly filled: Decimal }[] {
    return [...this.open.values()].map((x) => ({ order: x.order, placedAt: x.placedAt, filled: x.filled }));
  }

  /** Journals an operator's action (who and why) and emits it, before the action is applied. */
  recordControl(c: Omit<ControlInput, 'bot'>): void {
    const now = this.o.clock.now();
    this.o.journal.recordControl?.({ ...c, bot: this.o.bot }, now);
    this.emit({ type: 'control', bot: this.o.bot, ts: now, control: c });
  }

  /** Drains orders in flight (graceful stop). */
  async drain(): Promise<void> {
    await this.queue;
    await this.executor.drain();
    await this.syncing;
    await this.nextSync;
  }

  /** Whether a pair is one of the bot's. */
  hasPair(symbol: string): boolean {
    return this.pairs.has(symbol);
  }

  private emit(e: TraderEvent): void {
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) (ls[i] as TraderListener)(e);
  }
}
