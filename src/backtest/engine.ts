// The backtest engine: recorded candles on a virtual clock through THE SAME strategy modules and risk
// gate as the daemon, into an in-process venue built on the simulator's matching core. Market orders
// fill at the next candle's open plus slippage; limit orders when the price trades through them. A
// strategy only ever sees closed candles. Per candle the work is float arithmetic; Decimal is used per
// order and per fill only, which is what makes millions of candles per second possible.
import { createHash } from 'node:crypto';
import { Observable, type Subscriber } from 'rxjs';
import { INTERVAL_MS } from '../api/index.js';
import { VirtualClock } from '../feeds/clock.js';
import type { Candle } from '../market/candle.js';
import { Decimal, ZERO } from '../market/decimal.js';
import { parseInstrument, type InstrumentRules } from '../market/instrument-rules.js';
import { etParts, etToUtc, usSessionAt, type SessionState } from '../market/sessions.js';
import { Portfolio } from '../portfolio/portfolio.js';
import { RiskGate } from '../risk/gate.js';
import type { RiskLimits } from '../risk/limits.js';
import { TradingStateMachine } from '../risk/trading-state.js';
import {
  MatchingCore,
  type CoreFill,
  type Level,
  type MarketView,
  type PlaceRequest,
} from '../sim/matching.js';
import type { Strategy, StrategyLogger } from '../strategy/contract.js';
import type { OrderIntent } from '../strategy/intent.js';
import { parseStrategyParams } from '../strategy/params.js';
import { MemoryStrategyState } from '../strategy/state.js';
import type { CandleSource } from './format.js';
import type {
  BacktestFill,
  BacktestResult,
  BacktestTrade,
  ChartBar,
  EquityPoint,
  IntentRecord,
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
  /** Called every batch with the number of candles done. */
  readonly onProgress?: ((candles: number) => void) | undefined;
}

const silent: StrategyLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
const ACCOUNT = 'backtest';
/** The fill model's liquidity at the open: more than an order can ask for. */
const UNLIMITED = new Decimal('1e15');
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

