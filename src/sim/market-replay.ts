// Recorded 1m candles as a market's day blocks: open times checked when the market is built, prices
// when their day is read; gaps carried flat at the last recorded close (before the record, its first open).
import type { DayBlock, Units } from './day-block.js';
import { MIN, MPD, blankDay, turnoverOf } from './day-block.js';
import { hashInts } from './rng.js';

/** A recorded 1m candle for replay (prices and volume as decimal strings or numbers). */
export interface ReplayCandle {
  readonly openTime: number;
  readonly open: string | number;
  readonly high: string | number;
  readonly low: string | number;
  readonly close: string | number;
  readonly volume: string | number;
}

/**
 * Recorded candles per market: keys are a symbol (its SPOT market, shared by the MARGIN pair) or
 * `CATEGORY:SYMBOL` for a futures market, e.g. `{ AAPLUSDT: candles, 'USDT-FUTURES:BTCUSDT': other }`.
 */
export type ReplaySource = Readonly<Record<string, Iterable<ReplayCandle>>>;

/** The replayed days of one market. */
export class ReplayedPrices {
  private readonly candles = new Map<number, ReplayCandle>();
  /** The recorded minutes (Unix minutes), ascending. */
  private readonly minutes: number[];

  /** `key`: the market's hash of the seed and its path key (it places each minute's high and low). */
  constructor(
    private readonly marketKey: string,
    private readonly key: number,
    private readonly units: Units,
    replay: Iterable<ReplayCandle>,
  ) {
    for (const c of replay) {
      if (!Number.isFinite(c.openTime) || c.openTime % MIN !== 0) {
        throw new Error(`replay candle of ${marketKey}: openTime ${c.openTime} is not on a minute boundary`);
      }
      this.candles.set(c.openTime / MIN, c);
    }
    this.minutes = [...this.candles.keys()].sort((a, b) => a - b);
    if (this.minutes.length === 0) throw new Error(`replay of ${marketKey} has no candles`);
  }

  private priceTicks(x: string | number, what: string): number {
    const n = Number(x);
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(`replay candle of ${this.marketKey}: ${what} ${String(x)} is not a positive number`);
    return Math.max(1, Math.round(n * this.units.pScale));
  }

  /** The 1m candles of a UTC day. */
  block(day: number): DayBlock {
    const b = blankDay();
    const replay = this.candles;
    const first = day * MPD;
    // Carry the last recorded close into gaps (flat, no volume); before the record, its first open.
    let lo = 0;
    let hi = this.minutes.length - 1;
    let idx = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.minutes[mid] as number) < first) {
        idx = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const seedCandle =
      idx >= 0 ? replay.get(this.minutes[idx] as number) : replay.get(this.minutes[0] as number);
    let last = seedCandle ? this.priceTicks(idx >= 0 ? seedCandle.close : seedCandle.open, 'price') : 1;
    for (let i = 0; i < MPD; i++) {
      const c = replay.get(first + i);
      const hs = 1 + (hashInts(this.key, 5, first + i) % 59);
      let ls = 1 + (hashInts(this.key, 6, first + i) % 59);
      if (ls === hs) ls = hs === 59 ? 1 : hs + 1;
      b.hs[i] = hs;
      b.ls[i] = ls;
      if (c) {
        const o = this.priceTicks(c.open, 'open');
        const cl = this.priceTicks(c.close, 'close');
        const h = Math.max(this.priceTicks(c.high, 'high'), o, cl);
        const l = Math.min(this.priceTicks(c.low, 'low'), o, cl);
        const v = Math.max(0, Math.round(Number(c.volume) * this.units.qScale));
        b.o[i] = o;
        b.h[i] = h;
        b.l[i] = l;
        b.c[i] = cl;
        b.v[i] = v;
        b.t[i] = turnoverOf(this.units, v, o, cl);
        last = cl;
      } else {
        b.o[i] = b.h[i] = b.l[i] = b.c[i] = last;
      }
    }
    return b;
  }
}
