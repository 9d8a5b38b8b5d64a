// The fill model of replayed candles, one copy for the backtester's in-process venue and the simulator's
// replay mode, so a backtest and paper trading on the simulator fill the same orders at the same prices.
// A candle tells its open, high, low and close, not the path between them, so:
//   - a taker order meets unlimited liquidity at the open of the candle it arrives in, moved against it
//     by the slippage and rounded to the pair's price precision on the safe side (buys up, sells down);
//   - a pipeline exit (stop-loss, take-profit ...) that triggered inside the candle fills the same way at
//     its trigger price (the bar's `touch`) instead of the open; one that gapped through fills at the open;
//   - a resting limit order fills at its limit price, as a maker, when a candle trades THROUGH it (a buy
//     when the price goes below it, a sell when above): at the candle's open when the open is through it,
//     otherwise once the candle has closed with its low (buy) or high (sell) through it, stamped at the
//     candle's close, the first moment the range is known. Touching the price exactly is not enough.
import { Decimal } from '../market/decimal.js';
import type { Level, MarketView } from './matching.js';

/** One candle as the fill model reads it: open time and prices as floats. */
export interface CandleBar {
  readonly t: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /**
   * Where the market is within the candle when a pipeline exit triggered there (its stop or target
   * price): a taker order then fills at this price, moved by the slippage, instead of the open. Unset
   * for every other order.
   */
  readonly touch?: Decimal | undefined;
}

export interface CandleFillOptions {
  /** Slippage of taker fills in basis points of the open (default 0). */
  readonly slippageBps?: number | undefined;
  /** Length of one candle, ms. */
  readonly intervalMs: number;
  /** Price decimals of a symbol. */
  readonly pricePrecision: (symbol: string) => number;
  /** The candle of `symbol` that contains instant `t`, if any. */
  readonly barAt: (symbol: string, t: number) => CandleBar | undefined;
}

/** More than any order can ask for: the liquidity at a candle's open (the level says it is unlimited). */
const UNLIMITED = new Decimal('1e15');

/** The MarketView of replayed candles (see the rules at the top of this file). */
export class CandleFillModel implements MarketView {
  private readonly slip: number;
  private readonly step: number;
  private readonly buyTouch: Decimal;
  private readonly sellTouch: Decimal;

  constructor(private readonly o: CandleFillOptions) {
    this.slip = (o.slippageBps ?? 0) / 10_000;
    const slip = new Decimal(o.slippageBps ?? 0).div(10_000);
    this.buyTouch = slip.plus(1);
    this.sellTouch = Decimal.sub(1, slip);
    this.step = o.intervalMs;
  }

  levels(symbol: string, side: 'buy' | 'sell', now: number): Iterable<Level> {
    const bar = this.o.barAt(symbol, now);
    if (bar === undefined) return [];
    const touch = bar.touch;
    if (touch !== undefined) {
      const at = touch
        .mul(side === 'buy' ? this.buyTouch : this.sellTouch)
        .toDecimalPlaces(
          this.o.pricePrecision(symbol),
          side === 'buy' ? Decimal.ROUND_UP : Decimal.ROUND_DOWN,
        );
      return [{ price: at, qty: UNLIMITED, unlimited: true }];
    }
    const px = new Decimal(bar.open * (side === 'buy' ? 1 + this.slip : 1 - this.slip)).toDecimalPlaces(
      this.o.pricePrecision(symbol),
      side === 'buy' ? Decimal.ROUND_UP : Decimal.ROUND_DOWN,
    );
    return [{ price: px, qty: UNLIMITED, unlimited: true }];
  }

  firstTouch(
    symbol: string,
    side: 'buy' | 'sell',
    price: Decimal,
    from: number,
    to: number,
  ): number | undefined {
    const p = price.toNumber();
    const buy = side === 'buy';
    // Walk the candles that overlap [from, to], oldest first.
    let t = from;
    while (t <= to) {
      const bar = this.o.barAt(symbol, t);
      const start = bar === undefined ? t - (t % this.step) : bar.t;
      const end = start + this.step;
      if (bar !== undefined) {
        // The open is seen when the window holds the candle's first instant. A window is (checkedUntil, to],
        // and checkedUntil may be that very instant, checked before the candle was known (the backtest
        // learns a candle at its open): the window that starts right after it still sees the open.
        if (bar.t + 1 >= from && (buy ? bar.open < p : bar.open > p)) return bar.t;
        // The range is known once the candle has closed.
        if (end <= to && (buy ? bar.low < p : bar.high > p)) return end;
      }
      t = end;
    }
    return undefined;
  }
}
