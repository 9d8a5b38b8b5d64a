// The backtest engine: recorded candles on a virtual clock through THE SAME strategy modules and risk
// gate as the daemon, into an in-process venue built on the simulator's matching core. Market orders
// fill at the next candle's open plus slippage; limit orders when the price trades through them. A
// strategy only ever sees closed candles. Per candle the work is float arithmetic; Decimal is used per
// order and per fill only, which is what makes millions of candles per second possible.
import { createHash } from 'node:crypto';
import { Observable, type Subscriber } from 'rxjs';
import { INTERVAL_MS, type CandleInterval, type Ticker } from '../api/index.js';
import { InProcessVenue } from '../execution/in-process-venue.js';
import { MemoryJournal } from '../execution/journal.js';
import type { FillSync } from '../execution/fill-booking.js';
import { MarketState, emptyQuote, type Quote } from '../execution/market-state.js';
import type { ExitHooks } from '../execution/trade-guard.js';
import type { TraderListener } from '../execution/trader-events.js';
import { Trader, type EquityPort, type IntentPort } from '../execution/trader.js';
import { VirtualClock } from '../feeds/clock.js';
import type { Candle } from '../market/candle.js';
import { InformativeCandles } from '../market/resample.js';
import { Decimal, ZERO, aboveZero } from '../market/decimal.js';
import { parseInstrument, type InstrumentRules } from '../market/instrument-rules.js';
import { etParts, etToUtc, usSessionAt, type SessionState } from '../market/sessions.js';
import { Portfolio } from '../portfolio/portfolio.js';
import { RiskGate } from '../risk/gate.js';
import type { RiskLimits } from '../risk/limits.js';
import { TradingStateMachine } from '../risk/trading-state.js';
import { CandleFillModel, type CandleBar } from '../sim/candle-fills.js';
import type { FeeRates } from '../portfolio/fees.js';
import {
  informativeProblems,
  StrategyDefinitionError,
  type Strategy,
  type StrategyLogger,
} from '../strategy/contract.js';
import type { OrderIntent } from '../strategy/intent.js';
import { mergeExitRules, mergeProtections, type ExitRules, type Protections } from '../strategy/exits.js';
import { effectiveParams, parseStrategyParams } from '../strategy/params.js';
import { MemoryStrategyState } from '../strategy/state.js';
import { WarmUpCounter, type WarmUp } from '../strategy/warm-up.js';
import { CandleFileError, type CandleSource } from '../data/format.js';
import { mergeByTime, type LaneBatch } from '../data/merge-sources.js';
import type {
  BacktestFill,
  BacktestResult,
  BacktestTrade,
  ChartBar,
  EquityCurvePoint,
  FirstDenial,
  IntentOutcome,
  SymbolResult,
} from './result.js';

export interface BacktestOptions {
  /**
   * The candles: one source per symbol. Several sources (one symbol each, one interval, one quote coin)
   * are merged in time order, ties in the order given, into one run: one pipeline, one portfolio, one
   * capital, as a live bot with several symbols.
   */
  readonly source: CandleSource | readonly CandleSource[];
  readonly dataset: string;
  readonly strategy: Strategy;
  readonly params?: Record<string, unknown> | undefined;
  readonly capital?: string | undefined;
  readonly feeRate?: string | undefined;
  readonly makerFeeRate?: string | undefined;
  readonly slippageBps?: number | undefined;
  readonly risk: RiskLimits;
  /** Only candles with openTime in [from, to]. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  /**
   * Warm-up (walk-forward's out-of-sample windows): candles before this time reach the strategy, but its
   * intents are dropped before the gate, as those of the strategy's own warm-up (`Strategy.warmUp`) are.
   */
  readonly tradeFrom?: number | undefined;
  /** Sample equity every N candles (default: about once a day). */
  readonly equityEvery?: number | undefined;
  /** Keep downsampled bars for the HTML report (default true). */
  readonly chart?: boolean | undefined;
  readonly logger?: StrategyLogger | undefined;
  /** Name of the bot (it enters the client order ids, as live); default "backtest". */
  readonly bot?: string | undefined;
  /** Every event of the trading pipeline, as a live bot's subscribers see them. */
  readonly onEvent?: TraderListener | undefined;
  /** Whether a symbol is suspended at an instant (recorded suspensions); default never. */
  readonly suspended?: ((symbol: string, t: number) => boolean) | undefined;
  /** Called every batch with the number of candles done. */
  readonly onProgress?: ((candles: number) => void) | undefined;
  /** Exits from the backtest's YAML; each field overrides the strategy's declaration. */
  readonly exits?: ExitRules | undefined;
  /** Protections from the backtest's YAML; each field overrides the strategy's declaration. */
  readonly protections?: Protections | undefined;
  /** Each intent and exposed indicator value of the strategy, with its candle (the lookahead check). */
  readonly onSignal?: ((signal: StrategySignal) => void) | undefined;
}

