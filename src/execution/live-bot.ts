// One bot in the daemon: feeds -> strategy -> risk gate -> executor, with fills synchronised into the
// portfolio and the trading state. The strategy and the gate are the very ones the backtester runs.
import {
  Subject,
  combineLatest,
  concatMap,
  filter,
  first,
  from,
  ignoreElements,
  merge,
  share,
  takeUntil,
  tap,
  type Subscription,
} from 'rxjs';
import type { CandleInterval, Ticker } from '../api/index.js';
import type { FeedHub } from '../feeds/hub.js';
import type { Fresh } from '../feeds/poll.js';
import type { Clock } from '../feeds/clock.js';
import type { Candle } from '../market/candle.js';
import { closeTimeOf } from '../market/candle.js';
import { Decimal } from '../market/decimal.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskDecision, RiskGate } from '../risk/gate.js';
import type { TradingStateMachine } from '../risk/trading-state.js';
import type { Store } from '../store/index.js';
import type { StoredFill } from '../store/fills.js';
import type { Strategy, StrategyLogger } from '../strategy/contract.js';
import type { OrderIntent, TradeCategory } from '../strategy/intent.js';
import { IntentSequencer, deriveClientOid } from './client-oid.js';
import type { Executor, OrderOutcome } from './executor.js';
import { FillSync, type FillSyncSymbol } from './fill-sync.js';
import { StoredStrategyState } from './stored-state.js';
import type { Venue } from './venue.js';

export interface LiveBotHooks {
  /** `triggerTime`: close time of the candle the strategy decided on. */
  onIntent?(bot: string, intent: OrderIntent, triggerTime: number): void;
  onDenial?(bot: string, code: string, intent: OrderIntent): void;
  onOrder?(bot: string, outcome: OrderOutcome, tickToOrderMs: number): void;
  onFill?(bot: string, fill: StoredFill): void;
  onEquity?(bot: string, equity: Decimal): void;
  onCandle?(bot: string, candle: Candle): void;
}

export interface LiveBotOptions {
  readonly name: string;
  readonly strategy: Strategy;
  /** Parsed strategy parameters. */
  readonly params: Record<string, unknown>;
  readonly category: TradeCategory;
  readonly symbols: readonly string[];
  readonly interval: CandleInterval;
  readonly hub: FeedHub;
  readonly venue: Venue;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: StrategyLogger;
  readonly gate: RiskGate;
  readonly tradingState: TradingStateMachine;
  readonly portfolio: Portfolio;
  readonly executor: Executor;
  /** Fill polling cadence (default 2 s). */
  readonly fillPollMs?: number | undefined;
  /** Signals whose candle closed longer ago than this are not traded (default 2 intervals + 30 s). */
  readonly maxSignalAgeMs?: number | undefined;
  readonly hooks?: LiveBotHooks | undefined;
  /** The pairs with their coins and fee rate (from the venue's instruments). */
  readonly pairs: readonly FillSyncSymbol[];
}

export interface LiveBotStatus {
  readonly name: string;
  readonly running: boolean;
  readonly lastCandle?: number | undefined;
  readonly intents: number;
  readonly denials: number;
  readonly orders: number;
  readonly fills: number;
  readonly tradingState: string;
  readonly equity: string;
}

/** A running bot. `start()` resolves once subscribed; `stop()` stops new intents and drains orders. */
export class LiveBot {
  private sub: Subscription | undefined;
  private readonly stop$ = new Subject<void>();
  private readonly rules = new Map<string, InstrumentRules>();
  private readonly tickers = new Map<string, Fresh<Ticker>>();
  private readonly suspended = new Map<string, boolean>();
  private session: SessionState | undefined;
  private readonly recentOrders: number[] = [];
  private readonly sequencer = new IntentSequencer();
  private lastTrigger = 0;
  private lastCandle: number | undefined;
  private readonly counts = { intents: 0, denials: 0, orders: 0, fills: 0 };
  private fillTimer: ReturnType<typeof setInterval> | undefined;
  private syncing: Promise<void> | undefined;
  private readonly fillSync: FillSync;
  private failure: ((err: unknown) => void) | undefined;
  /** Intents being handled, in order; the next candle waits for it. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly o: LiveBotOptions) {
    this.fillSync = new FillSync({
      venue: o.venue,
      store: o.store,
      portfolio: o.portfolio,
      bot: o.name,
      onFill: (f) => {
        this.counts.fills++;
        o.hooks?.onFill?.(o.name, f);
      },
    });
  }

  /** Called when the strategy or the pipeline fails; the daemon restarts the bot. */
  onFailure(fn: (err: unknown) => void): void {
    this.failure = fn;
  }

