// One bot in the daemon: the feeds fill the market state and drive the strategy, whose intents go
// through the one trading pipeline (Trader) to the venue. The strategy, the gate, the pipeline and
// everything after it are the very ones the backtester runs; this file only wires the live feeds in.
import {
  Subject,
  concatMap,
  filter,
  first,
  from,
  of,
  ignoreElements,
  merge,
  share,
  takeUntil,
  startWith,
  tap,
  type Observable,
  type Subscription,
} from 'rxjs';
import { INTERVAL_MS, type CandleInterval } from '../api/index.js';
import type { FeedHub } from '../feeds/hub.js';
import { closeTimeOf, type Candle } from '../market/candle.js';
import { marketWaitSentence, type SessionOrClosed, type SessionState } from '../market/sessions.js';
import {
  journalCounts,
  journalInstrument,
  journalLastPrice,
  readLastPrice,
  type ControlInput,
  type JournalCounts,
  type Store,
} from '../store/index.js';
import {
  informativeProblems,
  StrategyDefinitionError,
  type Strategy,
  type StrategyLogger,
} from '../strategy/contract.js';
import type { OrderIntent, TradeCategory } from '../strategy/intent.js';
import { ReplayNote } from './replay-note.js';
import { WarmUpCounter, type WarmUp } from '../strategy/warm-up.js';
import { ExitBlockedTally } from './exit-blocked.js';
import { FeedWatch, feedLimits, type FeedHealth, type FeedLimits } from './feed-watch.js';

export type { LiveBotMargin, LiveBotPosition, LiveBotStatus } from './live-bot-status.js';
import { marketFeeds, type MarketFeeds } from './live-feeds.js';
import { marginStatus, moneyStatus, type LiveBotStatus } from './live-bot-status.js';
import { StoredStrategyState } from './stored-state.js';
import type { TraderListener } from './trader-events.js';
import type { Trader } from './trader.js';
import { counted } from '../market/spelling.js';

export interface LiveBotOptions {
  readonly name: string;
  readonly strategy: Strategy;
  /** Parsed strategy parameters. */
  readonly params: Record<string, unknown>;
  readonly category: TradeCategory;
  readonly symbols: readonly string[];
  /** The company code of each Reality pair of the bot, by symbol (`realityCodeOf` its instrument). */
  readonly realityCodes: ReadonlyMap<string, string>;
  readonly interval: CandleInterval;
  readonly hub: FeedHub;
  readonly store: Store;
  readonly logger: StrategyLogger;
  readonly trader: Trader;
  /** Fill polling cadence (default 2 s). */
  readonly fillPollMs?: number | undefined;
  /** How old each feed may get before the bot is DEGRADED (default: `feedLimits` of the interval, 15 s, the fill poll). */
  readonly feedLimits?: FeedLimits | undefined;
  /** The sessions the bot trades (its risk.allowedSessions): outside them it says that it waits, and until when. */
  readonly allowedSessions?: readonly SessionOrClosed[] | undefined;
  /**
   * Signals older than this are not traded (the gate's STALE_SIGNAL): candles closed longer ago are a
   * replay (the warm-up backfill, a gap), told in one line once live candles come (0: no limit).
   */
  readonly maxSignalAgeMs?: number | undefined;
  /** Told each candle of the bot's interval it decides on, warm-up (`warmUp`: not traded) and replays included. */
  readonly onCandle?: ((c: Candle, warmUp: boolean) => void) | undefined;
}

const SPOT = 'SPOT' as const;
/**
 * The least real time between two checkpoints of the journal the bots share: with 200 bots each asking after
 * each candle, the checkpoints' fsyncs took half the daemon's event loop (bench/scale.ts, issue 33).
 */
const CHECKPOINT_GAP_MS = 250;
/**
 * How long (real time) a candle mark or last price waits for others to share its commit. Only a mark whose
 * candle led to no order waits: an order's journal entry commits the marks before it is sent.
 */
const MARK_FLUSH_MS = 10;