/** A value the strategy produced on a candle: an intent (name "intent") or an exposed indicator. */
export interface StrategySignal {
  readonly symbol: string;
  /** Open time of the candle the value belongs to. */
  readonly openTime: number;
  readonly name: string;
  readonly value: number | string;
}

const silent: StrategyLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
const MAX_CHART_BARS = 3000;

/**
 * The replay loop's hot source: a minimal multicast that hands each value straight to its subscribers.
 * rxjs' Subject wraps every `next` in an error-context closure and walks its observers with an iterator
 * (the ES5 build node loads), which costs measurably at millions of candles. Strategies see a plain
 * Observable either way; errors still reach them through their Subscriber.
 */
class ReplaySource<T> {
  private subscribers: Subscriber<T>[] = [];
  readonly observable = new Observable<T>((s) => {
    this.subscribers.push(s);
    return () => {
      this.subscribers = this.subscribers.filter((x) => x !== s);
    };
  });
  get observed(): boolean {
    return this.subscribers.length > 0;
  }
  next(value: T): void {
    const subs = this.subscribers;
    for (let i = 0; i < subs.length; i++) (subs[i] as Subscriber<T>).next(value);
  }
}

/** Keeps at most MAX_CHART_BARS bars by doubling the bucket size whenever it is full. */
class Downsampler {
  bars: { time: number; open: number; high: number; low: number; close: number }[] = [];
  private per = 1;
  private n = 0;
  add(time: number, o: number, h: number, l: number, c: number): void {
    if (this.n++ % this.per !== 0) {
      // Same bucket: update the last bar in place (no allocation per candle).
      const last = this.bars[this.bars.length - 1] as ChartBar & { high: number; low: number; close: number };
      if (h > last.high) last.high = h;
      if (l < last.low) last.low = l;
      last.close = c;
      return;
    }
    this.bars.push({ time, open: o, high: h, low: l, close: c });
    if (this.bars.length >= MAX_CHART_BARS * 2) {
      const merged: typeof this.bars = [];
      for (let i = 0; i < this.bars.length; i += 2) {
        const a = this.bars[i] as ChartBar;
        const b = this.bars[i + 1] as ChartBar;
        merged.push({
          time: a.time,
          open: a.open,
          high: Math.max(a.high, b.high),
          low: Math.min(a.low, b.low),
          close: b.close,
        });
      }
      this.bars = merged;
      this.per *= 2;
    }
  }
}

/** The ticker a backtest derives at a candle's decision time (the rule is documented in backtest/README.md). */
function candleTicker(symbol: string, c: Candle, pricePrecision: number, ts: number): Ticker {
  const p = (x: number) => x.toFixed(pricePrecision);
  const last = p(c.close);
  return {
    symbol,
    category: 'SPOT',
    lastPrice: last,
    openPrice24h: p(c.open),
    highPrice24h: p(c.high),
    lowPrice24h: p(c.low),
    ask1Price: last,
    bid1Price: last,
    ask1Size: '0',
    bid1Size: '0',
    price24hPcnt: c.open > 0 ? ((c.close - c.open) / c.open).toFixed(6) : '0',
    volume24h: String(c.volume),
    turnover24h: String(c.turnover),
    ts: String(ts),
  };
}

/** The mutable current candle that the in-process venue fills against (no allocation per candle). */
interface CurrentBar extends CandleBar {
  t: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** False before the first candle and after the last: no market, nothing fills. */
  known: boolean;
  /** Set only while a pipeline exit that triggered inside the candle is placed (see candle-fills.ts). */
  touch: Decimal | undefined;
}

/**
 * One symbol of a run: its instrument, the mutable current candle the venue fills against, its quote in
 * the market state, and the candle it has not decided on yet.
 */
interface Lane {
  readonly symbol: string;
  readonly rules: InstrumentRules;
  readonly cur: CurrentBar;
  /** A daily stock candle is decided at the regular close (16:00 ET) of its date, others at their close. */
  readonly dailyStock: boolean;
  readonly informative: InformativeCandles | undefined;
  /** The candles of the strategy's warm-up it has seen of this symbol: no intent is sent before it is over. */
  readonly warmUp: WarmUpCounter;
  readonly chart: Downsampler;
  q: Quote;
  /** The candle the strategy has not decided on yet (it decides once the next candle's open is known). */
  prev: Candle | undefined;
  lastClose: number;
  candles: number;
}

