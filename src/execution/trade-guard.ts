// Exits and protections of the bot's trades: the ExitBook closes an open trade at a price (stop-loss,
// trailing stop, take-profit, ROI, time and session exits), the ProtectionBook locks new entries after
// bad outcomes. The Trader feeds the guard its fills and prices and sends the exits it decides; a
// backtest's replay loop asks it per candle through `ExitHooks`. Without exits and protections it does nothing.
import type { Decimal } from '../market/decimal.js';
import { ZERO, aboveZero } from '../market/decimal.js';
import { isDust } from '../market/dust.js';
import type { SessionOrClosed } from '../market/sessions.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import { hasExits, hasProtections, type ExitRules, type Protections } from '../strategy/exits.js';
import { ExitBook, type BarPrices, type ExitDecision } from './exits.js';
import type { MarketState } from './market-state.js';
import { ProtectionBook, type ProtectionLock } from './protections.js';
import type { TraderFill } from './trader-events.js';

/** What a backtest's replay loop asks of the exits per candle (src/backtest/replay.ts). */
export interface ExitHooks {
  /** Whether an exit may trigger (a trade is open and exits are set). */
  readonly armed: boolean;
  /** Whether a time exit may be due (a trade is open and maxTradeMinutes or sessionEnd is set). */
  readonly timeArmed: boolean;
  /** A candle of a symbol through the price exits (see src/execution/exits.ts for the order). */
  onBar(symbol: string, bar: BarPrices): ExitDecision | undefined;
  /** The time exits (maxTradeMinutes, sessionEnd) due at `now`. */
  due(now: number): ExitDecision[] | undefined;
}

/** A closed trade's cost and proceeds (quote coin), for the low-profit protection. */
interface TradeMoney {
  cost: Decimal;
  proceeds: Decimal;
}

export interface TradeGuardOptions {
  /** Exits evaluated on every price (strategy's declaration merged with the bot's YAML). */
  readonly exits: ExitRules | undefined;
  /** Entry locks (strategy's declaration merged with the bot's YAML). */
  readonly protections: Protections | undefined;
  /** Length of the bot's candle, ms: the unit of protections, of the session exit and of an exit's retry. */
  readonly intervalMs: number;
  readonly market: MarketState;
  readonly portfolio: Portfolio;
  /** Sessions the bot may trade in (its risk limits'). */
  readonly allowedSessions: readonly SessionOrClosed[];
  /** The pipeline's time at start: the journal's open positions are trades from then (after a restart). */
  readonly now: number;
  /** Told of each new protection lock (the pipeline's event). */
  readonly onLock: (lock: ProtectionLock) => void;
}

/** The exits and protections of one bot. */
export class TradeGuard implements ExitHooks {
  /** Undefined when no exit is configured: the pipeline then does no exit work at all. */
  private readonly book: ExitBook | undefined;
  private readonly protect: ProtectionBook | undefined;
  private readonly tradeMoney = new Map<string, TradeMoney>();

  constructor(private readonly o: TradeGuardOptions) {
    const { market } = o;
    this.book = hasExits(o.exits)
      ? new ExitBook({
          rules: o.exits as ExitRules,
          pricePrecision: (s) => market.rules(s)?.pricePrecision ?? 8,
          instrument: (s) => market.rules(s),
          intervalMs: o.intervalMs,
          allowedSessions: o.allowedSessions,
        })
      : undefined;
    // After a restart the journal's positions are open trades again (their time in trade counts from now).
    if (this.book !== undefined)
      for (const p of o.portfolio.positions())
        if (aboveZero(p.quantity)) this.book.onPosition(p.symbol, p.quantity, p.avgPrice, o.now);
    this.protect = hasProtections(o.protections)
      ? new ProtectionBook(o.protections as Protections, o.intervalMs, o.onLock)
      : undefined;
  }

  /** How many open trades the guard follows (the bot's in-memory state sizes). */
  get size(): number {
    return this.tradeMoney.size;
  }

  /** After a fill is booked: the exits follow the position; a closed trade reaches the protections. */
  afterFill(fill: TraderFill): void {
    if (this.book === undefined && this.protect === undefined) return;
    const { portfolio } = this.o;
    const p = portfolio.position(fill.symbol);
    this.book?.onPosition(fill.symbol, p.quantity, p.avgPrice, fill.ts);
    const pr = this.protect;
    if (pr === undefined) return;
    let m = this.tradeMoney.get(fill.symbol);
    if (m === undefined) this.tradeMoney.set(fill.symbol, (m = { cost: ZERO, proceeds: ZERO }));
    if (fill.side === 'buy') m.cost = m.cost.plus(fill.notional).plus(fill.fee);
    else m.proceeds = m.proceeds.plus(fill.notional).minus(fill.fee);
    // A trade closes at zero or when only dust is left (src/market/dust.ts), as the exits see it.
    if ((p.quantity.isZero() || isDust(this.o.market.rules(fill.symbol), p.quantity)) && aboveZero(m.cost)) {
      const profit = m.proceeds.div(m.cost).minus(1).toNumber();
      this.tradeMoney.delete(fill.symbol);
      pr.onTradeClosed(fill.symbol, profit, fill.exitReason, fill.ts);
    }
    if (pr.watchesEquity) pr.onEquity(portfolio.equity(), fill.ts);
  }

  /** A live price of a symbol: the exit of its open trade that triggers there, if any. */
  atPrice(symbol: string, price: Decimal, now: number): ExitDecision | undefined {
    if (this.book?.holds(symbol) !== true) return undefined;
    return this.book.atPrice(symbol, price.toNumber(), now, this.o.market.session());
  }

  /**
   * An exit of the symbol was denied, answered, or failed: it is tried again a candle after `now` if the
   * trade is still open (its fill ends the trade before that).
   */
  retryLater(symbol: string, now: number): void {
    this.book?.retryFrom(symbol, now + this.o.intervalMs);
  }

  get armed(): boolean {
    return this.book?.armed === true;
  }

  get timeArmed(): boolean {
    const book = this.book;
    return book !== undefined && book.hasTimeExits && book.armed;
  }

  onBar(symbol: string, bar: BarPrices): ExitDecision | undefined {
    return this.book?.onBar(symbol, bar);
  }

  due(now: number): ExitDecision[] | undefined {
    return this.book?.timedExits(now, this.o.market.session());
  }

  /** The sentence of a protection's lock on new entries of the symbol at `now` (the gate's context). */
  lockOf(symbol: string, now: number): string | undefined {
    return this.protect?.lockOf(symbol, now)?.reason;
  }

  /** The protections' locks in force at `now` (for /readyz and the logs). */
  locks(now: number): ProtectionLock[] {
    return this.protect?.active(now) ?? [];
  }

  /** A sample of the equity (the drawdown protection watches it). */
  onEquity(equity: Decimal, now: number): void {
    if (this.protect?.watchesEquity === true) this.protect.onEquity(equity, now);
  }

  /** The exits in force (the strategy's declaration merged with the bot's YAML), undefined when none. */
  get exitRules(): ExitRules | undefined {
    return this.book === undefined ? undefined : this.o.exits;
  }

  /** The protections configured, undefined when none. */
  get protectionRules(): Protections | undefined {
    return this.protect === undefined ? undefined : this.o.protections;
  }
}