/** A running bot. `start()` subscribes the feeds; `stop()` stops new intents and drains orders. */
export class LiveBot {
  private sub: Subscription | undefined;
  private readonly stop$ = new Subject<void>();
  private lastTrigger = 0;
  private lastCandle: number | undefined;
  private readonly counts = { intents: 0, denials: 0, orders: 0, fills: 0 };
  /** The journal's counts when this bot was built: status adds this process's to them. */
  private readonly before: JournalCounts;
  /** The venue time of each symbol's mark (its last traded price). */
  private readonly markTs = new Map<string, number>();
  private readonly blocked = new ExitBlockedTally();
  private fillTimer: ReturnType<typeof setInterval> | undefined;
  private failure: ((err: unknown) => void) | undefined;
  /** The replay in progress (candles closed longer ago than maxSignalAgeMs), told once it ends. */
  private readonly replay: ReplayNote;
  /** A flush of the journal's deferred writes (the candle marks) is scheduled. */
  private markPending = false;
  /** A checkpoint of the journal is scheduled for when the pipeline is idle. */
  private checkpointPending = false;
  /** Whether the last session seen lets the bot trade (undefined before the first). */
  private sessionOpen: boolean | undefined;
  /** The strategy's warm-up with the bot's parameters: backfilled at the start, no intent sent before it. */
  private readonly warmUp: WarmUp;
  /** What the strategy has seen of each symbol's warm-up (a restart warms a new strategy up again). */
  private readonly warming: ReadonlyMap<string, WarmUpCounter>;
  /** Per symbol, the open time of the last candle the journal says was decided (a restart replays up to it). */
  private readonly decided = new Map<string, number>();
  /** The candle the strategy is deciding: its intents belong to it. */
  private deciding: Candle | undefined;
  /** Intents of the warm-up (and of candles decided before a restart): not sent. */
  private warmUpIntents = 0;
  private warmUpTold = false;
  /** The age of each feed: silence makes the bot DEGRADED. */
  private readonly feeds: FeedWatch;

  constructor(private readonly o: LiveBotOptions) {
    this.replay = new ReplayNote({ bot: o.name, maxSignalAgeMs: o.maxSignalAgeMs ?? 0, logger: o.logger });
    // Informative intervals are resampled from the bot's interval: refuse at once the ones that cannot be.
    const problems = informativeProblems(o.strategy, o.interval);
    if (problems.length > 0)
      throw new StrategyDefinitionError(
        `bot ${o.name} (strategy "${o.strategy.name}"): ${problems.join('; ')}`,
      );
    this.warmUp = o.strategy.warmUp(o.params);
    const limits = {
      intervalMs: INTERVAL_MS[o.interval],
      maxDataAgeMs: 15_000,
      fillsPollMs: o.fillPollMs ?? 2000,
    };
    this.feeds = new FeedWatch(o.feedLimits ?? feedLimits(limits), o.trader.clockNow());
    const intervals = [o.interval, ...o.strategy.informative];
    this.warming = new Map(o.symbols.map((s) => [s, new WarmUpCounter(this.warmUp.candles, intervals)]));
    // A bot paused by the operator stays paused across a restart, until someone resumes it.
    this.before = journalCounts(o.store, o.name);
    // Positions are valued at the venue's last traded price, from the start: the journal's until a poll reads one.
    for (const s of o.symbols) {
      const last = readLastPrice(o.store, s);
      if (last === undefined) continue;
      o.trader.portfolio.mark(s, last.price);
      this.markTs.set(s, last.ts);
    }
    // First: the logger and the dashboard, subscribed before the bot, read its status while handling the event.
    o.trader.subscribe(
      (e) => {
        this.blocked.see(e);
        if (e.type === 'intent') this.counts.intents++;
        else if (e.type === 'denied') this.counts.denials++;
        else if (e.type === 'order') this.counts.orders++;
        else if (e.type === 'fill') this.counts.fills++;
      },
      { first: true },
    );
  }

  get trader(): Trader {
    return this.o.trader;
  }