/**
 * Step 0: the symbols of a run, one lane per source, checked to fit one run (one interval, one quote
 * coin, distinct symbols, informative intervals that resample from the base).
 */
function lanesOf(
  o: BacktestOptions,
  sources: readonly CandleSource[],
  warmUp: WarmUp,
): { lanes: Lane[]; interval: CandleInterval } {
  const first = sources[0];
  if (first === undefined) throw new CandleFileError('a backtest needs at least one dataset');
  const interval = first.meta.interval;
  const problems = informativeProblems(o.strategy, interval);
  if (problems.length > 0)
    throw new StrategyDefinitionError(
      `strategy "${o.strategy.name}" on ${interval} candles: ${problems.join('; ')}`,
    );
  const seen = new Set<string>();
  const lanes = sources.map((src): Lane => {
    const { symbol } = src.meta;
    const rules = parseInstrument(src.meta.instrument);
    if (src.meta.interval !== interval)
      throw new CandleFileError(
        `datasets of one backtest must share one interval: ${first.meta.symbol} is ${interval}, ${symbol} is ${src.meta.interval}`,
      );
    if (seen.has(symbol))
      throw new CandleFileError(
        `datasets of one backtest must be of distinct symbols: ${symbol} is given twice (files without tradebot metadata take theirs from names such as AAPL_USDT-1d.csv when \`instrument:\` names no symbol)`,
      );
    seen.add(symbol);
    if (rules.quoteCoin !== parseInstrument(first.meta.instrument).quoteCoin)
      throw new CandleFileError(
        `datasets of one backtest must share one quote coin (one capital): ${symbol} is quoted in ${rules.quoteCoin}`,
      );
    return {
      symbol,
      rules,
      cur: { t: 0, open: 0, high: 0, low: 0, close: 0, known: false, touch: undefined },
      dailyStock: interval === '1D' && rules.isReality,
      informative:
        o.strategy.informative.length > 0
          ? new InformativeCandles(symbol, interval, o.strategy.informative)
          : undefined,
      warmUp: new WarmUpCounter(warmUp.candles, [interval, ...o.strategy.informative]),
      chart: new Downsampler(),
      // Replaced by the market state's record of the symbol (same shape: the field's type never changes).
      q: emptyQuote(),
      prev: undefined,
      lastClose: 0,
      candles: 0,
    };
  });
  return { lanes, interval };
}

/**
 * Step 1: the trading pipeline of a backtest: the one Trader, on the in-process venue (the matching core
 * over each symbol's current candle, by the shared candle fill model), a memory journal and a virtual clock.
 */
function backtestPipeline(
  o: BacktestOptions,
  lanes: readonly Lane[],
  step: number,
  capital: string,
  fees: FeeRates,
): {
  trader: Trader;
  venue: InProcessVenue;
  portfolio: Portfolio;
  clock: VirtualClock;
  market: MarketState;
} {
  const quote = (lanes[0] as Lane).rules.quoteCoin;
  const bySymbol = new Map(lanes.map((l) => [l.symbol, l]));
  const venue = new InProcessVenue({
    market: new CandleFillModel({
      slippageBps: o.slippageBps,
      intervalMs: step,
      pricePrecision: (s) => bySymbol.get(s)?.rules.pricePrecision ?? 8,
      barAt: (s, t) => {
        const cur = bySymbol.get(s)?.cur;
        return cur !== undefined && cur.known && t >= cur.t && t < cur.t + step ? cur : undefined;
      },
    }),
    pairs: lanes.map((l) => ({
      symbol: l.symbol,
      baseCoin: l.rules.baseCoin,
      quoteCoin: quote,
      quantityPrecision: l.rules.quantityPrecision,
    })),
    balances: { [quote]: new Decimal(capital) },
    fees,
  });
  const clock = new VirtualClock(0);
  const portfolio = new Portfolio({ quoteCoin: quote, cash: { [quote]: capital } });
  const market = new MarketState();
  for (const l of lanes) market.setRules(l.symbol, l.rules);
  const trader = new Trader({
    bot: o.bot ?? 'backtest',
    pairs: lanes.map((l) => ({ symbol: l.symbol, baseCoin: l.rules.baseCoin, quoteCoin: quote })),
    venue,
    journal: new MemoryJournal(),
    clock,
    gate: new RiskGate(o.risk),
    tradingState: new TradingStateMachine(o.risk),
    portfolio,
    market,
    fees,
    maxAttempts: 1,
    exits: mergeExitRules(o.strategy.exits, o.exits),
    protections: mergeProtections(o.strategy.protections, o.protections),
    intervalMs: step,
  });
  if (o.onEvent) trader.subscribe(o.onEvent);
  for (const l of lanes) l.q = market.quote(l.symbol);
  return { trader, venue, portfolio, clock, market };
}

