// A small harness for testing a strategy without a venue: an in-memory portfolio, a context with safe
// defaults, and `runStrategy`, which drives a scripted candle stream and collects the intents. Fills are
// optional and naive (at the last candle close, no fees): enough to see sells follow buys.
import { EMPTY, Observable, from } from 'rxjs';
import type { Ticker } from '../api/index.js';
import type { Candle } from '../market/candle.js';
import { InformativeCandles } from '../market/resample.js';
import { closeTimeOf } from '../market/candle.js';
import { Decimal, ZERO } from '../market/decimal.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import type { Clock } from '../feeds/clock.js';
import { VirtualClock } from '../feeds/clock.js';
import type { PortfolioView, PositionView } from '../portfolio/view.js';
import type { z } from 'zod';
import type { Strategy, StrategyContext, StrategyLogger, LogFields } from './contract.js';
import { buildStrategyContext } from './context.js';
import type { OrderIntent, TradeCategory } from './intent.js';
import type { ParamsSchema } from './params.js';
import { parseStrategyParams } from './params.js';
import type { PlotPoint } from './plot.js';
import type { StrategyState } from './state.js';
import { MemoryStrategyState } from './state.js';

/** A portfolio held in memory: positions by symbol and cash by coin, set directly or by fills. */
export class MemoryPortfolio implements PortfolioView {
  private readonly pos = new Map<string, { quantity: Decimal; avgPrice: Decimal; realisedPnl: Decimal }>();
  private readonly coins = new Map<string, Decimal>();
  private readonly marks = new Map<string, Decimal>();

  position(symbol: string): PositionView {
    const p = this.pos.get(symbol);
    return p === undefined ? { symbol, quantity: ZERO, avgPrice: ZERO, realisedPnl: ZERO } : { symbol, ...p };
  }
  positions(): readonly PositionView[] {
    return [...this.pos.keys()].map((s) => this.position(s));
  }
  cash(coin: string): Decimal {
    return this.coins.get(coin) ?? ZERO;
  }
  equity(): Decimal {
    let e = this.cash('USDT');
    for (const [s, p] of this.pos) e = e.plus(p.quantity.times(this.marks.get(s) ?? p.avgPrice));
    return e;
  }
  /** Sets a position outright. */
  setPosition(symbol: string, quantity: Decimal | string, avgPrice: Decimal | string = ZERO): void {
    this.pos.set(symbol, {
      quantity: new Decimal(quantity),
      avgPrice: new Decimal(avgPrice),
      realisedPnl: ZERO,
    });
  }
  setCash(coin: string, amount: Decimal | string): void {
    this.coins.set(coin, new Decimal(amount));
  }
  mark(symbol: string, price: Decimal): void {
    this.marks.set(symbol, price);
  }
  /** Applies an intent as a full fill at `price` (market buys spend their quote amount), no fees. */
  fill(intent: OrderIntent, price: Decimal, quoteCoin = 'USDT'): void {
    const cur = this.pos.get(intent.symbol) ?? { quantity: ZERO, avgPrice: ZERO, realisedPnl: ZERO };
    const qty = 'quoteAmount' in intent ? intent.quoteAmount.div(price) : intent.quantity;
    if (intent.side === 'buy') {
      const total = cur.quantity.plus(qty);
      const avg = cur.quantity.times(cur.avgPrice).plus(qty.times(price)).div(total);
      this.pos.set(intent.symbol, { quantity: total, avgPrice: avg, realisedPnl: cur.realisedPnl });
      this.coins.set(quoteCoin, this.cash(quoteCoin).minus(qty.times(price)));
    } else {
      const left = cur.quantity.minus(qty);
      this.pos.set(intent.symbol, {
        quantity: left,
        avgPrice: left.isZero() ? ZERO : cur.avgPrice,
        realisedPnl: cur.realisedPnl.plus(price.minus(cur.avgPrice).times(qty)),
      });
      this.coins.set(quoteCoin, this.cash(quoteCoin).plus(qty.times(price)));
    }
  }
}

/** One recorded log line. */
export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields | undefined;
}

/** A logger that keeps what it was told, for assertions. */
export class MemoryLogger implements StrategyLogger {
  readonly lines: LoggedLine[] = [];
  debug(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'debug', message, fields });
  }
  info(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', message, fields });
  }
}

/** A logger that drops everything (the default of the backtester's hot path). */
export const silentLogger: StrategyLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Options of `createTestContext`; everything has a safe default. */
export interface TestContextOptions<P> {
  readonly params: P;
  readonly bot?: string;
  readonly symbols?: readonly string[];
  readonly category?: TradeCategory;
  readonly clock?: Clock;
  readonly logger?: StrategyLogger;
  readonly portfolio?: PortfolioView;
  readonly rules?: (symbol: string) => InstrumentRules | undefined;
  readonly session?: () => SessionState | undefined;
  readonly state?: StrategyState;
  /** Where ctx.plot's checked points go; default: checked, then dropped. */
  readonly plot?: ((point: PlotPoint) => void) | undefined;
}