  /** Symbols with the fee convention, for reconciliation. */
  fillSymbols(): readonly FillSyncSymbol[] {
    return this.o.pairs;
  }

  status(): LiveBotStatus {
    return {
      name: this.o.name,
      running: this.sub !== undefined && !this.sub.closed,
      lastCandle: this.lastCandle,
      ...this.counts,
      tradingState: this.o.tradingState.state,
      equity: this.o.portfolio.equity().toFixed(2),
    };
  }

  start(): void {
    const { hub, o } = { hub: this.o.hub, o: this.o };
    const stop$ = this.stop$;
    const spot = 'SPOT' as const;
    const instruments$ = hub.instruments$(o.category).pipe(
      tap((f) => {
        for (const s of o.symbols) {
          const r = f.value.get(s);
          if (r) this.rules.set(s, r);
        }
      }),
      share(),
    );
    const tickers$ = merge(
      ...o.symbols.map((s) =>
        hub.tickers$(spot, s).pipe(
          tap((f) => {
            this.tickers.set(s, f);
            const p = new Decimal(f.value.lastPrice);
            if (p.gt(0)) o.portfolio.mark(s, p);
          }),
        ),
      ),
    ).pipe(share());
    const session$ = hub.session$().pipe(
      tap((s) => (this.session = s)),
      share(),
    );
    const suspensions$ = merge(
      ...o.symbols.map((s) =>
        hub.suspension$(s.replace(/USDT$/, '')).pipe(tap((f) => this.suspended.set(s, f.value.suspended))),
      ),
    );
    // Candles flow once the rules, a session and a price of every symbol are known.
    const ready$ = combineLatest([instruments$, session$, tickers$]).pipe(
      filter(
        () => o.symbols.every((s) => this.rules.has(s) && this.tickers.has(s)) && this.session !== undefined,
      ),
      first(),
    );
    const since = (s: string) => {
      const v = o.store.meta.get(`candle:${o.name}:${s}:${o.interval}`);
      return v === undefined ? undefined : Number(v);
    };
    const candles$ = ready$.pipe(
      concatMap(() => merge(...o.symbols.map((s) => hub.closedCandles$(spot, s, o.interval, since(s))))),
      // The next candle waits until the intents of the previous one are placed and their fills synced,
      // so the strategy always decides on a portfolio that includes its own fills (and a backfilled gap
      // replays in order, exactly as the backtester replays it).
      concatMap((c) => from(this.queue.then(() => c))),
      tap((c) => {
        this.lastCandle = c.openTime;
        this.lastTrigger = closeTimeOf(c);
        o.store.meta.set(`candle:${o.name}:${c.symbol}:${o.interval}`, String(c.openTime));
        o.hooks?.onCandle?.(o.name, c);
      }),
      share(),
    );
    const ctx = {
      bot: o.name,
      params: o.params,
      clock: o.clock,
      logger: o.logger,
      symbols: o.symbols,
      category: o.category,
      rules: (s: string) => this.rules.get(s),
      portfolio: o.portfolio,
      session: () => this.session,
      state: new StoredStrategyState(o.store, o.name),
    };
    const intents$ = o.strategy.run(ctx, {
      candles$,
      session$,
      tickers$: tickers$.pipe(
        filter((f) => !f.stale),
        concatMap((f) => [f.value]),
      ),
    });
    this.sub = merge(
      // The bot keeps the latest rules, prices, session and suspensions for the risk gate.
      merge(instruments$, tickers$, session$, suspensions$).pipe(ignoreElements()),
      // The trigger (close time of the candle the strategy saw) is taken when the intent is emitted;
      // intents are handled one after the other, in order.
      intents$.pipe(
        tap((intent) => {
          const trigger = this.lastTrigger;
          this.queue = this.queue.then(() =>
            this.handle(intent, trigger).catch((err: unknown) => {
              o.logger.error('intent handling failed', {
                bot: o.name,
                error: err instanceof Error ? err.message : String(err),
              });
              this.failure?.(err);
            }),
          );
        }),
        ignoreElements(),
      ),
    )
      .pipe(takeUntil(stop$))
      .subscribe({
        error: (err: unknown) => {
          o.logger.error('bot failed', {
            bot: o.name,
            error: err instanceof Error ? err.message : String(err),
          });
          this.failure?.(err);
        },
      });
    this.fillTimer = setInterval(() => void this.syncFills(), o.fillPollMs ?? 2000);
  }

