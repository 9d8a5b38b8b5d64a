// What the matching core sees of the market: the levels a taker order walks and the instant a resting
// order's price is touched, from the synthetic order book, or for replayed symbols under `candleFills`
// from the backtester's candle fill model (so paper trading on replayed candles fills as a backtest does).
import { CandleFillModel, type CandleBar } from './candle-fills.js';
import type { InstrumentTable } from './instrument-table.js';
import type { ReplayCandle } from './market-replay.js';
import type { Level, MarketView } from './matching.js';

/** The candle fill model and the symbols it fills. */
export interface CandleFills {
  readonly model: CandleFillModel;
  readonly symbols: ReadonlySet<string>;
}

/** The candle fill model of the replayed symbols. */
export function candleFillsOf(
  table: InstrumentTable,
  replay: Readonly<Record<string, readonly ReplayCandle[]>>,
  o: { readonly slippageBps?: number | undefined },
): CandleFills {
  const bars = new Map<string, Map<number, CandleBar>>();
  for (const [symbol, candles] of Object.entries(replay)) {
    const m = new Map<number, CandleBar>();
    for (const c of candles)
      m.set(c.openTime, {
        t: c.openTime,
        open: Number(c.open),
        high: Number(c.high),
        low: Number(c.low),
        close: Number(c.close),
      });
    bars.set(symbol, m);
  }
  const model = new CandleFillModel({
    slippageBps: o.slippageBps,
    intervalMs: 60_000,
    pricePrecision: (s) => Number(table.need('SPOT', s).wire.pricePrecision),
    barAt: (s, t) => bars.get(s)?.get(t - (t % 60_000)),
  });
  return { model, symbols: new Set(bars.keys()) };
}

/** The matching core's view: the candle fill model for its symbols, the synthetic book for the rest. */
export function coreMarketView(table: InstrumentTable, candleFills: CandleFills | undefined): MarketView {
  const book = bookView(table);
  return {
    levels: (symbol, side, now) =>
      candleFills?.symbols.has(symbol)
        ? candleFills.model.levels(symbol, side, now)
        : book.levels(symbol, side, now),
    firstTouch: (symbol, side, price, from, to) =>
      candleFills?.symbols.has(symbol)
        ? candleFills.model.firstTouch(symbol, side, price, from, to)
        : book.firstTouch(symbol, side, price, from, to),
  };
}

function bookView(table: InstrumentTable): MarketView {
  const marketFor = (symbol: string) => table.marketOf(table.need('SPOT', symbol));
  return {
    levels: function* (symbol: string, side: 'buy' | 'sell', now: number): Iterable<Level> {
      const m = marketFor(symbol);
      const book = m.book(now, 1000);
      for (const lv of side === 'buy' ? book.asks : book.bids)
        yield { price: m.priceOf(lv.price), qty: m.qtyOf(lv.qty) };
    },
    firstTouch: (symbol, side, price, from, to) => {
      const m = marketFor(symbol);
      const ticks = m.ticksOf(price.toFixed());
      if (ticks === undefined) return undefined;
      return m.firstTouch(side === 'buy' ? 'below' : 'above', ticks, from, to);
    },
  };
}
