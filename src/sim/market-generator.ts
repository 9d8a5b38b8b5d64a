// The seeded price process of a market: each UTC day a Brownian bridge between two anchors of
// multi-scale value noise, so any day is computed on its own from the seed; and the flattening of the
// minutes in which a Reality pair's US market is closed.
import { usSessionAt } from '../market/sessions.js';
import type { DayBlock, Units } from './day-block.js';
import { DAY, MIN, MPD, blankDay, turnoverOf } from './day-block.js';
import type { PriceModel } from './instruments.js';
import { Prng, hashInts, unitHash } from './rng.js';

const smooth = (x: number): number => x * x * (3 - 2 * x);

/** The generated days of one market, pure in (its key, its price model, the day). */
export class GeneratedPrices {
  private readonly logBase: number;
  private readonly dailyVol: number;
  private readonly minuteVolume: number;

  /** `key`: the market's hash of the seed and its path key. */
  constructor(
    private readonly key: number,
    model: PriceModel,
    private readonly units: Units,
  ) {
    this.logBase = Math.log(Number(model.basePrice));
    this.dailyVol = model.dailyVol;
    this.minuteVolume = model.minuteVolume;
  }

  private valueNoise(x: number, salt: number): number {
    const i = Math.floor(x);
    const f = smooth(x - i);
    const a = unitHash(this.key, salt, i) * 2 - 1;
    const b = unitHash(this.key, salt, i + 1) * 2 - 1;
    return a + (b - a) * f;
  }

  /** Log price at the start of a UTC day: multi-scale value noise, computable for any day in O(1). */
  private logAnchor(day: number): number {
    const s = this.dailyVol;
    return (
      this.logBase +
      s * 1.0 * this.valueNoise(day, 1) +
      s * 2.5 * this.valueNoise(day / 7, 2) +
      s * 5 * this.valueNoise(day / 30, 3) +
      s * 9 * this.valueNoise(day / 180, 4)
    );
  }

  private toTicks(logP: number): number {
    return Math.max(1, Math.round(Math.exp(logP) * this.units.pScale));
  }

  /** The price (ticks) at the start of a UTC day, before any closure is held flat. */
  anchorTicks(day: number): number {
    return this.toTicks(this.logAnchor(day));
  }

  /** The 1m candles of a UTC day. */
  block(day: number): DayBlock {
    const b = blankDay();
    const rng = new Prng(hashInts(this.key, 77, day));
    const a0 = this.logAnchor(day);
    const a1 = this.logAnchor(day + 1);
    const sigma = (this.dailyVol / Math.sqrt(MPD)) * 0.7;
    // A Brownian bridge from today's anchor to tomorrow's, so consecutive days join exactly. Steps are
    // triangular (two uniforms, unit variance): cheap enough to build 1000 days in well under a second.
    const w = new Float64Array(MPD + 1);
    const k = sigma * 2.449489742783178;
    for (let i = 1; i <= MPD; i++) w[i] = (w[i - 1] as number) + k * (rng.next() + rng.next() - 1);
    const wEnd = w[MPD] as number;
    let prevTicks = this.toTicks(a0);
    const premDay = (unitHash(this.key, 91, day) - 0.5) * 600;
    let prevPrem = Math.round(premDay);
    const volBase = this.minuteVolume * this.units.qScale;
    for (let i = 0; i < MPD; i++) {
      const frac = (i + 1) / MPD;
      const close =
        i === MPD - 1
          ? this.toTicks(a1)
          : this.toTicks(a0 + (a1 - a0) * frac + (w[i + 1] as number) - frac * wEnd);
      const open = prevTicks;
      const wick = sigma * 0.6 * open;
      const high = Math.max(open, close) + Math.round(rng.next() * rng.next() * 2 * wick);
      const low = Math.max(1, Math.min(open, close) - Math.round(rng.next() * rng.next() * 2 * wick));
      const move = Math.abs(close - open) / open / sigma;
      const vol = Math.max(1, Math.round(volBase * (0.3 + 1.4 * rng.next()) * (1 + 0.3 * move)));
      b.o[i] = open;
      b.h[i] = high;
      b.l[i] = low;
      b.c[i] = close;
      b.v[i] = vol;
      b.t[i] = turnoverOf(this.units, vol, open, close);
      const u = rng.next();
      const hs = 1 + Math.floor(u * 59);
      let ls = 1 + Math.floor(((u * 59) % 1) * 59);
      if (hs === ls) ls = hs === 59 ? 1 : hs + 1;
      b.hs[i] = hs;
      b.ls[i] = ls;
      const pu = rng.next();
      const pc = Math.round(premDay + 240 * (pu - 0.5));
      b.po[i] = prevPrem;
      b.pc[i] = pc;
      b.ph[i] = Math.max(prevPrem, pc) + Math.round(20 * pu);
      b.pl[i] = Math.min(prevPrem, pc) - Math.round(20 * (1 - pu));
      prevPrem = pc;
      prevTicks = close;
    }
    return b;
  }
}

/**
 * Flattens the minutes of block `b` (of UTC day `day`) in which the US market is closed (no volume, the
 * last traded price carried) and opens the first minute after a closure at that carried price. Session
 * changes fall on whole minutes, so a minute is either open or closed. `blockOf` answers an earlier
 * day's block (already held), for the price a day that starts closed carries.
 */
export function holdWhileClosed(
  u: Units,
  day: number,
  b: DayBlock,
  blockOf: (day: number) => DayBlock,
): void {
  const start = day * DAY;
  const closed = new Uint8Array(MPD);
  let any = false;
  for (let t = start; t < start + DAY;) {
    const s = usSessionAt(t);
    const until = Math.min(s.nextChange, start + DAY);
    if (s.session === 'closed') {
      any = true;
      closed.fill(1, Math.floor((t - start) / MIN), Math.ceil((until - start) / MIN));
    }
    t = until;
  }
  const prevClosed = usSessionAt(start - 1).session === 'closed';
  if (!any && !prevClosed) return;
  // The price before this day: only needed when the day starts closed or just after a closure.
  let carry = closed[0] === 1 || prevClosed ? (blockOf(day - 1).c[MPD - 1] as number) : (b.o[0] as number);
  for (let i = 0; i < MPD; i++) {
    if (closed[i] === 1) {
      b.o[i] = carry;
      b.h[i] = carry;
      b.l[i] = carry;
      b.c[i] = carry;
      b.v[i] = 0;
      b.t[i] = 0;
      continue;
    }
    if (i === 0 ? prevClosed : closed[i - 1] === 1) {
      const close = b.c[i] as number;
      b.o[i] = carry;
      b.h[i] = Math.max(b.h[i] as number, carry, close);
      b.l[i] = Math.min(b.l[i] as number, carry, close);
      b.t[i] = turnoverOf(u, b.v[i] as number, carry, close);
    }
    carry = b.c[i] as number;
  }
}
