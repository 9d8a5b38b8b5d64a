// Seeded synthetic series of any interval and length, streamed in batches: a geometric random walk with
// volatility regimes and consistent OHLC and volume. Same seed and interval, same series, byte for byte.
import { INTERVAL_MS, type CandleInterval, type Instrument } from '../api/index.js';
import {
  FORMAT_NAME,
  FORMAT_VERSION,
  newBatch,
  BATCH_SIZE,
  type CandleBatch,
  type CandleSource,
} from './format.js';

/** mulberry32: small, fast, good enough for market noise, and fully determined by its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticOptions {
  readonly seed: number;
  readonly count: number;
  /**
   * The candles' interval (default 1m). A candle's moves scale with the square root of its length, so a 5m
   * series looks like 5m candles of the same market, not 1m candles spaced out.
   */
  readonly interval?: CandleInterval | undefined;
  /** Open time of the first candle (default 2025-01-06T00:00Z, a Monday). */
  readonly start?: number | undefined;
  readonly startPrice?: number | undefined;
  readonly symbol?: string | undefined;
  readonly pricePrecision?: number | undefined;
}

export const SYNTHETIC_INSTRUMENT = (symbol: string, pricePrecision: number): Instrument => ({
  category: 'SPOT',
  symbol,
  baseCoin: symbol.replace(/USDT$/, ''),
  quoteCoin: 'USDT',
  isReality: 'no',
  symbolType: 'crypto',
  status: 'online',
  pricePrecision: String(pricePrecision),
  quantityPrecision: '5',
  quotePrecision: '2',
  minOrderAmount: '1',
  buyLimitPriceRatio: '0.05',
  sellLimitPriceRatio: '0.05',
});

/** A synthetic series as a candle source. */
export function syntheticSource(o: SyntheticOptions): CandleSource {
  const symbol = o.symbol ?? 'SYNUSDT';
  const dp = o.pricePrecision ?? 2;
  return {
    meta: {
      format: FORMAT_NAME,
      version: FORMAT_VERSION,
      symbol,
      category: 'SPOT',
      interval: o.interval ?? '1m',
      instrument: SYNTHETIC_INSTRUMENT(symbol, dp),
      source: `synthetic seed ${o.seed}`,
    },
    batches: () => generate(o, dp),
  };
}

async function* generate(o: SyntheticOptions, dp: number): AsyncGenerator<CandleBatch> {
  const rnd = mulberry32(o.seed);
  const scale = 10 ** dp;
  const round = (x: number) => Math.round(x * scale) / scale;
  let t = o.start ?? Date.UTC(2025, 0, 6);
  let price = o.startPrice ?? 100;
  let vol = 0.0008;
  const step = INTERVAL_MS[o.interval ?? '1m'];
  // 1 at 1m: the one-minute series stays what it was, byte for byte.
  const minutes = step / 60_000;
  const scaleVol = Math.sqrt(minutes);
  // Box-Muller pairs.
  let spare = Number.NaN;
  const gauss = () => {
    if (!Number.isNaN(spare)) {
      const s = spare;
      spare = Number.NaN;
      return s;
    }
    const u = Math.max(rnd(), 1e-12);
    const v = rnd();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
  let left = o.count;
  while (left > 0) {
    const b = newBatch(Math.min(BATCH_SIZE, left));
    const n = Math.min(BATCH_SIZE, left);
    for (let i = 0; i < n; i++) {
      // Volatility regimes: rare switches between calm and busy markets.
      if (rnd() < 0.0005) vol = 0.0003 + rnd() * 0.002;
      const open = round(price);
      let hi = open;
      let lo = open;
      let p = price;
      for (let k = 0; k < 3; k++) {
        p *= Math.exp(vol * scaleVol * gauss() * 0.577);
        if (p > hi) hi = p;
        if (p < lo) lo = p;
      }
      price = Math.max(p, 1 / scale);
      const close = round(price);
      const high = Math.max(round(hi), open, close);
      const low = Math.min(round(lo), open, close);
      const volume = Math.round((5 + rnd() * 50) * (1 + vol * 500) * minutes * 1000) / 1000;
      b.openTime[i] = t;
      b.open[i] = open;
      b.high[i] = high;
      b.low[i] = low;
      b.close[i] = close;
      b.volume[i] = volume;
      b.turnover[i] = Math.round(volume * close * 100) / 100;
      t += step;
    }
    b.length = n;
    left -= n;
    yield b;
  }
}