/** Step 2: the backtest's records, as a subscriber of the pipeline's events. */
function collectResult(trader: Trader): {
  intents: IntentOutcome[];
  denials: Record<string, number>;
  firstDenials: Record<string, FirstDenial>;
  fills: BacktestFill[];
  trips: RoundTrips;
} {
  const intents: { -readonly [K in keyof IntentOutcome]: IntentOutcome[K] }[] = [];
  const denials: Record<string, number> = {};
  // The first refusal of each code, with its sentence: what a count alone cannot tell.
  const firstDenials: Record<string, FirstDenial> = {};
  const fills: BacktestFill[] = [];
  const trips = new RoundTrips();
  trader.subscribe((e) => {
    switch (e.type) {
      case 'intent':
        intents.push({
          ts: e.ts,
          symbol: e.intent.symbol,
          side: e.intent.side,
          type: e.intent.type,
          tag: e.intent.tag,
          approved: true,
        });
        break;
      case 'denied': {
        const last = intents[intents.length - 1];
        if (last !== undefined) {
          last.approved = false;
          last.code = e.code;
        }
        denials[e.code] = (denials[e.code] ?? 0) + 1;
        firstDenials[e.code] ??= { ts: e.ts, symbol: e.intent.symbol, message: e.message };
        break;
      }
      case 'order':
        if (e.outcome.status === 'rejected') {
          const code = `VENUE_${e.outcome.code}`;
          denials[code] = (denials[code] ?? 0) + 1;
          firstDenials[code] ??= { ts: e.ts, symbol: e.intent.symbol, message: e.outcome.message };
        }
        break;
      case 'fill':
        fills.push({
          ts: e.fill.ts,
          symbol: e.fill.symbol,
          side: e.fill.side,
          price: e.fill.price.toFixed(),
          size: e.fill.size.toFixed(),
          fee: e.fill.fee.toFixed(),
          liquidity: e.fill.liquidity,
          tag: e.fill.tag,
        });
        trips.add(e.fill);
        break;
      default:
        break;
    }
  });
  return { intents, denials, firstDenials, fills, trips };
}

/**
 * Step 3: the replay loop, its state and its steps as one object. Its methods are the same functions in
 * every run of a process (a sweep's, a walk-forward's): the closures of a new run made V8 throw away the
 * loop's optimised code at every run ("wrong call target"), and re-learn it.
 */
class Replay {
  readonly candles$ = new ReplaySource<Candle>();
  readonly session$ = new ReplaySource<SessionState>();
  readonly tickers$ = new ReplaySource<Ticker>();
  /** The base candle being decided: intents and exposed values belong to it. */
  deciding: Candle | undefined = undefined;
  /** The strategy's error, thrown by the loop at the next step. */
  failure: unknown = undefined;
  readonly equity: EquityCurvePoint[] = [];
  n = 0;
  first = Number.NaN;
  lastT = Number.NaN;
  /** Time steps from the first one that may trade, and those at whose close a position was open. */
  readonly inMarket = { steps: 0, held: 0 };
  /** Intents the strategy emitted during its warm-up (or before `tradeFrom`): not sent. */
  warmUpIntents = 0;
  private session: SessionState | undefined = undefined;
  private steps = 0;
  /** The time step being replayed (its open time); the lanes with a candle in it have cur.t === stepT. */
  private stepT = Number.NaN;
  private inStep = false;
  private readonly step: number;
  private readonly every: number;
  private readonly tradeFrom: number;
  /** The pipeline through its ports: intents in, fills read, prices marked, exits asked per candle. */
  private readonly intents: IntentPort;
  private readonly fills: FillSync;
  private readonly equityPort: EquityPort;
  private readonly exits: ExitHooks;
  private readonly venue: InProcessVenue;
  private readonly portfolio: Portfolio;
  private readonly clock: VirtualClock;
  private readonly market: MarketState;
  private readonly deliver = (c: Candle): void => this.candles$.next(c);
  /** The lane whose candles `deliverWarming` counts (set before each push while its warm-up lasts). */
  private warming: Lane | undefined = undefined;
  private readonly deliverWarming = (c: Candle): void => {
    (this.warming as Lane).warmUp.see(c);
    this.candles$.next(c);
  };
  private readonly bySymbol: ReadonlyMap<string, Lane>;
  private readonly from: number;
  private readonly to: number;
  private readonly single: boolean;
  private readonly keepChart: boolean;