  /** Pulls new fills now (also run on a timer). */
  async syncFills(): Promise<void> {
    if (this.syncing) return this.syncing;
    this.syncing = (async () => {
      try {
        for (const s of this.fillSymbols()) await this.fillSync.sync(s);
        const equity = this.o.portfolio.equity();
        this.o.tradingState.update(equity, this.o.clock.now());
        this.o.hooks?.onEquity?.(this.o.name, equity);
      } catch (err) {
        this.o.logger.warn('fill sync failed, will retry', {
          bot: this.o.name,
          error: err instanceof Error ? err.message : String(err),
        });
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  private async handle(raw: OrderIntent, triggerTime: number): Promise<void> {
    const o = this.o;
    const intent = { ...raw, bot: o.name } as OrderIntent;
    const now = o.clock.now();
    this.counts.intents++;
    o.hooks?.onIntent?.(o.name, intent, triggerTime);
    o.store.intents.record(intent, now);
    const maxAge = o.maxSignalAgeMs ?? 0;
    const decision: RiskDecision =
      maxAge > 0 && triggerTime > 0 && now - triggerTime > maxAge
        ? {
            ok: false,
            code: 'STALE_DATA',
            message: `signal from a candle that closed ${now - triggerTime} ms ago (replayed after a gap); not traded`,
            intent,
          }
        : o.gate.check(intent, {
            now,
            rules: this.rules.get(intent.symbol),
            market: this.market(intent.symbol),
            session: this.session,
            suspended: this.suspended.get(intent.symbol),
            portfolio: o.portfolio,
            tradingState: o.tradingState.state,
            recentOrderTimes: this.recentOrders,
            markOf: (s) => o.portfolio.markOf(s),
          });
    if (!decision.ok) {
      this.counts.denials++;
      o.store.denials.record({ bot: o.name, code: decision.code, message: decision.message, intent }, now);
      o.logger.info('intent denied', {
        bot: o.name,
        symbol: intent.symbol,
        code: decision.code,
        reason: decision.message,
      });
      o.hooks?.onDenial?.(o.name, decision.code, intent);
      return;
    }
    const trigger = triggerTime || now;
    const clientOid = deriveClientOid({
      bot: o.name,
      symbol: intent.symbol,
      side: intent.side,
      tag: intent.tag,
      triggerTime: trigger,
      seq: this.sequencer.next(trigger),
    });
    this.recentOrders.push(now);
    while (this.recentOrders.length > 64) this.recentOrders.shift();
    const outcome = await o.executor.place(
      { ...decision.order, clientOid },
      { bot: o.name, intent: decision.intent },
    );
    this.counts.orders++;
    o.hooks?.onOrder?.(o.name, outcome, o.clock.now() - trigger);
    if (outcome.status === 'acked') await this.syncFills();
  }

  /** Sells every position of the bot at market through the risk gate (e.g. before the close). */
  async flatten(reason: string): Promise<void> {
    for (const symbol of this.o.symbols) {
      const held = this.o.portfolio.position(symbol).quantity;
      if (!held.gt(0)) continue;
      const intent: OrderIntent = {
        type: 'market',
        side: 'sell',
        symbol,
        category: this.o.category,
        quantity: held,
        tag: 'flatten',
        reason,
        bot: this.o.name,
      };
      await this.handle(intent, this.o.clock.now());
    }
  }

  private market(symbol: string) {
    const f = this.tickers.get(symbol);
    if (!f) return undefined;
    const t = f.value;
    // `at` is the time of the last successful poll: the gate measures the data's age from it.
    return {
      last: new Decimal(t.lastPrice),
      bid: new Decimal(t.bid1Price),
      ask: new Decimal(t.ask1Price),
      ts: f.at,
    };
  }

  async stop(): Promise<void> {
    this.stop$.next();
    this.sub?.unsubscribe();
    if (this.fillTimer) clearInterval(this.fillTimer);
    await this.queue;
    await this.o.executor.drain();
    await this.syncing;
  }
}
