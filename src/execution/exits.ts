// The pipeline's exits (stop-loss, trailing stop, take-profit, minimal ROI, time exit, session end):
// which open trade should be closed at a price the pipeline sees. The TradeGuard owns one ExitBook and
// asks it on every price: live on each ticker poll (`atPrice`), in a backtest once per candle on its range
// (`onBar`). Comparisons are floats; Decimals are made once per trade (its trigger prices) and once per
// exit, so a candle without an open trade costs one Map lookup and nothing else.
//
// Within a candle (documented in docs/strategies.md, "Exits"):
//   1. at the open, a trade held from before: an open through the stop (or the trailing stop) exits at the
//      open (a gap); an open through the target (or the ROI) exits at the open too;
//   2. then the low: the stop before the target, pessimistically, when the candle touches both; it fills
//      at the trigger price (minus the slippage);
//   3. then the high: the target (or the ROI of the minutes in trade at the candle's open) at its price;
//   4. the candle's high then raises the trailing stop for the next candle (never for its own low).
// Time exits (maxTradeMinutes, sessionEnd) are decided like a strategy's signal, at a candle's close
// (live: at the poll), and go out as market orders.
import { Decimal, aboveZero, toFloat } from '../market/decimal.js';
import { isDust } from '../market/dust.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import { usSessionAt, type SessionOrClosed, type SessionState } from '../market/sessions.js';
import { timeExitsSet, type ExitReason, type ExitRules } from '../strategy/exits.js';

/** An exit the book decided: close `quantity` of `symbol` at market. */
export interface ExitDecision {
  readonly symbol: string;
  readonly reason: ExitReason;
  readonly quantity: Decimal;
  /**
   * The price the market was at when the exit triggered, where it fills (minus slippage) in a backtest;
   * undefined when it goes out at the candle's open (a gap, or a time exit at the next open).
   */
  readonly trigger: Decimal | undefined;
  readonly sentence: string;
}

/** The open long trade of a symbol, as the exits see it. */
interface OpenTrade {
  quantity: Decimal;
  entry: Decimal;
  entryF: number;
  entryTime: number;
  /** Highest price since entry (the trailing stop's anchor), float. */
  peak: number;
  stopF: number;
  stop: Decimal | undefined;
  targetF: number;
  target: Decimal | undefined;
  /** An exit was sent; no other until its answer (or, after a denial, until this instant). */
  pendingUntil: number;
}

/** A row of the minimal-ROI table. */
interface RoiRow {
  readonly minutes: number;
  readonly ratio: Decimal;
  readonly ratioF: number;
}

/** A candle's prices as the book reads them. */
export interface BarPrices {
  readonly t: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
}

const MINUTE = 60_000;

export interface ExitBookOptions {
  readonly rules: ExitRules;
  /** Price decimals of a symbol (trigger prices are rounded to them). */
  readonly pricePrecision: (symbol: string) => number;
  readonly instrument: (symbol: string) => InstrumentRules | undefined;
  /** Length of the bot's candle, ms (how long before a session's end the session exit goes out). */
  readonly intervalMs: number;
  /** Sessions the bot may trade in (its risk limits'). */
  readonly allowedSessions: readonly SessionOrClosed[];
}

export class ExitBook {
  private readonly trades = new Map<string, OpenTrade>();
  private readonly r: ExitRules;
  /** The ROI table, ascending by minute (the ratio also as a float, compared per candle). */
  private readonly roi: readonly RoiRow[];
  private readonly trailDist: number;
  private readonly trailAct: number;
  /** 1 - stopLoss and 1 + takeProfit: a trade's trigger prices are its entry times these. */
  private readonly stopFactor: Decimal | undefined;
  private readonly targetFactor: Decimal | undefined;
  /** Whether a time exit (maxTradeMinutes, sessionEnd) is set. */
  readonly hasTimeExits: boolean;

  constructor(private readonly o: ExitBookOptions) {
    this.r = o.rules;
    this.stopFactor = o.rules.stopLoss === undefined ? undefined : Decimal.sub(1, o.rules.stopLoss);
    this.targetFactor = o.rules.takeProfit?.plus(1);
    this.hasTimeExits = timeExitsSet(o.rules);
    this.roi = Object.entries(o.rules.minimalRoi ?? {})
      .map(([k, v]) => ({ minutes: Number(k), ratio: v, ratioF: v.toNumber() }))
      .sort((a, b) => a.minutes - b.minutes);
    this.trailDist = o.rules.trailingStop?.distance.toNumber() ?? Number.NaN;
    this.trailAct = o.rules.trailingStop?.activation?.toNumber() ?? 0;
  }

  /** Whether any trade is open (the backtester asks before doing any exit work for a candle). */
  get armed(): boolean {
    return this.trades.size > 0;
  }

  /** Whether a symbol's trade is open. */
  holds(symbol: string): boolean {
    return this.trades.has(symbol);
  }