/** Runs one backtest. Same inputs, same trades: `meta.tradeHash` pins the fill list. */
export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const meta = o.source.meta;
  const rules: InstrumentRules = parseInstrument(meta.instrument);
  const step = INTERVAL_MS[meta.interval];
  const symbol = meta.symbol;
  const quote = rules.quoteCoin;
  const capital = o.capital ?? '10000';
  const feeRate = new Decimal(o.feeRate ?? '0.001');
  const makerRate = new Decimal(o.makerFeeRate ?? o.feeRate ?? '0.001');
  const slip = (o.slippageBps ?? 0) / 10_000;
  const params = parseStrategyParams(o.strategy, o.params ?? {}) as Record<string, unknown>;
  const dailyStock = meta.interval === '1D' && rules.isReality;
  // A daily stock candle is decided at the regular close (16:00 ET) of its date, other candles at their close.
  const decisionTime = (openTime: number): number =>
    dailyStock ? etToUtc(etParts(openTime).date, 16, 0) : openTime + step;

  // The in-process venue: the simulator's matching core over the current candle.
  const cur = { t: 0, open: 0, high: 0, low: 0, close: 0, end: 0 };
  const priceDp = rules.pricePrecision;
  const view: MarketView = {
    levels(_s, side): Iterable<Level> {
      const px = new Decimal(cur.open * (side === 'buy' ? 1 + slip : 1 - slip)).toDecimalPlaces(
        priceDp,
        side === 'buy' ? Decimal.ROUND_UP : Decimal.ROUND_DOWN,
      );
      return [{ price: px, qty: UNLIMITED }];
    },
    firstTouch(_s, side, price, from, to) {
      const p = price.toNumber();
      // Before the candle ends only its open is known; over the whole candle, its low/high.
      const through =
        to < cur.end
          ? side === 'buy'
            ? cur.open < p
            : cur.open > p
          : side === 'buy'
            ? cur.low < p
            : cur.high > p;
      return through ? Math.max(from, cur.t) : undefined;
    },
  };
  const core = new MatchingCore({
    market: view,
    pair: (s) =>
      s === symbol
        ? { symbol, baseCoin: rules.baseCoin, quoteCoin: quote, quantityPrecision: rules.quantityPrecision }
        : undefined,
  });
  core.createAccount(ACCOUNT, {
    balances: { [quote]: new Decimal(capital) },
    takerFeeRate: feeRate,
    makerFeeRate: makerRate,
  });

  const clock = new VirtualClock(0);
  const portfolio = new Portfolio({ quoteCoin: quote, cash: { [quote]: capital } });
  const gate = new RiskGate(o.risk);
  const trading = new TradingStateMachine(o.risk);
  const candles$ = new ReplaySource<Candle>();
  const session$ = new ReplaySource<SessionState>();
  let session: SessionState | undefined;
  let lastClose = 0;
  const recent: number[] = [];
  const pending: { req: PlaceRequest; tag: string }[] = [];
  const intents: IntentRecord[] = [];
  const denials: Record<string, number> = {};
  const fills: BacktestFill[] = [];
  const tagOf = new Map<string, string>();
  let oid = 0;

  const onIntent = (intent: OrderIntent) => {
    const now = clock.now();
    if (o.tradeFrom !== undefined && now < o.tradeFrom) return;
    const d = gate.check(intent, {
      now,
      rules,
      market: { last: new Decimal(lastClose), ts: now },
      session,
      portfolio,
      tradingState: trading.state,
      recentOrderTimes: recent,
    });
    intents.push({
      ts: now,
      symbol: intent.symbol,
      side: intent.side,
      type: intent.type,
      tag: intent.tag,
      approved: d.ok,
      ...(d.ok ? {} : { code: d.code }),
    });
    if (!d.ok) {
      denials[d.code] = (denials[d.code] ?? 0) + 1;
      return;
    }
    recent.push(now);
    if (recent.length > 64) recent.shift();
    const clientOid = `bt${++oid}`;
    tagOf.set(clientOid, intent.tag);
    const i = d.intent;
    const req: PlaceRequest = {
      symbol,
      side: i.side,
      orderType: i.type,
      qty: 'quoteAmount' in i ? i.quoteAmount : i.quantity,
      ...(i.type === 'limit' ? { price: i.price } : {}),
      clientOid,
    };
    // Decided at the close: placed at the next candle's open (no lookahead).
    pending.push({ req, tag: intent.tag });
  };

  const applyFills = (list: readonly CoreFill[]) => {
    for (const f of list) {
      portfolio.applyFill({
        symbol,
        baseCoin: rules.baseCoin,
        quoteCoin: quote,
        side: f.side,
        price: f.price,
        size: f.size,
        fee: f.fee,
        feeCoin: quote,
        ts: f.ts,
      });
      fills.push({
        ts: f.ts,
        symbol,
        side: f.side,
        price: f.price.toFixed(),
        size: f.size.toFixed(),
        fee: f.fee.toFixed(),
        liquidity: f.liquidity,
        tag: tagOf.get(f.clientOid) ?? '',
      });
    }
  };

  const ctx = {
    bot: 'backtest',
    params,
    clock,
    logger: o.logger ?? silent,
    symbols: [symbol],
    category: 'SPOT' as const,
    rules: (s: string) => (s === symbol ? rules : undefined),
    portfolio,
    session: () => session,
    state: new MemoryStrategyState(),
  };
  let failure: unknown;
  const sub = o.strategy
    .run(ctx, { candles$: candles$.observable, session$: session$.observable })
    .subscribe({ next: onIntent, error: (e: unknown) => (failure = e) });

  const equity: EquityPoint[] = [];
  const chart = new Downsampler();
  const keepChart = o.chart !== false;
  const every = o.equityEvery ?? Math.max(1, Math.round(86_400_000 / step));
  let n = 0;
  let first = Number.NaN;
  let lastT = Number.NaN;
  const from = o.from ?? -Infinity;
  const to = o.to ?? Infinity;
  const started = performance.now();
  const sample = (ts: number) => {
    portfolio.mark(symbol, new Decimal(lastClose));
    equity.push({
      ts,
      equity: portfolio.equity().toNumber(),
      exposed: portfolio.position(symbol).quantity.gt(0),
    });
  };

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
      cur.end = end;
      if (pending.length > 0) {
        for (const p of pending.splice(0)) {
          const r = core.place(ACCOUNT, p.req, t);
          if (r.ok) applyFills(r.fills);
          else denials[`VENUE_${r.code}`] = (denials[`VENUE_${r.code}`] ?? 0) + 1;
        }
      }
      if (core.hasResting) applyFills(core.advance(end));
      const decide = decisionTime(t);
      if (session === undefined || decide >= session.nextChange) {
        session = usSessionAt(decide);
        session$.next(session);
      }
      clock.set(Math.max(clock.now(), decide));
      lastClose = cur.close;
      if (Number.isNaN(first)) first = t;
      lastT = t;
      candles$.next({
        symbol,
        interval: meta.interval,
        openTime: t,
        open: cur.open,
        high: cur.high,
        low: cur.low,
        close: cur.close,
        volume: volume[i] as number,
        turnover: turnover[i] as number,
      });
      if (failure !== undefined) throw failure;
      if (keepChart) chart.add(t, cur.open, cur.high, cur.low, cur.close);
      if (++n % every === 0) {
        sample(decide);
        trading.update(portfolio.equity(), decide);
      }
    }
    o.onProgress?.(n);
  }
  sub.unsubscribe();
  if (n % every !== 0 && n > 0) sample(clock.now());
  const runMs = performance.now() - started;

  const trades = roundTrips(fills);
  const tradeHash = createHash('sha256')
    .update(fills.map((f) => `${f.ts},${f.side},${f.price},${f.size},${f.fee}`).join('\n'))
    .digest('hex');
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
    timing: { runMs },
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