  /** Subscribes to the bot's pipeline events (logs, metrics, dashboards). */
  subscribe(listener: TraderListener): () => void {
    return this.o.trader.subscribe(listener);
  }

  /** Called when the strategy or the pipeline fails; the daemon restarts the bot. */
  onFailure(fn: (err: unknown) => void): void {
    this.failure = fn;
  }

  /**
   * The bot's in-memory state, entries by part (its pipeline's, its marks and warm-up bookkeeping), and the
   * size of the strategy's stored state in bytes: the endurance run checks that none grows with time.
   */
  stateSizes(): Record<string, number> {
    const stored = this.o.store.strategyState.get(this.o.name);
    return {
      ...this.o.trader.stateSizes(),
      marks: this.markTs.size,
      decided: this.decided.size,
      replayed: this.replay.size,
      strategyStateBytes: stored === undefined ? 0 : JSON.stringify(stored).length,
    };
  }

  status(): LiveBotStatus {
    const p = this.o.trader.portfolio;
    const c = this.counts;
    const b = this.before;
    return {
      name: this.o.name,
      running: this.sub !== undefined && !this.sub.closed,
      lastCandle: this.lastCandle,
      intents: b.intents + c.intents,
      denials: b.denials + c.denials,
      orders: b.orders + c.orders,
      fills: b.fills + c.fills,
      sinceStart: { ...c },
      tradingState: this.o.trader.tradingState,
      health: this.feedHealth(),
      paused: this.o.trader.control.paused,
      ...this.locks(),
      ...this.blocked.status(),
      ...moneyStatus(p, this.markTs, (s) => this.o.trader.market.rules(s)),
      margin: marginStatus(p, this.o.trader.clockNow(), (s) => this.o.trader.market.rules(s)),
    };
  }

  /** The bot's feeds now: DEGRADED when one is older than its limit. */
  feedHealth(): FeedHealth {
    return this.feeds.health(this.o.trader.clockNow());
  }

  /** The daemon's start completed: the feeds' ages count from now (see FeedWatch.watchFrom). */
  watchFeedsFromNow(): void {
    this.feeds.watchFrom(this.o.trader.clockNow());
  }

  /** A starving reading was the daemon's own stall, not the venue's silence (see FeedWatch.forgiveStall). */
  forgiveFeedStall(): void {
    this.feeds.forgiveStall();
  }

  private locks(): Pick<LiveBotStatus, 'protections'> {
    const locks = this.o.trader.guard.locks(this.o.trader.clockNow());
    if (locks.length === 0) return {};
    return {
      protections: locks.map((l) => ({
        protection: l.protection,
        symbol: l.symbol,
        until: new Date(l.until).toISOString(),
        reason: l.reason,
      })),
    };
  }

  /**
   * Whether an intent emitted now may be sent: the strategy has seen the warm-up of the symbol it is for and
   * of the candle it is deciding, and that candle was not decided before a restart (the journal's mark).
   * One that may not is counted, not sent, as in a backtest.
   */
  private mayTrade(intent: OrderIntent): boolean {
    const c = this.deciding;
    const ok =
      this.warming.get(intent.symbol)?.complete !== false &&
      (c === undefined || (this.warming.get(c.symbol)?.complete !== false && !this.decidedBefore(c)));
    if (!ok) this.warmUpIntents++;
    return ok;
  }

  /** Whether the base candle that closes `c` was decided before a restart. */
  private decidedBefore(c: Candle): boolean {
    const mark = this.decided.get(c.symbol);
    return mark !== undefined && closeTimeOf(c) - INTERVAL_MS[this.o.interval] <= mark;
  }