/** A context for tests and tools: in-memory portfolio and state, virtual clock, silent logger. */
export function createTestContext<P>(opts: TestContextOptions<P>): StrategyContext<P> {
  return buildStrategyContext({
    bot: opts.bot ?? 'test-bot',
    params: opts.params,
    clock: opts.clock ?? new VirtualClock(0),
    logger: opts.logger ?? silentLogger,
    symbols: opts.symbols ?? [],
    category: opts.category ?? 'SPOT',
    rules: opts.rules ?? (() => undefined),
    portfolio: opts.portfolio ?? new MemoryPortfolio(),
    session: opts.session ?? (() => undefined),
    state: opts.state ?? new MemoryStrategyState(),
    plot: opts.plot,
  });
}

/** Options of `runStrategy`. */
export interface RunStrategyOptions {
  /** Raw parameters, parsed with the strategy's schema (defaults applied). */
  readonly params?: unknown;
  readonly symbols?: readonly string[];
  readonly category?: TradeCategory;
  readonly portfolio?: MemoryPortfolio;
  readonly state?: StrategyState;
  readonly logger?: StrategyLogger;
  /** Session changes, delivered before the candles. */
  readonly sessions?: readonly SessionState[];
  readonly tickers?: Observable<Ticker>;
  /** `session()` of the context; by default the last session given in `sessions`. */
  readonly session?: () => SessionState | undefined;
  /** Fill each intent at the close of the candle being processed (default true). */
  readonly fill?: boolean;
}

/** What a run produced. */
export interface RunStrategyResult {
  readonly intents: OrderIntent[];
  /** Close time (unix ms) of the candle during which each intent was emitted. */
  readonly emittedAt: number[];
  /** The ctx.plot points, each with the symbol and open time of the candle being delivered. */
  readonly plots: (PlotPoint & { readonly symbol: string; readonly openTime: number })[];
  readonly portfolio: MemoryPortfolio;
  readonly clock: VirtualClock;
}

/**
 * Drives `candles` through a strategy synchronously, the clock set to each candle's close before it is
 * delivered, and collects the intents.
 */
export function runStrategy<S extends ParamsSchema>(
  strategy: Strategy<S>,
  candles: readonly Candle[],
  opts: RunStrategyOptions = {},
): RunStrategyResult {
  const params: z.output<S> = parseStrategyParams(strategy, opts.params);
  const portfolio = opts.portfolio ?? new MemoryPortfolio();
  const clock = new VirtualClock(0);
  const sessions = opts.sessions ?? [];
  const symbols = opts.symbols ?? [...new Set(candles.map((c) => c.symbol))];
  let current: Candle | undefined;
  const plots: RunStrategyResult['plots'] = [];
  const ctx = createTestContext({
    plot: (p) => {
      if (current !== undefined) plots.push({ ...p, symbol: current.symbol, openTime: current.openTime });
    },
    params,
    symbols,
    clock,
    portfolio,
    ...(opts.category === undefined ? {} : { category: opts.category }),
    ...(opts.state === undefined ? {} : { state: opts.state }),
    ...(opts.logger === undefined ? {} : { logger: opts.logger }),
    session: opts.session ?? (() => sessions[sessions.length - 1]),
  });
  const intents: OrderIntent[] = [];
  const emittedAt: number[] = [];
  // Each candle is delivered after the clock moves to its close, as a live feed would; with informative
  // intervals, the higher candles it closes come just before it (the runners' one resampler).
  const informative = new Map<string, InformativeCandles>();
  const timed$ = new Observable<Candle>((sub) => {
    const out = (x: Candle): void => sub.next(x);
    for (const c of candles) {
      const close = closeTimeOf(c);
      if (close > clock.now()) clock.set(close);
      current = c;
      if (strategy.informative.length === 0) sub.next(c);
      else {
        let inf = informative.get(c.symbol);
        if (inf === undefined)
          informative.set(
            c.symbol,
            (inf = new InformativeCandles(c.symbol, c.interval, strategy.informative)),
          );
        inf.push(c, out);
      }
      if (sub.closed) return;
    }
    sub.complete();
  });
  let failure: unknown;
  strategy
    .run(ctx, {
      candles$: timed$,
      session$: sessions.length > 0 ? from(sessions) : EMPTY,
      tickers$: opts.tickers,
    })
    .subscribe({
      next: (i) => {
        intents.push(i);
        emittedAt.push(clock.now());
        if (opts.fill !== false && current !== undefined) {
          const price = new Decimal(current.close);
          portfolio.mark(i.symbol, price);
          portfolio.fill(i, i.type === 'limit' ? i.price : price);
        }
      },
      error: (e: unknown) => {
        failure = e;
      },
    });
  if (failure !== undefined) throw failure;
  return { intents, emittedAt, plots, portfolio, clock };
}
