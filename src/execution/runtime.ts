// Assembly of the live pipeline: a venue runtime (client, venue port, clock, scheduler, feeds) and the
// bots on it. The daemon and the integration tests build bots through here, so both run the same code.
import type { Candle } from '../market/candle.js';
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { INTERVAL_MS, type CandleInterval, type Instrument } from '../api/index.js';
import { RestClient, type AnswerTime, type ClientLogger, type Credentials } from '../client/index.js';
import { liveClock, type Clock } from '../feeds/clock.js';
import { FeedHub, type FeedCadences } from '../feeds/hub.js';
import { VenueClock } from '../feeds/venue-clock.js';
import { ScaledScheduler, scaledSleep } from '../feeds/time-scale.js';
import { Decimal } from '../market/decimal.js';
import { formatDuration } from '../market/duration.js';
import { DEFAULT_MARGIN_MODEL, type MarginModel } from '../market/margin.js';
import { realityCodeOf } from '../market/instrument-rules.js';
import { marginLeverageOf } from '../market/margin.js';
import { Portfolio } from '../portfolio/portfolio.js';
import { RiskGate } from '../risk/gate.js';
import type { RiskLimits } from '../risk/limits.js';
import { TradingStateMachine, type TradingState } from '../risk/trading-state.js';
import { pausedKey, type Store } from '../store/index.js';
import type { Strategy, StrategyLogger } from '../strategy/contract.js';
import { mergeExitRules, mergeProtections, type ExitRules, type Protections } from '../strategy/exits.js';
import type { TradeCategory } from '../strategy/intent.js';
import { parseStrategyParams } from '../strategy/params.js';
import { feedLimits, type FeedLimits } from './feed-watch.js';
import { metaBaselineStore } from './fill-attribution.js';
import { FillRouter, type FillRouterLogger } from './fill-router.js';
import { storeJournal } from './journal.js';
import { journalDecidedCandle } from './decided-candles.js';
import { LiveBot } from './live-bot.js';
import type { FillsMode } from './fill-booking.js';
import { MarketState } from './market-state.js';
import type { TraderListener } from './trader-events.js';
import { Trader } from './trader.js';
import { reconcile, type ReconcileReport } from './reconcile.js';
import { RestVenue } from './rest-venue.js';
import type { Venue } from './venue.js';
import { didYouMean } from '../market/spelling.js';

export interface VenueRuntimeOptions {
  readonly baseUrl: string;
  /** None for a paper run: its client then refuses every private endpoint before sending. */
  readonly credentials: Credentials | undefined;
  /** The Venue port's adapter on the client (default RestVenue; a paper run's PaperVenue). */
  readonly venueOf?: ((client: RestClient, clock: Clock) => Venue) | undefined;
  /** The venue's clock when it is an embedded simulator (simulated time); default real time. */
  readonly clock?: Clock | undefined;
  /** How much faster than real time `clock` runs (embedded simulator speed); default 1. */
  readonly speed?: number | undefined;
  readonly whitelisted?: boolean | undefined;
  readonly channelApiCode?: string | undefined;
  readonly locale?: string | undefined;
  readonly timeoutMs?: number | undefined;
  readonly cadences?: Partial<FeedCadences> | undefined;
  readonly staleAfterMs?: number | undefined;
  readonly logger?: ClientLogger | undefined;
  readonly onPollError?: ((feed: string, err: unknown) => void) | undefined;
  readonly onPoll?: ((feed: string) => void) | undefined;
}

export interface VenueRuntime {
  readonly client: RestClient;
  readonly venue: Venue;
  readonly clock: Clock;
  readonly scheduler: SchedulerLike;
  readonly hub: FeedHub;
  /** How much faster than real time the venue's clock runs (default 1; more for an accelerated simulator). */
  readonly speed?: number | undefined;
  close(): void;
}

/**
 * A clock on the time of the venue at `baseUrl`, running `speed` times faster than real time (a tradebot
 * simulator started with --speed): the venue's time is read from a public endpoint's answer through the
 * client, so a venue that drops, 5xx-es or garbles the first answers is retried like any request. The
 * runtime's client re-estimates it from every answer after (createVenueRuntime); a jump is logged with its size.
 */