  constructor(
    private readonly o: BacktestOptions,
    private readonly lanes: readonly Lane[],
    private readonly interval: CandleInterval,
    p: ReturnType<typeof backtestPipeline>,
    private readonly trips: RoundTrips,
  ) {
    this.step = INTERVAL_MS[interval];
    this.every = o.equityEvery ?? Math.max(1, Math.round(86_400_000 / this.step));
    this.tradeFrom = o.tradeFrom ?? -Infinity;
    this.intents = p.trader;
    this.fills = p.trader;
    this.equityPort = p.trader;
    this.exits = p.trader.guard;
    this.venue = p.venue;
    this.portfolio = p.portfolio;
    this.clock = p.clock;
    this.market = p.market;
    this.from = o.from ?? -Infinity;
    this.to = o.to ?? Infinity;
    this.single = lanes.length === 1;
    this.keepChart = o.chart !== false;
    this.bySymbol = new Map(lanes.map((l) => [l.symbol, l]));
  }

  /**
   * Whether an intent emitted now may trade: after `tradeFrom`, and after the warm-up of the symbol it is
   * for and of the candle being decided. One that may not is counted and dropped before the gate.
   */
  mayTrade(symbol: string): boolean {
    const ok =
      !(this.clock.now() < this.tradeFrom) &&
      this.bySymbol.get(symbol)?.warmUp.complete !== false &&
      (this.deciding === undefined || this.bySymbol.get(this.deciding.symbol)?.warmUp.complete !== false);
    if (!ok) this.warmUpIntents++;
    return ok;
  }

  /** A daily stock candle is decided at the regular close (16:00 ET) of its date, others at their close. */
  private decisionTime(lane: Lane, openTime: number): number {
    return lane.dailyStock ? etToUtc(etParts(openTime).date, 16, 0) : openTime + this.step;
  }

  /**
   * The strategy decides on a closed candle; its intents go through the pipeline at the venue's time.
   * Synchronous unless it emitted intents (answers whether the pipeline has work to wait for): no promise
   * per candle.
   */
  private decide(lane: Lane, c: Candle): boolean {
    const { clock, intents, exits } = this;
    const at = this.decisionTime(lane, c.openTime);
    if (this.session === undefined || at >= this.session.nextChange) {
      this.session = usSessionAt(at);
      this.market.setSession(this.session);
      this.session$.next(this.session);
    }
    clock.set(Math.max(clock.now(), at));
    const suspended = this.o.suspended;
    if (suspended !== undefined) this.market.setSuspended(lane.symbol, suspended(lane.symbol, clock.now()));
    lane.q.last = c.close;
    lane.q.ts = clock.now();
    if (this.tickers$.observed)
      this.tickers$.next(candleTicker(lane.symbol, c, lane.rules.pricePrecision, clock.now()));
    // Time exits are decided like a signal, at the candle's close, before the strategy decides.
    if (exits.timeArmed) {
      const due = exits.due(clock.now());
      if (due !== undefined) for (const x of due) void intents.exit(x, clock.now());
    }
    this.deciding = c;
    if (!lane.warmUp.complete) {
      // The warm-up counts every candle handed to the strategy, informative ones included.
      this.warming = lane;
      if (lane.informative === undefined) this.deliverWarming(c);
      else lane.informative.push(c, this.deliverWarming);
    } else if (lane.informative === undefined) this.candles$.next(c);
    else lane.informative.push(c, this.deliver);
    if (this.failure !== undefined) throw this.failure;
    return intents.busy;
  }

  private async settle(): Promise<void> {
    await this.intents.idle();
    if (this.failure !== undefined) throw this.failure;
  }

  /** Marks every symbol at its last close and samples the equity. */
  private sample(ts: number): void {
    const { portfolio } = this;
    for (const l of this.lanes) portfolio.mark(l.symbol, new Decimal(l.lastClose));
    const e = this.equityPort.sampleEquity(ts);
    this.equity.push({ ts, equity: e.toNumber() });
  }

  /** Closes the time step: the venue moves to its close (answers whether resting orders filled). */
  private closeStep(): boolean {
    this.venue.setTime(this.stepT + this.step);
    return this.venue.advance() > 0;
  }

  /**
   * After a step's close: the time in the market counted (a position open at the close: a buy that filled
   * at a step's open counts that step, a sell at a step's open does not), prices marked (when a daily loss
   * limit needs equity), equity sampled.
   */
  private markStep(): void {
    const { equityPort, lanes, stepT, inMarket } = this;
    if (!(stepT < this.tradeFrom)) {
      inMarket.steps++;
      if (this.trips.holding > 0) inMarket.held++;
    }
    if (equityPort.tracksEquity)
      for (let k = 0; k < lanes.length; k++) {
        const l = lanes[k] as Lane;
        if (l.cur.t === stepT) equityPort.mark(l.symbol, new Decimal(l.lastClose), stepT + this.step);
      }
    if (++this.steps % this.every === 0) this.sample(this.decisionTime(lanes[0] as Lane, stepT));
  }

