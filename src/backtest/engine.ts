// The backtest engine: recorded candles on a virtual clock through THE SAME strategy modules and risk
// gate as the daemon, into an in-process venue built on the simulator's matching core. Market orders
// fill at the next candle's open plus slippage; limit orders when the price trades through them. A
// strategy only ever sees closed candles. Per candle the work is float arithmetic; Decimal is used per
// order and per fill only, which is what makes millions of candles per second possible.
import { createHash } from 'node:crypto';
import { Observable, type Subscriber } from 'rxjs';
import { INTERVAL_MS, type Ticker } from '../api/index.js';
import { InProcessVenue } from '../execution/in-process-venue.js';
import { MemoryJournal } from '../execution/journal.js';
import { MarketState, Trader, type TraderListener } from '../execution/trader.js';
import { VirtualClock } from '../feeds/clock.js';
import type { Candle } from '../market/candle.js';
import { Decimal, ZERO } from '../market/decimal.js';
import { parseInstrument, type InstrumentRules } from '../market/instrument-rules.js';
import { etParts, etToUtc, usSessionAt, type SessionState } from '../market/sessions.js';
import { Portfolio } from '../portfolio/portfolio.js';
import { RiskGate } from '../risk/gate.js';
import type { RiskLimits } from '../risk/limits.js';
import { TradingStateMachine } from '../risk/trading-state.js';
import { CandleFillModel, type CandleBar } from '../sim/candle-fills.js';
import type { FeeRates } from '../portfolio/fees.js';
import type { Strategy, StrategyLogger } from '../strategy/contract.js';
import { mergeExitRules, mergeProtections, type ExitRules, type Protections } from '../strategy/exits.js';
import { parseStrategyParams } from '../strategy/params.js';
import { MemoryStrategyState } from '../strategy/state.js';
import type { CandleSource } from './format.js';
import type {
  BacktestFill,
  BacktestResult,
  BacktestTrade,
  ChartBar,
  EquityCurvePoint,
  IntentOutcome,
} from './result.js';

export interface BacktestOptions {
  readonly source: CandleSource;
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
  /** Warm-up: candles before this time reach the strategy, but its intents are dropped before the gate. */
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
 * Step 1: the trading pipeline of a backtest: the one Trader, on the in-process venue (the matching core
 * over the current candle, by the shared candle fill model), a memory journal and a virtual clock.
 */
function backtestPipeline(
  o: BacktestOptions,
  rules: InstrumentRules,
  step: number,
  capital: string,
  fees: FeeRates,
): {
  trader: Trader;
  venue: InProcessVenue;
  cur: CurrentBar;
  portfolio: Portfolio;
  clock: VirtualClock;
  market: MarketState;
} {
  const symbol = o.source.meta.symbol;
  const quote = rules.quoteCoin;
  const cur: CurrentBar = { t: 0, open: 0, high: 0, low: 0, close: 0, known: false, touch: undefined };
  const venue = new InProcessVenue({
    market: new CandleFillModel({
      slippageBps: o.slippageBps,
      intervalMs: step,
      pricePrecision: () => rules.pricePrecision,
      barAt: (_s, t) => (cur.known && t >= cur.t && t < cur.t + step ? cur : undefined),
    }),
    pairs: [
      { symbol, baseCoin: rules.baseCoin, quoteCoin: quote, quantityPrecision: rules.quantityPrecision },
    ],
    balances: { [quote]: new Decimal(capital) },
    fees,
  });
  const clock = new VirtualClock(0);
  const portfolio = new Portfolio({ quoteCoin: quote, cash: { [quote]: capital } });
  const market = new MarketState();
  market.setRules(symbol, rules);
  const trader = new Trader({
    bot: o.bot ?? 'backtest',
    pairs: [{ symbol, baseCoin: rules.baseCoin, quoteCoin: quote }],
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
  return { trader, venue, cur, portfolio, clock, market };
}

/** Step 2: the backtest's records, as a subscriber of the pipeline's events. */
function collectResult(trader: Trader): {
  intents: IntentOutcome[];
  denials: Record<string, number>;
  fills: BacktestFill[];
} {
  const intents: { -readonly [K in keyof IntentOutcome]: IntentOutcome[K] }[] = [];
  const denials: Record<string, number> = {};
  const fills: BacktestFill[] = [];
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
        break;
      }
      case 'order':
        if (e.outcome.status === 'rejected') {
          const code = `VENUE_${e.outcome.code}`;
          denials[code] = (denials[code] ?? 0) + 1;
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
        break;
      default:
        break;
    }
  });
  return { intents, denials, fills };
}