  /** Counts a candle into the warm-up; at the first candle that may trade, one line tells the warm-up. */
  private noteWarmUp(c: Candle): void {
    this.deciding = c;
    this.warming.get(c.symbol)?.see(c);
    if (this.warmUpTold || this.warmUp.candles === 0) return;
    if ([...this.warming.values()].some((w) => !w.complete) || this.decidedBefore(c)) return;
    this.warmUpTold = true;
    const intervals = [this.o.interval, ...this.o.strategy.informative].join(', ');
    this.o.logger.info('warm-up done', {
      bot: this.o.name,
      what: `the strategy has seen ${counted(this.warmUp.candles, 'candle')} of ${intervals} per symbol (${this.warmUp.source}); ${this.warmUpIntents === 0 ? 'no signal during it' : `${counted(this.warmUpIntents, 'signal')} during it not sent`}`,
    });
  }

  /** Whether the bot can trade in the session; when that changes, one line says so (and until when it waits). */
  private noteSession(s: SessionState): void {
    const { o } = this;
    const allowed = o.allowedSessions;
    const now = o.trader.clockNow();
    const reality = o.symbols.some((sym) => o.trader.market.rules(sym)?.isReality === true);
    // A Reality pair makes no candle while the US market is closed: its silence then is no alarm.
    this.feeds.expectCandles(!reality || s.session !== 'closed', now);
    if (allowed === undefined || !reality) return;
    const open = s.session !== 'closed' && allowed.includes(s.session);
    if (open === this.sessionOpen) return;
    this.sessionOpen = open;
    if (open) o.logger.info('market open for the bot', { bot: o.name, session: s.session });
    else
      o.logger.info('market closed for the bot', {
        bot: o.name,
        session: s.session,
        what: marketWaitSentence(now, s, allowed),
      });
  }

  start(): void {
    const { o } = this;
    const { trader } = o;
    const feeds = marketFeeds(o, (at, symbol, last) => {
      this.feeds.saw('tickers', at);
      this.markTs.set(symbol, at);
      // Durable within MARK_FLUSH_MS: `tradebot status` reads the marks the daemon values at now, not a candle ago.
      journalLastPrice(o.store, symbol, last, at);
      journalInstrument(o.store, o.trader.market.rules(symbol)?.raw);
      this.flushSoon();
    });
    const ctx = trader.strategyContext({
      params: o.params,
      logger: o.logger,
      state: new StoredStrategyState(o.store, o.name),
      category: o.category,
    });
    const intents$ = o.strategy.run(ctx, {
      candles$: this.candles$(feeds),
      session$: feeds.session$,
      tickers$: feeds.tickers$.pipe(
        filter((f) => !f.stale),
        concatMap((f) => [f.value]),
      ),
      orders$: trader.feedback$(),
    });
    this.sub = merge(
      // The bot keeps the latest rules, prices, session and suspensions in the market state.
      merge(feeds.instruments$, feeds.tickers$, feeds.session$, feeds.suspensions$).pipe(ignoreElements()),
      this.sessionNotes$(feeds),
      // The signal time (close of the candle the strategy saw) is taken when the intent is emitted.
      intents$.pipe(
        tap((intent) => {
          if (this.mayTrade(intent)) void this.submit(intent, this.lastTrigger);
        }),
        ignoreElements(),
      ),
    )
      .pipe(takeUntil(this.stop$))
      .subscribe({ error: (err: unknown) => this.fail('bot failed', err) });
    const pollMs = o.fillPollMs ?? 2000;
    this.fillTimer = setInterval(() => void this.syncFills(pollMs), pollMs);
  }

  /**
   * Emits once the rules of every symbol and the session are known (and, `withPrices`, a price of every
   * symbol): any feed's news may complete the picture, and so may what the market state knew already.
   */
  private known$(feeds: MarketFeeds, withPrices: boolean): Observable<unknown> {
    const { o } = this;
    const market = o.trader.market;
    const sources = withPrices
      ? [feeds.instruments$, feeds.session$, feeds.tickers$]
      : [feeds.instruments$, feeds.session$];
    return merge(...sources).pipe(
      startWith(undefined),
      filter(
        () =>
          o.symbols.every((s) => market.rules(s) !== undefined && (!withPrices || market.hasQuote(s))) &&
          market.session() !== undefined,
      ),
      first(),
    );
  }