  /**
   * The replay: every candle of the merged sources, step by step (see runBacktest). A batch's candles are
   * replayed by `replayBatch`, a function of its own: with the per-batch code (the progress call) in the
   * candle loop, V8 compiled the loop on the fly without type feedback for that code and threw the compiled
   * loop away at the end of the first batch (`node --trace-deopt`), to compile it again.
   */
  async run(sources: readonly CandleSource[]): Promise<void> {
    const { o, lanes, fills } = this;
    for await (const b of mergeByTime(sources)) {
      await this.replayBatch(b);
      o.onProgress?.(this.n);
    }
    if (this.inStep) {
      if (this.closeStep()) await fills.syncFills();
      this.markStep();
    }
    // The last candles are decided too; nothing trades after the data ends, so their orders do not fill.
    for (const l of lanes) l.cur.known = false;
    for (const l of lanes) if (l.prev !== undefined && this.decide(l, l.prev)) await this.settle();
    if (this.steps % this.every !== 0 && this.steps > 0) this.sample(this.clock.now());
  }

  /** The candles of one merged batch, in time order. */
  private async replayBatch(b: LaneBatch): Promise<void> {
    // Everything is read inside the loop, nothing before it: V8 records type feedback only once a
    // function has run a while, so code before the loop had none when the loop was first compiled, and
    // the compiled loop was thrown away at the next batch.
    for (let i = 0; i < b.length; i++) {
      const t = b.openTime[i] as number;
      if (t < this.from || t > this.to) continue;
      const { lanes, venue, fills, exits } = this;
      const lane = (this.single ? lanes[0] : lanes[(b.lane as Uint16Array)[i] as number]) as Lane;
      if (t !== this.stepT) {
        if (this.inStep) {
          if (this.closeStep()) await fills.syncFills();
          this.markStep();
        }
        this.stepT = t;
        this.inStep = true;
      }
      // One mutable record per symbol for the current candle: no allocation per candle for the venue's view.
      const cur = lane.cur;
      cur.t = t;
      cur.open = b.open[i] as number;
      cur.high = b.high[i] as number;
      cur.low = b.low[i] as number;
      cur.close = b.close[i] as number;
      cur.known = true;
      venue.setTime(t);
      // Orders resting from before fill first if this candle opens through them.
      if (venue.advance() > 0) await fills.syncFills();
      if (lane.prev !== undefined && this.decide(lane, lane.prev)) await this.settle();
      // The candle's range through the exits of an open trade (src/execution/exits.ts): an exit that
      // triggers inside the candle fills at its trigger price, one that gapped through at the open.
      if (exits.armed) {
        const x = exits.onBar(lane.symbol, cur);
        if (x !== undefined) {
          cur.touch = x.trigger;
          await this.intents.exit(x, this.clock.now());
          cur.touch = undefined;
          if (this.failure !== undefined) throw this.failure;
        }
      }
      lane.lastClose = cur.close;
      if (Number.isNaN(this.first)) this.first = t;
      this.lastT = t;
      lane.candles++;
      this.n++;
      lane.prev = {
        symbol: lane.symbol,
        interval: this.interval,
        openTime: t,
        open: cur.open,
        high: cur.high,
        low: cur.low,
        close: cur.close,
        volume: b.volume[i] as number,
        turnover: b.turnover[i] as number,
      };
      if (this.keepChart) lane.chart.add(t, cur.open, cur.high, cur.low, cur.close);
    }
  }
}

/** An intent as one comparable string (the lookahead check compares them between runs). */
export function intentSignal(i: OrderIntent): string {
  const size =
    i.type === 'market' && i.side === 'buy' ? `${i.quoteAmount.toFixed()} quote` : i.quantity.toFixed();
  const price = i.type === 'limit' ? ` @ ${i.price.toFixed()}` : '';
  return `${i.side} ${i.type} ${size}${price} ${i.tag}`;
}

/**
 * Runs one backtest: the replay loop feeds the candles to the strategy and the market state to the one
 * trading pipeline (Trader), whose orders go to the in-process venue. Same inputs, same trades:
 * `meta.tradeHash` pins the fill list.
 *
 * Per time step (the candles of every symbol that open at one time, in symbol order):
 *   open:   each symbol's candle becomes its current bar; resting orders that it opens through fill;
 *           the strategy decides on that symbol's previous candle (informative candles it closes first),
 *           and its intents go through the pipeline at that open;
 *   close:  once the step's last candle is in, the venue moves to the step's close (market orders fill at
 *           the open plus slippage, limit orders when traded through), prices are marked, equity sampled.
 */
