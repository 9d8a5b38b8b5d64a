// The candle of the domain. Prices are floats here on purpose: indicators run on every candle and
// decimal arithmetic there would be too slow (DESIGN principle 4 puts the Decimal boundary at the
// order intent). A strategy turns a price into Decimal only when it builds an intent.
import type { CandleInterval, WireCandle } from '../api/index.js';
import { INTERVAL_MS } from '../api/index.js';

export interface Candle {
  readonly symbol: string;
  readonly interval: CandleInterval;
  /** Unix ms of the candle's open. */
  readonly openTime: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /** Base-coin volume. */
  readonly volume: number;
  /** Quote-coin turnover. */
  readonly turnover: number;
}

/** Unix ms at which a candle closes (the open of the next one). */
export const closeTimeOf = (c: Pick<Candle, 'openTime' | 'interval'>): number =>
  c.openTime + INTERVAL_MS[c.interval];

/** Parses a wire candle (spec 2.7), refusing anything that is not a finite number. */
export function candleFromWire(w: WireCandle, symbol: string, interval: CandleInterval): Candle {
  const n = w.map(Number);
  if (n.some((x) => !Number.isFinite(x))) {
    throw new TypeError(`candle of ${symbol} ${interval} has a non-numeric field: ${JSON.stringify(w)}`);
  }
  const [openTime, open, high, low, close, volume, turnover] = n as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { symbol, interval, openTime, open, high, low, close, volume, turnover };
}