  /** Once the rules and a session are known, the operator hears when the session stops the bot and when it may trade again. */
  private sessionNotes$(feeds: MarketFeeds): Observable<never> {
    return this.known$(feeds, false).pipe(
      concatMap(() => feeds.session$),
      tap((s) => {
        if (s !== undefined) this.noteSession(s);
      }),
      ignoreElements(),
    );
  }

  /**
   * The candles the strategy decides on: once the rules, a session and a price of every symbol are known,
   * from the last candle journaled as seen, each after the previous one's intents went through.
   */
  private candles$(feeds: MarketFeeds): Observable<Candle> {
    const { o } = this;
    const ready$ = this.known$(feeds, true);
    const since = (s: string) => {
      const v = o.store.meta.get(`candle:${o.name}:${s}:${o.interval}`);
      return v === undefined ? undefined : Number(v);
    };
    for (const s of o.symbols) {
      const mark = since(s);
      if (mark !== undefined) this.decided.set(s, mark);
    }
    // The backfill covers the strategy's warm-up (of the base and the informative intervals), from before
    // the journal's mark after a restart: the new strategy warms up on candles the journal says were decided.
    return ready$.pipe(
      concatMap(() =>
        merge(
          ...o.symbols.map((s) =>
            o.hub.closedCandlesWithInformative$(
              SPOT,
              s,
              o.interval,
              o.strategy.informative,
              since(s),
              this.warmUp.candles,
            ),
          ),
        ),
      ),
      // The next candle waits until the intents of the previous one went through the pipeline, and the
      // fills of orders that may rest are read, so the strategy always decides on a portfolio that
      // includes its own fills (a backfilled gap replays in order, exactly as the backtester replays it).
      // With nothing in flight there is nothing to wait for: the candle goes on in the same turn.
      concatMap((c) => (this.mustWait() ? from(this.beforeCandle().then(() => c)) : of(c))),
      tap((c) => {
        this.noteWarmUp(c);
        // An informative candle closes with the base candle that follows it: the base one is the mark.
        if (c.interval !== o.interval) return;
        o.onCandle?.(c, this.warming.get(c.symbol)?.complete === false || this.decidedBefore(c));
        this.lastCandle = c.openTime;
        this.lastTrigger = closeTimeOf(c);
        this.feeds.saw('candles', this.lastTrigger);
        this.replay.see(c.symbol, this.lastTrigger, o.trader.clockNow());
        // A candle decided before a restart, replayed for the warm-up, keeps the mark where it is.
        if (!this.decidedBefore(c)) this.markCandle(c.symbol, c.openTime);
      }),
      share(),
    );
  }

  /**
   * Journals that the strategy saw this candle (the restart's `since`). The mark must be durable no later
   * than the order the candle leads to (else a restart would replay the candle and trade it again on a
   * portfolio that holds the first order), but it need not cost a commit of its own before the send: it
   * commits with that order's journal entry (the order is sent in this turn of the event loop), or on its
   * own MARK_FLUSH_MS after this turn when the candle led to none.
   */
  private markCandle(symbol: string, openTime: number): void {
    const { store, name, interval } = this.o;
    const key = `candle:${name}:${symbol}:${interval}`;
    const value = String(openTime);
    store.deferWrite(key, () => store.meta.set(key, value));
    this.flushSoon();
  }

  /**
   * Commits the deferred writes (candle marks, last traded prices) MARK_FLUSH_MS after this turn of the event
   * loop: the bots' candle answers of one boundary arrive within a few milliseconds of each other, and the
   * first bot's flush takes every bot's marks in one commit (one fsync, not one per symbol).
   */
  private flushSoon(): void {
    const { store } = this.o;
    if (this.markPending) return;
    this.markPending = true;
    setTimeout(() => {
      this.markPending = false;
      try {
        store.flushDeferred();
      } catch (err) {
        this.fail('journal write failed', err);
        return;
      }
      this.checkpointWhenIdle();
    }, MARK_FLUSH_MS);
  }