export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const sources: readonly CandleSource[] = Array.isArray(o.source) ? o.source : [o.source as CandleSource];
  const params = parseStrategyParams(o.strategy, o.params ?? {}) as Record<string, unknown>;
  const warmUp = o.strategy.warmUp(params);
  const { lanes, interval } = lanesOf(o, sources, warmUp);
  const step = INTERVAL_MS[interval];
  const capital = o.capital ?? '10000';
  const feeRate = new Decimal(o.feeRate ?? '0.001');
  const makerRate = new Decimal(o.makerFeeRate ?? o.feeRate ?? '0.001');
  const fees = { maker: makerRate, taker: feeRate };

  const pipeline = backtestPipeline(o, lanes, step, capital, fees);
  const { trader, portfolio, clock } = pipeline;
  // The result is a subscriber of the pipeline's events.
  const { intents, denials, firstDenials, fills, trips } = collectResult(trader);
  const { trades } = trips;
  const replay = new Replay(o, lanes, interval, pipeline, trips);

  const onSignal = o.onSignal;
  const ctx = trader.strategyContext({
    params,
    logger: o.logger ?? silent,
    state: new MemoryStrategyState(),
    category: 'SPOT',
    expose:
      onSignal === undefined
        ? undefined
        : (name, value, candle) => {
            const c = candle ?? replay.deciding;
            if (c !== undefined) onSignal({ symbol: c.symbol, openTime: c.openTime, name, value });
          },
  });
  const sub = o.strategy
    .run(ctx, {
      candles$: replay.candles$.observable,
      session$: replay.session$.observable,
      tickers$: replay.tickers$.observable,
      orders$: trader.feedback$(),
    })
    .subscribe({
      next: (i) => {
        const deciding = replay.deciding;
        if (onSignal !== undefined && deciding !== undefined)
          onSignal({
            symbol: deciding.symbol,
            openTime: deciding.openTime,
            name: 'intent',
            value: intentSignal(i),
          });
        // The warm-up (the strategy's own, and walk-forward's before an out-of-sample window): the strategy
        // sees the candles, nothing trades.
        if (!replay.mayTrade(i.symbol)) return;
        void trader.submit(i, clock.now());
      },
      error: (e: unknown) => (replay.failure = e),
    });

  const started = performance.now();
  await replay.run(sources);
  sub.unsubscribe();
  const { equity, n, first, lastT, inMarket, warmUpIntents } = replay;
  const single = lanes.length === 1;
  const runMs = performance.now() - started;

  const tradeHash = tradeHashOf(fills, !single);
  for (const l of lanes) portfolio.mark(l.symbol, new Decimal(l.lastClose || 0));
  const symbols = lanes.map((l) => l.symbol);
  return {
    meta: {
      strategy: o.strategy.name,
      params: effectiveParams(o.strategy.params, o.params ?? {}),
      dataset: o.dataset,
      symbol: symbols.join(','),
      ...(single ? {} : { symbols }),
      interval,
      ...(o.strategy.informative.length > 0 ? { informative: [...o.strategy.informative] } : {}),
      from: first,
      to: lastT,
      candles: n,
      capital,
      feeRate: feeRate.toFixed(),
      slippageBps: o.slippageBps ?? 0,
      tradeHash,
    },
    fills,
    trades,
    equity,
    inMarket: { ...inMarket },
    warmUp: { candles: warmUp.candles, source: warmUp.source, intents: warmUpIntents },
    intents,
    denials,
    firstDenials,
    finalEquity: portfolio.equity().toFixed(),
    fees: portfolio.fees().toFixed(),
    chart: (lanes[0] as Lane).chart.bars,
    ...(single ? {} : { charts: Object.fromEntries(lanes.map((l) => [l.symbol, l.chart.bars])) }),
    bySymbol: symbolResults(lanes, fills, trades, portfolio),
    portfolio: finalHoldings(portfolio),
    timing: { runMs },
  };
}

/** Per-symbol figures of a run: candles, fills, round trips, realised PnL, fees, holdings. */
function symbolResults(
  lanes: readonly Lane[],
  fills: readonly BacktestFill[],
  trades: readonly BacktestTrade[],
  portfolio: Portfolio,
): Record<string, SymbolResult> {
  const out: Record<string, SymbolResult> = {};
  for (const l of lanes) {
    const mine = trades.filter((t) => t.symbol === l.symbol);
    const myFills = fills.filter((f) => f.symbol === l.symbol);
    out[l.symbol] = {
      candles: l.candles,
      fills: myFills.length,
      trades: mine.length,
      wins: mine.filter((t) => new Decimal(t.pnl).gt(0)).length,
      pnl: mine.reduce((a, t) => a.plus(t.pnl), ZERO).toFixed(),
      fees: myFills.reduce((a, f) => a.plus(f.fee), ZERO).toFixed(),
      position: portfolio.position(l.symbol).quantity.toFixed(),
      lastClose: new Decimal(l.lastClose).toFixed(),
    };
  }
  return out;
}

