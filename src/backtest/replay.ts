// The replay loop: every candle of the merged sources, step by step, to the strategy and the pipeline.
// Hot and V8-sensitive: read the comments before changing a line of it.
import { INTERVAL_MS, type CandleInterval, type Ticker } from '../api/index.js';
import type { FillSync } from '../execution/fill-booking.js';
import type { InProcessVenue } from '../execution/in-process-venue.js';
import type { MarketState } from '../execution/market-state.js';
import type { ExitHooks } from '../execution/trade-guard.js';
import type { EquityPort, IntentPort } from '../execution/trader.js';
import type { VirtualClock } from '../feeds/clock.js';
import type { Candle } from '../market/candle.js';
import { Decimal } from '../market/decimal.js';
import { usSessionAt, type SessionState } from '../market/sessions.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import { mergeByTime, type LaneBatch } from '../data/merge-sources.js';
import type { CandleSource } from '../data/format.js';
import { candleTicker, decisionTime } from './decision.js';
import type { Lane } from './lanes.js';
import type { BacktestOptions } from './options.js';
import type { BacktestPipeline } from './pipeline.js';
import { ReplaySource } from './replay-source.js';
import type { WarmUp } from '../strategy/warm-up.js';
import { WarmUpProbe, probing, shortfallSentence, type WarmUpShortfall } from '../strategy/warm-up-probe.js';
import { EquityCurve } from './equity-curve.js';
import type { RoundTrips } from './round-trips.js';

/**
 * Step 3: the replay loop, its state and its steps as one object. Its methods are the same functions in
 * every run of a process (a sweep's, a walk-forward's): the closures of a new run made V8 throw away the
 * loop's optimised code at every run ("wrong call target"), and re-learn it.
 */
export class Replay {
  readonly candles$ = new ReplaySource<Candle>();
  readonly session$ = new ReplaySource<SessionState>();
  readonly tickers$ = new ReplaySource<Ticker>();
  /** The base candle being decided: intents and exposed values belong to it. */
  deciding: Candle | undefined = undefined;
  /** The strategy's error, thrown by the loop at the next step. */
  failure: unknown = undefined;
  /** The equity at every time step's close (numbers: statistics and charts; money stays in the portfolio). */
  readonly equity = new EquityCurve();
  n = 0;
  first = Number.NaN;
  lastT = Number.NaN;
  /** Time steps from the first one that may trade, and those at whose close a position was open. */
  readonly inMarket = { steps: 0, held: 0 };
  /** Intents the strategy emitted during its warm-up (or before `tradeFrom`): not sent. */
  warmUpIntents = 0;
  /** The indicators the strategy builds, asked when each symbol's warm-up ends (see `warmUpEnded`). */
  readonly probe = new WarmUpProbe();
  /** The first warm-up that ended short of what the indicators need, measured. */
  warmUpShort: WarmUpShortfall | undefined = undefined;
  private warmedUp = 0;
  /** Symbols whose first candle is still to come in a run without a warm-up (0 candles). */
  private readonly unprobed: Set<string>;
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
  /**
   * The marked equity per step as floats: the quote cash and each lane's quantity, read from the portfolio
   * again only after a fill (a Decimal sum per candle would cost the replay most of its speed).
   */
  private booked = true;
  private cashF = 0;
  /** Floats from the start (an array of 0s began as small integers in each run, then held floats). */
  private readonly held: Float64Array;

  constructor(
    private readonly o: BacktestOptions,
    private readonly lanes: readonly Lane[],
    private readonly interval: CandleInterval,
    p: BacktestPipeline,
    private readonly trips: RoundTrips,
    private readonly warmUp: WarmUp,
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
    this.held = new Float64Array(lanes.length);
    p.trader.subscribe((e) => {
      if (e.type === 'fill') this.booked = true;
    });
    this.unprobed = new Set(warmUp.candles > 0 ? [] : lanes.map((l) => l.symbol));
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
    return decisionTime(lane.dailyStock, openTime, this.step);
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
      // The warm-up counts every candle handed to the strategy, informative ones included; indicators built
      // now belong to the lane's symbol.
      this.warming = lane;
      probing(this.probe, lane.symbol, () => {
        if (lane.informative === undefined) this.deliverWarming(c);
        else lane.informative.push(c, this.deliverWarming);
      });
      if (lane.warmUp.complete) this.warmUpEnded(lane, this.warmUp.candles);
    } else if (this.unprobed.size > 0 && this.unprobed.delete(lane.symbol)) {
      // No warm-up: the indicators are asked after the first candle, the one they had.
      probing(this.probe, lane.symbol, () => {
        if (lane.informative === undefined) this.candles$.next(c);
        else lane.informative.push(c, this.deliver);
      });
      this.warmUpEnded(lane, 1);
    } else if (lane.informative === undefined) this.candles$.next(c);
    else lane.informative.push(c, this.deliver);
    if (this.failure !== undefined) throw this.failure;
    return intents.busy;
  }

  /**
   * A symbol's warm-up is over: the indicators fed during it (and, once every symbol's is over, those built
   * before any candle) that have fewer inputs than they need make the warm-up short, said before the first
   * trade (its intents fill at the next open at the earliest).
   */
  private warmUpEnded(lane: Lane, seen: number): void {
    const all = ++this.warmedUp === this.lanes.length;
    const short = this.probe.shortfall(seen, lane.symbol, all);
    if (short === undefined) return;
    if (this.warmUpShort === undefined || short.declare > this.warmUpShort.declare) this.warmUpShort = short;
    this.o.onWarmUpShort?.(short, shortfallSentence(short, this.warmUp));
  }

  private async settle(): Promise<void> {
    await this.intents.idle();
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Marks every symbol at its last close and samples the equity for the pipeline (the trading state's daily
   * loss, the protections), about once a day as a live bot does: its cadence is part of what trades.
   */
  private sample(ts: number): void {
    const { portfolio } = this;
    for (const l of this.lanes) portfolio.mark(l.symbol, new Decimal(l.lastClose));
    this.equityPort.sampleEquity(ts);
  }

  /** The equity at a step's close, every lane at its last close: one point of the curve. */
  private markEquity(ts: number): void {
    const { lanes, held } = this;
    if (this.booked) {
      const { portfolio } = this;
      this.cashF = portfolio.cash(portfolio.quoteCoin).toNumber();
      for (let k = 0; k < lanes.length; k++)
        held[k] = portfolio.position((lanes[k] as Lane).symbol).quantity.toNumber();
      this.booked = false;
    }
    let e = this.cashF;
    for (let k = 0; k < lanes.length; k++) {
      const q = held[k] as number;
      if (q !== 0) e += q * (lanes[k] as Lane).lastClose;
    }
    this.equity.push(ts, e);
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
    const at = this.decisionTime(lanes[0] as Lane, stepT);
    if (++this.steps % this.every === 0) this.sample(at);
    this.markEquity(at);
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
    // The pipeline's last sample (the curve's last point is the last step's close, marked above).
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