  /**
   * Checkpoints the journal once the candle's orders are through (answered, their fills read), after
   * what else the event loop has to do (another candle that waited for them): a quiet moment, instead of
   * inside the commit that precedes an order's send (see `Store.checkpoint`).
   */
  private checkpointWhenIdle(): void {
    if (this.checkpointPending) return;
    this.checkpointPending = true;
    void this.o.trader.idle().then(() =>
      setImmediate(() => {
        this.checkpointPending = false;
        try {
          this.o.store.checkpoint(CHECKPOINT_GAP_MS);
        } catch (err) {
          // SQLite checkpoints by itself when this cannot: nothing is lost, the next candle tries again.
          this.o.logger.warn('journal checkpoint failed', {
            bot: this.o.name,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }),
    );
  }

  /** Whether the next candle must wait: intents in the pipeline, resting orders' fills to read, a clock found off. */
  private mustWait(): boolean {
    return this.o.trader.busy || this.o.trader.hasOpenOrders || this.o.hub.clock.settled?.() !== undefined;
  }

  private async beforeCandle(): Promise<void> {
    await this.o.trader.idle();
    if (this.o.trader.hasOpenOrders) await this.syncFills();
    // A clock found off (the venue's stood still or stepped) does not judge a candle's age until an answer agrees.
    await this.o.hub.clock.settled?.();
  }

  private submit(intent: OrderIntent, signalTime: number): Promise<void> {
    return this.o.trader
      .submit(intent, signalTime)
      .catch((err: unknown) => this.fail('intent handling failed', err));
  }

  private fail(what: string, err: unknown): void {
    this.o.logger.error(what, { bot: this.o.name, error: err instanceof Error ? err.message : String(err) });
    this.failure?.(err);
  }

  /**
   * Pulls new fills now (also run on a timer, `pollMs`: it may share the bots' recent read of a symbol); a
   * failure is logged and retried at the next poll.
   */
  async syncFills(pollMs?: number): Promise<void> {
    try {
      await this.o.trader.syncFills(pollMs);
      this.feeds.saw('fills', this.o.trader.clockNow());
      this.o.trader.sampleEquity(this.o.trader.clockNow());
    } catch (err) {
      this.o.logger.warn('fill sync failed, will retry', {
        bot: this.o.name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * Sells every position of the bot (or of one of its symbols) at market through the risk gate (e.g.
   * before the close, or the operator's flatten).
   */
  async flatten(reason: string, only?: string): Promise<void> {
    for (const symbol of this.o.symbols) {
      if (only !== undefined && symbol !== only) continue;
      const held = this.o.trader.portfolio.position(symbol).quantity;
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
      await this.submit(intent, this.o.trader.clockNow());
    }
  }

  /** The bot's symbols. */
  get symbols(): readonly string[] {
    return this.o.symbols;
  }

  /**
   * An operator's action (dashboard or control API): journaled with who and why and emitted first, then
   * applied. Pause and resume persist across a restart; flatten pauses entries (a strategy that still sees
   * its signal would buy the position back at its next candle) and sells through the gate like any exit.
   */
  async control(c: Omit<ControlInput, 'bot'>): Promise<void> {
    const { trader } = this.o;
    trader.control.record(c);
    const why = `${c.reason} (${c.action} by ${c.who})`;
    if (c.action !== 'halt' && c.action !== 'rearm') trader.control.setPaused(c.action !== 'resume', why);
    switch (c.action) {
      case 'pause':
      case 'resume':
        return;
      case 'halt':
        trader.control.halt(why);
        return;
      case 'rearm':
        trader.control.rearm(why);
        return;
      case 'flatten':
        // The order's reason goes with the intent (journal, redacted view); who asked stays in the control's.
        await this.flatten(`${c.reason} (flatten by the operator)`, c.symbol);
        return;
    }
  }

  async stop(): Promise<void> {
    this.stop$.next();
    this.sub?.unsubscribe();
    if (this.fillTimer) clearInterval(this.fillTimer);
    await this.o.trader.drain();
    this.o.store.flushDeferred();
  }
}
