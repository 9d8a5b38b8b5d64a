// The moment a strategy decides on a closed candle and what it is shown then: a daily stock candle at the
// regular close of its date, others at their close; the ticker a backtest derives from the candle.
import type { Ticker } from '../api/index.js';
import type { Candle } from '../market/candle.js';
import { etParts, etToUtc } from '../market/sessions.js';

/** A daily stock candle is decided at the regular close (16:00 ET) of its date, others at their close. */
export function decisionTime(dailyStock: boolean, openTime: number, step: number): number {
  return dailyStock ? etToUtc(etParts(openTime).date, 16, 0) : openTime + step;
}

/** The ticker a backtest derives at a candle's decision time (the rule is documented in backtest/README.md). */
export function candleTicker(symbol: string, c: Candle, pricePrecision: number, ts: number): Ticker {
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