/**
 * Runs one backtest: the replay loop feeds the candles to the strategy and the market state to the one
 * trading pipeline (Trader), whose orders go to the in-process venue. Same inputs, same trades:
 * `meta.tradeHash` pins the fill list.
 */
export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const meta = o.source.meta;
  const rules: InstrumentRules = parseInstrument(meta.instrument);
  const step = INTERVAL_MS[meta.interval];
  const symbol = meta.symbol;
  const capital = o.capital ?? '10000';
  const feeRate = new Decimal(o.feeRate ?? '0.001');
  const makerRate = new Decimal(o.makerFeeRate ?? o.feeRate ?? '0.001');
  const fees = { maker: makerRate, taker: feeRate };
  const params = parseStrategyParams(o.strategy, o.params ?? {}) as Record<string, unknown>;
  const dailyStock = meta.interval === '1D' && rules.isReality;
  // A daily stock candle is decided at the regular close (16:00 ET) of its date, other candles at their close.
  const decisionTime = (openTime: number): number =>
    dailyStock ? etToUtc(etParts(openTime).date, 16, 0) : openTime + step;

  const { trader, venue, cur, portfolio, clock, market } = backtestPipeline(o, rules, step, capital, fees);
  const q = market.quote(symbol);
  // The result is a subscriber of the pipeline's events.
  const { intents, denials, fills } = collectResult(trader);

  const candles$ = new ReplaySource<Candle>();
  const session$ = new ReplaySource<SessionState>();
  const tickers$ = new ReplaySource<Ticker>();
  let session: SessionState | undefined;
  let failure: unknown;
  const ctx = trader.strategyContext({
    params,
    logger: o.logger ?? silent,
    state: new MemoryStrategyState(),
    category: 'SPOT',
  });
  const sub = o.strategy
    .run(ctx, {
      candles$: candles$.observable,
      session$: session$.observable,
      tickers$: tickers$.observable,
      orders$: trader.feedback$(),
    })
    .subscribe({
      next: (i) => {
        // A warm-up (walk-forward's out-of-sample windows): the strategy sees the candles, nothing trades.
        if (o.tradeFrom !== undefined && clock.now() < o.tradeFrom) return;
        void trader.submit(i, clock.now());
      },
      error: (e: unknown) => (failure = e),
    });

  /**
   * The strategy decides on a closed candle; its intents go through the pipeline at the venue's time.
   * Synchronous unless it emitted intents (answers whether the pipeline has work to wait for): no promise
   * per candle.
   */
  const decide = (c: Candle): boolean => {
    const at = decisionTime(c.openTime);
    if (session === undefined || at >= session.nextChange) {
      session = usSessionAt(at);
      market.setSession(session);
      session$.next(session);
    }
    clock.set(Math.max(clock.now(), at));
    if (o.suspended !== undefined) market.setSuspended(symbol, o.suspended(symbol, clock.now()));
    q.last = c.close;
    q.ts = clock.now();
    if (tickers$.observed) tickers$.next(candleTicker(symbol, c, rules.pricePrecision, clock.now()));
    // Time exits are decided like a signal, at the candle's close, before the strategy decides.
    if (trader.exitsArmed) {
      const due = trader.timedExits(clock.now());
      if (due !== undefined) for (const x of due) void trader.exit(x, clock.now());
    }
    candles$.next(c);
    if (failure !== undefined) throw failure;
    return trader.busy;
  };
  const settle = async (): Promise<void> => {
    await trader.idle();
    if (failure !== undefined) throw failure;
  };

  const equity: EquityCurvePoint[] = [];
  const chart = new Downsampler();
  const keepChart = o.chart !== false;
  const every = o.equityEvery ?? Math.max(1, Math.round(86_400_000 / step));
  let n = 0;
  let first = Number.NaN;
  let lastT = Number.NaN;
  let lastClose = 0;
  const from = o.from ?? -Infinity;
  const to = o.to ?? Infinity;
  const started = performance.now();
  const sample = (ts: number) => {
    portfolio.mark(symbol, new Decimal(lastClose));
    const e = trader.sampleEquity(ts);
    equity.push({ ts, equity: e.toNumber(), exposed: portfolio.position(symbol).quantity.gt(0) });
  };
  // The candle the strategy has not decided on yet: it decides once the next candle's open is known,
  // so its orders reach the venue at that open (no lookahead: it never sees the candle's prices).
  let prev: Candle | undefined;

  for await (const b of o.source.batches()) {
    const { openTime, open, high, low, close, volume, turnover } = b;
    for (let i = 0; i < b.length; i++) {
      const t = openTime[i] as number;
      if (t < from || t > to) continue;
      const end = t + step;
      // One mutable record for the current candle: no allocation per candle for the venue's view.
      cur.t = t;
      cur.open = open[i] as number;
      cur.high = high[i] as number;
      cur.low = low[i] as number;
      cur.close = close[i] as number;
      cur.known = true;
      venue.setTime(t);
      // Orders resting from before fill first if this candle opens through them.
      if (venue.advance() > 0) await trader.syncFills();
      if (prev !== undefined && decide(prev)) await settle();
      // The candle's range through the exits of an open trade (src/execution/exits.ts): an exit that
      // triggers inside the candle fills at its trigger price, one that gapped through at the open.
      if (trader.exitsArmed) {
        const x = trader.barExit(symbol, cur);
        if (x !== undefined) {
          cur.touch = x.trigger;
          await trader.exit(x, clock.now());
          cur.touch = undefined;
          if (failure !== undefined) throw failure;
        }
      }
      venue.setTime(end);
      if (venue.advance() > 0) await trader.syncFills();
      lastClose = cur.close;
      if (trader.tracksEquity) trader.mark(symbol, new Decimal(lastClose), end);
      if (Number.isNaN(first)) first = t;
      lastT = t;
      prev = {
        symbol,
        interval: meta.interval,
        openTime: t,
        open: cur.open,
        high: cur.high,
        low: cur.low,
        close: cur.close,
        volume: volume[i] as number,
        turnover: turnover[i] as number,
      };
      if (keepChart) chart.add(t, cur.open, cur.high, cur.low, cur.close);
      if (++n % every === 0) sample(decisionTime(t));
    }
    o.onProgress?.(n);
  }
  // The last candle is decided too; nothing trades after the data ends, so its orders do not fill.
  cur.known = false;
  if (prev !== undefined && decide(prev)) await settle();
  sub.unsubscribe();
  if (n % every !== 0 && n > 0) sample(clock.now());
  const runMs = performance.now() - started;

  const trades = roundTrips(fills);
  const tradeHash = tradeHashOf(fills);
  portfolio.mark(symbol, new Decimal(lastClose || 0));
  return {
    meta: {
      strategy: o.strategy.name,
      params: o.params ?? {},
      dataset: o.dataset,
      symbol,
      interval: meta.interval,
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
    intents,
    denials,
    finalEquity: portfolio.equity().toFixed(),
    fees: portfolio.fees().toFixed(),
    chart: chart.bars,
    portfolio: finalHoldings(portfolio),
    timing: { runMs },
  };
}