export async function followVenueClock(
  baseUrl: string,
  speed: number,
  o: {
    timeoutMs?: number | undefined;
    logger?: VenueClockLogger | undefined;
    /** Told after each re-sync (the daemon journals the clock's reading again). */
    onResync?: (() => void) | undefined;
  } = {},
): Promise<VenueClock> {
  let sample: AnswerTime | undefined;
  const probe = new RestClient({
    baseUrl,
    timeoutMs: o.timeoutMs,
    logger: o.logger,
    onAnswerTime: (t) => (sample = t),
  });
  try {
    await probe.rpiSymbols();
  } finally {
    probe.close();
  }
  if (sample === undefined)
    throw new Error(`the venue at ${baseUrl} answered without its time (requestTime)`);
  const log = o.logger;
  return VenueClock.fromSample(sample, speed, {
    onJump: (j) =>
      log?.warn('venue clock jumped', {
        jumpMs: j.jumpMs,
        uncertaintyMs: j.uncertaintyMs,
        what: `the venue's time is ${formatDuration(Math.abs(j.jumpMs))} ${j.jumpMs < 0 ? 'behind' : 'ahead of'} the daemon's estimate: re-anchored on its answer; decisions wait until the next answer agrees`,
      }),
    onResync: (r) => {
      // Told inside a request's answer: a failing listener must not fail the request.
      try {
        o.onResync?.();
      } catch (err) {
        log?.warn('venue clock re-sync not recorded', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
      (log?.info ?? log?.warn)?.call(log, 'venue clock re-synced', {
        jumpMs: r.jumpMs,
        jumps: r.jumps,
        uncertaintyMs: r.uncertaintyMs,
        what: `the daemon's clock follows the venue's again (moved ${r.jumpMs < 0 ? 'back' : 'on'} ${formatDuration(Math.abs(r.jumpMs))} in ${r.jumps} step${r.jumps === 1 ? '' : 's'}, within ${r.uncertaintyMs} ms)`,
      });
    },
  });
}

/** The client's logger, with info for the re-sync (a warn when it has none). */
type VenueClockLogger = ClientLogger & { info?(message: string, fields?: Record<string, unknown>): void };

export function createVenueRuntime(o: VenueRuntimeOptions): VenueRuntime {
  const clock = o.clock ?? liveClock;
  const speed = o.speed ?? 1;
  const scheduler = speed === 1 && o.clock === undefined ? asyncScheduler : new ScaledScheduler(clock, speed);
  const client = new RestClient({
    baseUrl: o.baseUrl,
    credentials: o.credentials,
    clock,
    sleep: scaledSleep(speed),
    whitelisted: o.whitelisted,
    channelApiCode: o.channelApiCode,
    locale: o.locale,
    timeoutMs: o.timeoutMs,
    logger: o.logger,
    // The limiter's jitter allowance is real time; on an accelerated venue it spans `speed` times more.
    rateLimit: { timeScale: speed },
    // A clock following the venue's learns from every answer (see VenueClock).
    onAnswerTime: clock instanceof VenueClock ? (t) => clock.observe(t) : undefined,
  });
  const hub = new FeedHub({
    source: client,
    clock,
    scheduler,
    cadences: o.cadences,
    staleAfterMs: o.staleAfterMs,
    onError: o.onPollError,
    onPoll: o.onPoll,
  });
  const venue = o.venueOf?.(client, clock) ?? new RestVenue(client);
  return { client, venue, clock, scheduler, hub, speed, close: () => client.close() };
}

export interface BotSpec {
  readonly name: string;
  readonly strategy: Strategy;
  readonly params: unknown;
  readonly category: TradeCategory;
  readonly symbols: readonly string[];
  readonly interval: CandleInterval;
  readonly risk: RiskLimits;
  /** Quote coin the bot accounts in and its starting capital (decimal string). */
  readonly quoteCoin: string;
  readonly capital: string;
  /** Taker fee rate; the maker rate defaults to it. */
  readonly feeRate: string;
  readonly makerFeeRate?: string | undefined;
  readonly fillPollMs?: number | undefined;
  /** How old each feed may get before the bot is DEGRADED (see `feedLimits`). */
  readonly feedLimits?: FeedLimits | undefined;
  readonly maxSignalAgeMs?: number | undefined;
  /** `estimated` without whitelist access (see `TraderOptions.fillsMode`); default `venue`. */
  readonly fills?: FillsMode | undefined;
  /** The bot's exits from its YAML; each field overrides the strategy's declaration. */
  readonly exits?: ExitRules | undefined;
  /** The bot's protections from its YAML; each field overrides the strategy's declaration. */
  readonly protections?: Protections | undefined;
  /** A MARGIN bot's margin model for its own account of loans (default DEFAULT_MARGIN_MODEL, the simulator's). */
  readonly marginModel?: MarginModel | undefined;
  /** The set-leverage entries applied at start (a MARGIN bot's gate reads the coins' leverage). */
  readonly leverage?:
    | readonly {
        readonly category: string;
        readonly coin?: string | undefined;
        readonly leverage?: string | undefined;
      }[]
    | undefined;
}

/** What `createLiveBot` builds a bot from. */
export interface LiveBotArgs {
  runtime: VenueRuntime;
  store: Store;
  spec: BotSpec;
  logger: StrategyLogger;
  /**
   * The log of the steps the bots of one account share (the fill router's baselines and unattributed
   * fills): not one bot's, whose name its lines would carry. Default: `logger`.
   */
  accountLogger?: FillRouterLogger | undefined;
  /** Subscribed before reconciliation, so the fills it pulls are seen too. */
  onEvent?: TraderListener | undefined;
  /** Told each candle the bot decides on (LiveBotOptions.onCandle). */
  onCandle?: ((c: Candle) => void) | undefined;
}

/**
 * Builds a bot on a runtime: its portfolio rebuilt from the journal, its trading state restored, its
 * pipeline (Trader) on the venue, and the journal reconciled with the venue (pending orders resent under
 * their clientOid, missed fills pulled).
 */
export async function createLiveBot(
  args: LiveBotArgs,
): Promise<{ bot: LiveBot; reconciled: ReconcileReport; portfolio: Portfolio }> {
  const { runtime, store, spec, logger } = args;
  const params = parseStrategyParams(spec.strategy, spec.params ?? {}) as Record<string, unknown>;
  const portfolio = botPortfolio(store, spec);
  const tradingState = restoredTradingState(store, spec);
  // The instruments tell each pair's coins, and that every configured symbol can be traded.
  const instruments = await instrumentsFor(runtime.client, spec.category);
  const { pairs, problems } = botPairs(spec, instruments);
  if (problems[0] !== undefined) throw new Error(problems[0].message);
  const realityCodes = realityCodesOf(pairs, instruments.listed);
  const trader = new Trader({
    bot: spec.name,
    pairs,
    venue: runtime.venue,
    journal: storeJournal(store),
    clock: runtime.clock,
    gate: new RiskGate(spec.risk),
    tradingState,
    portfolio,
    market: new MarketState(),
    fees: feeRatesOf(spec),
    maxSignalAgeMs: spec.maxSignalAgeMs,
    logger,
    sleep: scaledSleepFor(runtime),
    fillRouter: fillRouterFor(runtime, store, args.accountLogger ?? logger),
    fillsMode: spec.fills,
    exits: mergeExitRules(spec.strategy.exits, spec.exits),
    protections: mergeProtections(spec.strategy.protections, spec.protections),
    intervalMs: INTERVAL_MS[spec.interval],
    category: spec.category,
    marginLeverage: marginLeverageOf(spec.leverage),
    onFillsMode: (mode) =>
      logger.warn('whitelist access arrived: fills are read from the venue from now on', {
        bot: spec.name,
        fills: mode,
        note: "fills booked before were estimated; later ones are the venue's, from a new baseline",
      }),
  });
  if (args.onEvent) trader.subscribe(args.onEvent);
  const bot = new LiveBot({
    name: spec.name,
    strategy: spec.strategy,
    params,
    category: spec.category,
    symbols: spec.symbols,
    realityCodes,
    interval: spec.interval,
    hub: runtime.hub,
    store,
    logger,
    trader,
    fillPollMs: spec.fillPollMs,
    feedLimits:
      spec.feedLimits ??
      feedLimits({
        intervalMs: INTERVAL_MS[spec.interval],
        maxDataAgeMs: spec.risk.maxDataAgeMs,
        fillsPollMs: spec.fillPollMs ?? 2000,
      }),
    maxSignalAgeMs: spec.maxSignalAgeMs,
    allowedSessions: spec.risk.allowedSessions,
    onCandle: (c, warmUp) => {
      journalDecidedCandle(store, {
        bot: spec.name,
        candle: c,
        now: trader.clockNow(),
        warmUp,
        maxSignalAgeMs: spec.maxSignalAgeMs,
      });
      args.onCandle?.(c);
    },
  });
  const reconciled = await reconcile({ store, trader, bot: spec.name });
  return { bot, reconciled, portfolio };
}

/** The venue's instruments a bot of `category` needs: its category's, and the spot list that says isReality. */
export async function instrumentsFor(
  client: RestClient,
  category: TradeCategory,
): Promise<{ readonly listed: readonly Instrument[]; readonly spot: readonly Instrument[] }> {
  const listed = await client.instruments({ category });
  return { listed, spot: category === 'SPOT' ? listed : await client.instruments({ category: 'SPOT' }) };
}

/** A symbol a bot cannot trade, said with the bot's name and the symbol (and where it is in the list). */
export interface PairProblem {
  readonly index: number;
  readonly symbol: string;
  readonly message: string;
}

/**
 * A bot's pairs as the venue lists them: each symbol an instrument of the bot's category, a Reality stock
 * pair (spec 4.3: place-reality-order takes no other; isReality is a spot field, spec 2.1), quoted in the
 * coin the bot accounts in. Answers the pairs' coins, and a problem for each symbol that is none of these.
 */
export function botPairs(
  spec: Pick<BotSpec, 'name' | 'category' | 'symbols' | 'quoteCoin'>,
  instruments: { readonly listed: readonly Instrument[]; readonly spot: readonly Instrument[] },
): { pairs: { symbol: string; baseCoin: string; quoteCoin: string }[]; problems: PairProblem[] } {
  const pairs: { symbol: string; baseCoin: string; quoteCoin: string }[] = [];
  const problems: PairProblem[] = [];
  spec.symbols.forEach((s, index) => {
    const why = pairProblem(spec, s, instruments);
    if (typeof why === 'string')
      problems.push({ index, symbol: s, message: `bot ${spec.name}: ${s} ${why}` });
    else pairs.push({ symbol: why.symbol, baseCoin: why.baseCoin, quoteCoin: why.quoteCoin });
  });
  return { pairs, problems };
}

/** The instrument of a bot's symbol, or why the bot cannot trade it (a sentence after the symbol). */
function pairProblem(
  spec: Pick<BotSpec, 'category' | 'quoteCoin'>,
  s: string,
  instruments: { readonly listed: readonly Instrument[]; readonly spot: readonly Instrument[] },
): Instrument | string {
  const i = instruments.listed.find((x) => x.symbol === s);
  if (i === undefined)
    return `is not an instrument of ${spec.category} at the venue${didYouMean(
      s,
      instruments.listed.map((x) => x.symbol),
    )}: fix the symbol, or remove it from the bot's symbols`;
  if (instruments.spot.find((x) => x.symbol === s)?.isReality !== 'yes')
    return 'is not a Reality stock pair (isReality is not yes): orders go through place-reality-order, which takes Reality pairs only; trade a stock token instead';
  if (i.quoteCoin !== spec.quoteCoin)
    return `is quoted in ${i.quoteCoin}, the bot accounts in ${spec.quoteCoin}: set quoteCoin: ${i.quoteCoin}, or trade pairs quoted in ${spec.quoteCoin}`;
  return i;
}

/** The bot's trading state as the journal left it (HALTED survives a restart), journaled at each change. */
function restoredTradingState(store: Store, spec: BotSpec): TradingStateMachine {
  const stateKey = `trading-state:${spec.name}`;
  const saved = store.meta.get(stateKey) as TradingState | undefined;
  // A halt and the operator's pause outlive a restart; REDUCING is the day's losses, measured again.
  const tradingState = new TradingStateMachine(
    spec.risk,
    saved === 'HALTED' ? 'HALTED' : 'ACTIVE',
    store.meta.get(pausedKey(spec.name)) === 'true' || saved === 'PAUSED',
  );
  tradingState.onChange((c) => {
    store.tradingState.record(c.to, `${spec.name}: ${c.reason}`, c.ts);
    store.meta.set(stateKey, c.to, c.ts);
    store.meta.set(pausedKey(spec.name), String(c.paused), c.ts);
  });
  return tradingState;
}

/** The company code of each Reality pair of the bot (from the instrument's base coin, spec 2.1). */
function realityCodesOf(
  pairs: readonly { readonly symbol: string }[],
  listed: readonly Instrument[],
): Map<string, string> {
  const codes = new Map<string, string>();
  for (const { symbol } of pairs) {
    const i = listed.find((x) => x.symbol === symbol);
    const code = i === undefined ? undefined : realityCodeOf(i);
    if (code !== undefined) codes.set(symbol, code);
  }
  return codes;
}

/** How far (real ms) the local clock may run ahead of the venue's when it dates a placement. */
const CLOCK_SKEW_REAL_MS = 1000;

const routers = new WeakMap<VenueRuntime, WeakMap<Store, FillRouter>>();

/**
 * The one fill attribution step of the bots on a runtime and journal (one account): bots sharing a
 * symbol must attribute its fills together, or each would take the others' (see `FillRouter`).
 */
export function fillRouterFor(runtime: VenueRuntime, store: Store, logger?: FillRouterLogger): FillRouter {
  let byStore = routers.get(runtime);
  if (byStore === undefined) routers.set(runtime, (byStore = new WeakMap()));
  let router = byStore.get(store);
  if (router === undefined) {
    router = new FillRouter({
      venue: runtime.venue,
      now: () => runtime.clock.now(),
      logger,
      baselines: metaBaselineStore(store.meta),
      // The local estimate of the venue's time may run ahead of it by a request's latency, and the
      // fills are dated by the venue: seen in the e2e run at 120x, where 50 real ms are 6 venue seconds.
      clockSkewMs: CLOCK_SKEW_REAL_MS * (runtime.speed ?? 1),
    });
    byStore.set(store, router);
  }
  return router;
}

function scaledSleepFor(runtime: VenueRuntime): (ms: number) => Promise<void> {
  const s = runtime.scheduler;
  return s instanceof ScaledScheduler ? scaledSleep(s.speed) : scaledSleep(1);
}

/** A bot's portfolio rebuilt from its journaled fills; a MARGIN bot's keeps its loans (LoanBook). */
function botPortfolio(store: Store, spec: BotSpec): Portfolio {
  return Portfolio.fromFills(store.fills.list({ bot: spec.name }), {
    quoteCoin: spec.quoteCoin,
    cash: { [spec.quoteCoin]: spec.capital },
    ...(spec.category === 'MARGIN' ? { margin: spec.marginModel ?? DEFAULT_MARGIN_MODEL } : {}),
  });
}

/** A bot's fee rates: the taker rate, and the maker rate (default: the taker's). */
function feeRatesOf(spec: Pick<BotSpec, 'feeRate' | 'makerFeeRate'>): { taker: Decimal; maker: Decimal } {
  const taker = new Decimal(spec.feeRate);
  return { taker, maker: spec.makerFeeRate === undefined ? taker : new Decimal(spec.makerFeeRate) };
}