/**
 * The trade hash: SHA-256 of the fill list (time, side, price, size, fee; and the symbol when a run spans
 * several). Same inputs, same hash.
 */
export function tradeHashOf(fills: readonly BacktestFill[], withSymbol = false): string {
  return createHash('sha256')
    .update(
      fills
        .map((f) => `${withSymbol ? `${f.symbol},` : ''}${f.ts},${f.side},${f.price},${f.size},${f.fee}`)
        .join('\n'),
    )
    .digest('hex');
}

/** Balances by coin and positions by symbol, as decimal strings. */
function finalHoldings(portfolio: Portfolio): BacktestResult['portfolio'] {
  return {
    cash: Object.fromEntries(Object.entries(portfolio.allCash()).map(([c, v]) => [c, v.toFixed()])),
    positions: Object.fromEntries(portfolio.positions().map((p) => [p.symbol, p.quantity.toFixed()])),
  };
}

/** A side's average price, to 8 places: the one fill's price, or value / quantity over several fills. */
function averagePrice(only: Decimal | undefined, value: Decimal, qty: Decimal): string {
  return (only ?? value.div(qty)).toDecimalPlaces(8).toFixed();
}

/** What a round trip needs of a fill: the pipeline's fill, amounts in Decimal. */
interface TripFill {
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly price: Decimal;
  readonly size: Decimal;
  /** price x size */
  readonly notional: Decimal;
  readonly fee: Decimal;
  readonly ts: number;
}

/**
 * Round trips from flat to flat, per symbol, with average prices and PnL after fees, in the order they
 * closed: fed each fill as the pipeline books it (its Decimals, not their strings read back).
 */
export class RoundTrips {
  readonly trades: BacktestTrade[] = [];
  /** Symbols with a position open now (for the time in the market). */
  holding = 0;
  private readonly open = new Map<
    string,
    {
      qty: Decimal;
      buyQty: Decimal;
      buyCost: Decimal;
      sellQty: Decimal;
      sellValue: Decimal;
      fees: Decimal;
      entry: number;
      /** The price of the trade's only buy (sell) fill so far; undefined once it has several. */
      buyPrice: Decimal | undefined;
      sellPrice: Decimal | undefined;
    }
  >();

  add(f: TripFill): void {
    let o = this.open.get(f.symbol);
    if (o === undefined) {
      o = {
        qty: ZERO,
        buyQty: ZERO,
        buyCost: ZERO,
        sellQty: ZERO,
        sellValue: ZERO,
        fees: ZERO,
        entry: 0,
        buyPrice: undefined,
        sellPrice: undefined,
      };
      this.open.set(f.symbol, o);
    }
    const value = f.notional;
    const wasFlat = o.qty.isZero();
    if (wasFlat) {
      o.entry = f.ts;
      o.buyQty = o.buyCost = o.sellQty = o.sellValue = o.fees = ZERO;
    }
    o.fees = o.fees.plus(f.fee);
    if (f.side === 'buy') {
      // The side's first fill is the one that finds its quantity still zero.
      o.buyPrice = o.buyQty.isZero() ? f.price : undefined;
      o.qty = o.qty.plus(f.size);
      o.buyQty = o.buyQty.plus(f.size);
      o.buyCost = o.buyCost.plus(value);
    } else {
      o.sellPrice = o.sellQty.isZero() ? f.price : undefined;
      o.qty = o.qty.minus(f.size);
      o.sellQty = o.sellQty.plus(f.size);
      o.sellValue = o.sellValue.plus(value);
    }
    const flat = o.qty.isZero();
    if (flat !== wasFlat) this.holding += flat ? -1 : 1;
    if (flat && aboveZero(o.buyQty)) {
      this.trades.push({
        symbol: f.symbol,
        side: 'long',
        entryTime: o.entry,
        exitTime: f.ts,
        // A side of one fill averages to that fill's price (its value is price x size, exactly): no division.
        entryPrice: averagePrice(o.buyPrice, o.buyCost, o.buyQty),
        exitPrice: averagePrice(o.sellPrice, o.sellValue, o.sellQty),
        quantity: o.buyQty.toFixed(),
        pnl: o.sellValue.minus(o.buyCost).minus(o.fees).toFixed(),
        fees: o.fees.toFixed(),
      });
    }
  }
}