/** The trade hash: SHA-256 of the fill list (time, side, price, size, fee). Same inputs, same hash. */
export function tradeHashOf(fills: readonly BacktestFill[]): string {
  return createHash('sha256')
    .update(fills.map((f) => `${f.ts},${f.side},${f.price},${f.size},${f.fee}`).join('\n'))
    .digest('hex');
}

/** Balances by coin and positions by symbol, as decimal strings. */
function finalHoldings(portfolio: Portfolio): BacktestResult['portfolio'] {
  return {
    cash: Object.fromEntries(Object.entries(portfolio.allCash()).map(([c, v]) => [c, v.toFixed()])),
    positions: Object.fromEntries(portfolio.positions().map((p) => [p.symbol, p.quantity.toFixed()])),
  };
}

/** Round trips from flat to flat, with average prices, PnL after fees. */
export function roundTrips(fills: readonly BacktestFill[]): BacktestTrade[] {
  const trades: BacktestTrade[] = [];
  let qty = ZERO;
  let buyQty = ZERO;
  let buyCost = ZERO;
  let sellQty = ZERO;
  let sellValue = ZERO;
  let fees = ZERO;
  let entry = 0;
  for (const f of fills) {
    const size = new Decimal(f.size);
    const value = size.mul(f.price);
    if (qty.isZero()) {
      entry = f.ts;
      buyQty = buyCost = sellQty = sellValue = fees = ZERO;
    }
    fees = fees.plus(f.fee);
    if (f.side === 'buy') {
      qty = qty.plus(size);
      buyQty = buyQty.plus(size);
      buyCost = buyCost.plus(value);
    } else {
      qty = qty.minus(size);
      sellQty = sellQty.plus(size);
      sellValue = sellValue.plus(value);
    }
    if (qty.isZero() && buyQty.gt(0)) {
      trades.push({
        symbol: f.symbol,
        side: 'long',
        entryTime: entry,
        exitTime: f.ts,
        entryPrice: buyCost.div(buyQty).toDecimalPlaces(8).toFixed(),
        exitPrice: sellValue.div(sellQty).toDecimalPlaces(8).toFixed(),
        quantity: buyQty.toFixed(),
        pnl: sellValue.minus(buyCost).minus(fees).toFixed(),
        fees: fees.toFixed(),
      });
    }
  }
  return trades;
}