  /**
   * The symbol's position after a fill: a trade opens when it leaves zero (at the fill's time), its
   * entry follows the average price as it grows, and it closes at zero or when only dust is left (an exit
   * of dust would be denied BELOW_MIN_QTY at every price).
   */
  onPosition(symbol: string, quantity: Decimal, avgPrice: Decimal, ts: number): void {
    if (!aboveZero(quantity) || isDust(this.o.instrument(symbol), quantity)) {
      this.trades.delete(symbol);
      return;
    }
    const t = this.trades.get(symbol);
    if (t !== undefined && t.entry.eq(avgPrice)) {
      t.quantity = quantity;
      t.pendingUntil = 0;
      return;
    }
    const dp = this.o.pricePrecision(symbol);
    const { stopFactor, targetFactor } = this;
    const stop =
      stopFactor === undefined
        ? undefined
        : avgPrice.mul(stopFactor).toDecimalPlaces(dp, Decimal.ROUND_HALF_UP);
    const target =
      targetFactor === undefined
        ? undefined
        : avgPrice.mul(targetFactor).toDecimalPlaces(dp, Decimal.ROUND_HALF_UP);
    const entryF = toFloat(avgPrice);
    this.trades.set(symbol, {
      quantity,
      entry: avgPrice,
      entryF,
      entryTime: t?.entryTime ?? ts,
      peak: Math.max(t?.peak ?? entryF, entryF),
      stop,
      stopF: stop === undefined ? Number.NEGATIVE_INFINITY : toFloat(stop),
      target,
      targetF: target === undefined ? Number.POSITIVE_INFINITY : toFloat(target),
      pendingUntil: 0,
    });
  }

  /** An exit of the symbol was denied or refused: it may be tried again from `until` on. */
  retryFrom(symbol: string, until: number): void {
    const t = this.trades.get(symbol);
    if (t !== undefined) t.pendingUntil = until;
  }

  /** The trailing stop's price of a trade now (NaN when not set or not active). */
  private trailF(t: OpenTrade): number {
    if (Number.isNaN(this.trailDist)) return Number.NaN;
    if (t.peak < t.entryF * (1 + this.trailAct)) return Number.NaN;
    return t.peak * (1 - this.trailDist);
  }

  /** The lower trigger's price: the stop or the trailing stop, whichever is higher (-Infinity: none). */
  private lowPx(t: OpenTrade): number {
    const trail = this.trailF(t);
    return trail > t.stopF ? trail : t.stopF; // NaN (no trailing stop) is never above
  }

  /** The row of the ROI table in force at `minutes` in trade (the last at or under it); undefined when none. */
  private roiRow(minutes: number): RoiRow | undefined {
    let row: RoiRow | undefined;
    for (const r of this.roi) if (r.minutes <= minutes) row = r;
    return row;
  }

  /** The ROI threshold (float price) of a row; Infinity when none. */
  private static roiPx(t: OpenTrade, row: RoiRow | undefined): number {
    return row === undefined ? Number.POSITIVE_INFINITY : t.entryF * (1 + row.ratioF);
  }

  private decision(
    symbol: string,
    t: OpenTrade,
    reason: ExitReason,
    trigger: Decimal | undefined,
    sentence: string,
  ): ExitDecision {
    // No other exit of the trade until this one is answered: a fill ends the trade, a denial sets a retry time.
    t.pendingUntil = Number.POSITIVE_INFINITY;
    return { symbol, reason, quantity: t.quantity, trigger, sentence };
  }

  /** The Decimal price of a lower trigger (the fixed stop is exact; a trailing one is made now). */
  private lowPrice(symbol: string, t: OpenTrade, reason: ExitReason, px: number): Decimal {
    if (reason === 'stop_loss' && t.stop !== undefined) return t.stop;
    return new Decimal(px).toDecimalPlaces(this.o.pricePrecision(symbol), Decimal.ROUND_HALF_UP);
  }

  /**
   * A backtest's candle (see the order at the top of this file). `heldBefore` is false for a trade that
   * opened at this candle's open: there was no gap to go through.
   */
  onBar(symbol: string, bar: BarPrices): ExitDecision | undefined {
    const t = this.trades.get(symbol);
    if (t === undefined || t.pendingUntil > bar.t) return undefined;
    // Scalars, not records: this runs on every candle of an open trade.
    const lowPx = this.lowPx(t);
    const lowReason = lowReasonOf(t, lowPx);
    const roi = this.roi.length === 0 ? undefined : this.roiRow(Math.floor((bar.t - t.entryTime) / MINUTE));
    const roiPx = ExitBook.roiPx(t, roi);
    const highReason: ExitReason = roiPx < t.targetF ? 'minimal_roi' : 'take_profit';
    const highPx = Math.min(roiPx, t.targetF);
    if (t.entryTime < bar.t) {
      if (bar.open <= lowPx)
        return this.decision(
          symbol,
          t,
          lowReason,
          undefined,
          `opened at ${bar.open}, through the ${words(lowReason)} ${lowPx}`,
        );
      if (bar.open >= highPx)
        return this.decision(
          symbol,
          t,
          highReason,
          undefined,
          `opened at ${bar.open}, through the ${words(highReason)} ${highPx}`,
        );
    }
    if (bar.low <= lowPx) {
      const px = this.lowPrice(symbol, t, lowReason, lowPx);
      return this.decision(
        symbol,
        t,
        lowReason,
        px,
        `low ${bar.low} reached the ${words(lowReason)} ${px.toFixed()}`,
      );
    }
    if (bar.high >= highPx) {
      const px =
        highReason === 'take_profit' && t.target !== undefined
          ? t.target
          : t.entry
              .mul((roi as RoiRow).ratio.plus(1))
              .toDecimalPlaces(this.o.pricePrecision(symbol), Decimal.ROUND_HALF_UP);
      return this.decision(
        symbol,
        t,
        highReason,
        px,
        `high ${bar.high} reached the ${words(highReason)} ${px.toFixed()}`,
      );
    }
    if (bar.high > t.peak) t.peak = bar.high;
    return undefined;
  }

  /** A live price (a ticker poll): the price exits and the time exits at `now`. */
  atPrice(
    symbol: string,
    price: number,
    now: number,
    session: SessionState | undefined,
  ): ExitDecision | undefined {
    const t = this.trades.get(symbol);
    if (t === undefined || t.pendingUntil > now) return undefined;
    if (price > t.peak) t.peak = price;
    const lowPx = this.lowPx(t);
    const lowReason = lowReasonOf(t, lowPx);
    if (price <= lowPx)
      return this.decision(
        symbol,
        t,
        lowReason,
        undefined,
        `price ${price} reached the ${words(lowReason)} ${lowPx}`,
      );
    const roiPx = ExitBook.roiPx(t, this.roiRow(Math.floor((now - t.entryTime) / MINUTE)));
    if (price >= t.targetF)
      return this.decision(
        symbol,
        t,
        'take_profit',
        undefined,
        `price ${price} reached the take-profit ${t.targetF}`,
      );
    if (price >= roiPx)
      return this.decision(
        symbol,
        t,
        'minimal_roi',
        undefined,
        `price ${price} reached the minimal ROI ${roiPx}`,
      );
    return this.timed(symbol, t, now, session);
  }

  /**
   * The time exits of every open trade at `now` (a backtest asks at each decision, before the strategy
   * decides; live asks at each poll through `atPrice`).
   */
  timedExits(now: number, session: SessionState | undefined): ExitDecision[] | undefined {
    if (!this.hasTimeExits) return undefined;
    let out: ExitDecision[] | undefined;
    for (const [symbol, t] of this.trades) {
      if (t.pendingUntil > now) continue;
      const d = this.timed(symbol, t, now, session);
      if (d !== undefined) (out ??= []).push(d);
    }
    return out;
  }

  private timed(
    symbol: string,
    t: OpenTrade,
    now: number,
    session: SessionState | undefined,
  ): ExitDecision | undefined {
    const max = this.r.maxTradeMinutes;
    if (max !== undefined && max > 0 && now - t.entryTime >= max * MINUTE)
      return this.decision(
        symbol,
        t,
        'time_exit',
        undefined,
        `held ${Math.floor((now - t.entryTime) / MINUTE)} minutes, maxTradeMinutes is ${max}`,
      );
    const end = this.r.sessionEnd;
    if (
      end !== undefined &&
      end !== false &&
      session !== undefined &&
      session.session !== 'closed' &&
      session.nextChange - now <= this.o.intervalMs &&
      // `true` follows the sessions the gate enforces, which only Reality tokens have; a list is the
      // strategy's own hours, kept on any pair (a synthetic series stands in for a stock token).
      (end !== true || this.o.instrument(symbol)?.isReality !== false)
    ) {
      const next = usSessionAt(session.nextChange).session;
      // Out before a session the bot does not trade: its allowedSessions, or the strategy's own list.
      const inMarket: readonly string[] = end === true ? this.o.allowedSessions : end;
      if (!inMarket.includes(next))
        return this.decision(
          symbol,
          t,
          'session_end',
          undefined,
          `the ${session.session} session ends at ${new Date(session.nextChange).toISOString()}, then ${next}, which the bot does not trade`,
        );
    }
    return undefined;
  }
}

/** Which trigger a lower price of `lowPx` is: the trailing stop when it is above the fixed stop. */
function lowReasonOf(t: OpenTrade, lowPx: number): ExitReason {
  return lowPx > t.stopF ? 'trailing_stop' : 'stop_loss';
}

function words(r: ExitReason): string {
  return r.replace('_', '-').replace('minimal-roi', 'minimal ROI');
}
