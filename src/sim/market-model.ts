// The simulator's market: a deterministic price process per instrument (seeded, or replayed from
// recorded 1m candles), and everything derived from it: candles at every interval, tickers, order
// books, RPI books and public fills. Prices are integer ticks and volumes integer units internally, so
// aggregating 1m candles into larger ones is exact, and the wire strings are formatted from integers.
// A Reality pair trades in every US session the venue offers (pre_market, regular, after_hours and
// overnight: 24 hours on trading days); while the calendar has it closed (weekends, holidays, the
// afternoon of an early close) it has no trades, no volume and flat candles, and reopens with a gap.
import type { CandleInterval, CandleType, PublicFill, Ticker, WireCandle } from '../api/index.js';
import { INTERVAL_MS } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { usSessionAt } from '../market/sessions.js';
import type { SimInstrument } from './instruments.js';
import { Prng, hashInts, hashString, unitHash } from './rng.js';

const MIN = 60_000;
const DAY = 86_400_000;
const MPD = 1440;

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

/** An aggregated bar in integer units: prices in ticks, volume in base units, turnover in quote units. */
export interface Bar {
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  t: number;
}

/** One day of 1m candles plus, per minute, the second at which its high and low were traded. */
interface DayBlock {
  readonly o: Float64Array;
  readonly h: Float64Array;
  readonly l: Float64Array;
  readonly c: Float64Array;
  readonly v: Float64Array;
  readonly t: Float64Array;
  readonly hs: Uint8Array;
  readonly ls: Uint8Array;
  /** Premium index per minute, in millionths. */
  readonly po: Float64Array;
  readonly ph: Float64Array;
  readonly pl: Float64Array;
  readonly pc: Float64Array;
}

/** An order-book level in integer units. */
export interface BookLevel {
  readonly price: number;
  readonly qty: number;
  readonly rpiQty: number;
}

/** Formats a signed integer count of 10^-decimals units as a plain decimal string. */
export function formatUnits(n: number, decimals: number): string {
  const neg = n < 0;
  const s = String(Math.abs(Math.round(n)));
  if (decimals === 0) return neg && s !== '0' ? `-${s}` : s;
  const padded = s.padStart(decimals + 1, '0');
  const out = `${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
  return neg && /[1-9]/.test(out) ? `-${out}` : out;
}

function blank(): DayBlock {
  const f = () => new Float64Array(MPD);
  return {
    o: f(),
    h: f(),
    l: f(),
    c: f(),
    v: f(),
    t: f(),
    hs: new Uint8Array(MPD),
    ls: new Uint8Array(MPD),
    po: f(),
    ph: f(),
    pl: f(),
    pc: f(),
  };
}

const smooth = (x: number): number => x * x * (3 - 2 * x);

/** The market of one instrument. Pure in (seed, instrument, replay, time): no hidden state but caches. */
export class InstrumentMarket {
  readonly pp: number;
  readonly qp: number;
  /** Decimals of turnover strings. */
  readonly tp: number;
  private readonly pScale: number;
  private readonly qScale: number;
  private readonly key: number;
  private readonly logBase: number;
  private readonly dailyVol: number;
  private readonly minuteVolume: number;
  private readonly blocks = new Map<number, DayBlock>();
  private readonly daily = new Map<number, { m: Bar; p: Bar }>();
  private readonly replay: Map<number, ReplayCandle> | undefined;
  private readonly replayMinutes: number[] = [];
  private readonly markFactor: number;
  private readonly indexFactor: number;
  private readonly rpi: boolean;
  /** A Reality pair: it trades only while the US market is open (see the module comment). */
  private readonly sessionsOnly: boolean;

  constructor(
    readonly inst: SimInstrument,
    seed: number,
    replay?: Iterable<ReplayCandle>,
    private readonly bookCadenceMs = 1000,
  ) {
    this.pp = Number(inst.wire.pricePrecision);
    this.qp = Number(inst.wire.quantityPrecision);
    this.tp = Math.min(this.pp + this.qp, 4);
    this.pScale = 10 ** this.pp;
    this.qScale = 10 ** this.qp;
    this.key = hashInts(seed, hashString(inst.pathKey));
    this.logBase = Math.log(Number(inst.model.basePrice));
    this.dailyVol = inst.model.dailyVol;
    this.minuteVolume = inst.model.minuteVolume;
    this.markFactor = 1 + (unitHash(this.key, 11) - 0.5) * 0.0004;
    this.indexFactor = 1 + (unitHash(this.key, 12) - 0.5) * 0.0006;
    this.rpi = inst.rpi;
    this.sessionsOnly = inst.wire.isReality === 'yes';
    if (replay) {
      this.replay = new Map();
      for (const c of replay) {
        if (!Number.isFinite(c.openTime) || c.openTime % MIN !== 0) {
          throw new Error(
            `replay candle of ${inst.marketKey}: openTime ${c.openTime} is not on a minute boundary`,
          );
        }
        this.replay.set(c.openTime / MIN, c);
      }
      this.replayMinutes = [...this.replay.keys()].sort((a, b) => a - b);
      if (this.replayMinutes.length === 0) throw new Error(`replay of ${inst.marketKey} has no candles`);
    }
  }

  // ---- the price process --------------------------------------------------------------------

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
    return Math.max(1, Math.round(Math.exp(logP) * this.pScale));
  }

  private block(day: number): DayBlock {
    let b = this.blocks.get(day);
    if (b) {
      // Refresh recency for the LRU.
      this.blocks.delete(day);
      this.blocks.set(day, b);
      return b;
    }
    b = this.replay ? this.replayBlock(day) : this.generatedBlock(day);
    if (this.sessionsOnly && !this.replay) this.holdWhileClosed(day, b);
    this.blocks.set(day, b);
    if (this.blocks.size > 48) {
      const oldest = this.blocks.keys().next().value;
      if (oldest !== undefined) this.blocks.delete(oldest);
    }
    return b;
  }

  /**
   * Flattens the minutes in which the US market is closed (no volume, the last traded price carried)
   * and opens the first minute after a closure at that carried price. Session changes fall on whole
   * minutes, so a minute is either open or closed.
   */
  private holdWhileClosed(day: number, b: DayBlock): void {
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
    let carry =
      closed[0] === 1 || prevClosed ? (this.block(day - 1).c[MPD - 1] as number) : (b.o[0] as number);
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
        b.t[i] = this.turnoverOf(b.v[i] as number, carry, close);
      }
      carry = b.c[i] as number;
    }
  }

  private generatedBlock(day: number): DayBlock {
    const b = blank();
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
    const volBase = this.minuteVolume * this.qScale;
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
      b.t[i] = this.turnoverOf(vol, open, close);
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

  private turnoverOf(volUnits: number, open: number, close: number): number {
    return Math.round((volUnits / this.qScale) * ((open + close) / 2 / this.pScale) * 10 ** this.tp);
  }

  private priceTicks(x: string | number, what: string): number {
    const n = Number(x);
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(
        `replay candle of ${this.inst.marketKey}: ${what} ${String(x)} is not a positive number`,
      );
    return Math.max(1, Math.round(n * this.pScale));
  }

  private replayBlock(day: number): DayBlock {
    const b = blank();
    const replay = this.replay as Map<number, ReplayCandle>;
    const first = day * MPD;
    // Carry the last recorded close into gaps (flat, no volume); before the record, its first open.
    let lo = 0;
    let hi = this.replayMinutes.length - 1;
    let idx = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.replayMinutes[mid] as number) < first) {
        idx = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const seedCandle =
      idx >= 0 ? replay.get(this.replayMinutes[idx] as number) : replay.get(this.replayMinutes[0] as number);
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
        const v = Math.max(0, Math.round(Number(c.volume) * this.qScale));
        b.o[i] = o;
        b.h[i] = h;
        b.l[i] = l;
        b.c[i] = cl;
        b.v[i] = v;
        b.t[i] = this.turnoverOf(v, o, cl);
        last = cl;
      } else {
        b.o[i] = b.h[i] = b.l[i] = b.c[i] = last;
      }
    }
    return b;
  }

  // ---- intra-minute path --------------------------------------------------------------------

  /**
   * Price (ticks) at second `s` (0..60) of a minute: piecewise linear through the open, the high and
   * the low (each at its own second) and the close, so the per-second samples of a minute have
   * exactly the minute's high and low.
   */
  private pathAt(b: DayBlock, i: number, s: number): number {
    const o = b.o[i] as number;
    const c = b.c[i] as number;
    const hs = b.hs[i] as number;
    const ls = b.ls[i] as number;
    const h = b.h[i] as number;
    const l = b.l[i] as number;
    const [t1, v1, t2, v2] = hs < ls ? [hs, h, ls, l] : [ls, l, hs, h];
    const lerp = (ta: number, va: number, tb: number, vb: number) =>
      Math.round(va + ((vb - va) * (s - ta)) / (tb - ta));
    if (s <= t1) return lerp(0, o, t1, v1);
    if (s <= t2) return lerp(t1, v1, t2, v2);
    return lerp(t2, v2, 60, c);
  }

  private locate(ms: number): { day: number; i: number; sec: number } {
    const day = Math.floor(ms / DAY);
    const inDay = ms - day * DAY;
    const i = Math.floor(inDay / MIN);
    return { day, i, sec: Math.floor((inDay - i * MIN) / 1000) };
  }

  /** Last traded price at an instant, in ticks. */
  lastTicks(now: number): number {
    const { day, i, sec } = this.locate(now);
    return this.pathAt(this.block(day), i, sec);
  }

  /**
   * A reference price for the UTC day of `ms` (the day's opening anchor), O(1) for generated markets
   * and fixed per seed whatever the clock: company records dated that day take their prices from it.
   */
  priceOnDay(ms: number): Decimal {
    const day = Math.floor(ms / DAY);
    return this.priceOf(this.replay ? (this.block(day).o[0] as number) : this.toTicks(this.logAnchor(day)));
  }

  /** Last traded price as a decimal string. */
  lastPrice(now: number): string {
    return formatUnits(this.lastTicks(now), this.pp);
  }

  /** The part of a minute traded up to second `sec` (exclusive of later seconds). */
  private partialMinute(b: DayBlock, i: number, sec: number, premium: boolean): Bar {
    if (premium) {
      const po = b.po[i] as number;
      const c = Math.round(po + (((b.pc[i] as number) - po) * sec) / 60);
      return { o: po, h: Math.max(po, c), l: Math.min(po, c), c, v: 0, t: 0 };
    }
    const o = b.o[i] as number;
    let h = o;
    let l = o;
    let c = o;
    for (let s = 1; s <= sec; s++) {
      c = this.pathAt(b, i, s);
      if (c > h) h = c;
      if (c < l) l = c;
    }
    const v = Math.floor(((b.v[i] as number) * sec) / 60);
    return { o, h, l, c, v, t: this.turnoverOf(v, o, c) };
  }

  /** Aggregates whole minutes [from, to) of one day block into `acc` (or starts it). */
  /** Hourly bars of a block, cached: a 24 h ticker reads 24 of them instead of 1440 minutes. */
  private readonly hourly = new WeakMap<DayBlock, { m?: Bar[]; p?: Bar[] }>();

  private hoursOf(b: DayBlock, premium: boolean): Bar[] {
    let h = this.hourly.get(b);
    if (!h) {
      h = {};
      this.hourly.set(b, h);
    }
    const key = premium ? 'p' : 'm';
    let bars = h[key];
    if (!bars) {
      bars = [];
      for (let i = 0; i < MPD; i += 60) bars.push(this.scanMinutes(b, i, i + 60, premium, undefined) as Bar);
      h[key] = bars;
    }
    return bars;
  }

  /**
   * The bar over minutes [from, to) of a block: whole hours from the hourly cache, the ends minute by
   * minute. Volumes and turnovers are whole units, so the sums are exact in any grouping.
   */
  private aggMinutes(
    b: DayBlock,
    from: number,
    to: number,
    premium: boolean,
    acc: Bar | undefined,
  ): Bar | undefined {
    if (to - from < 120) return this.scanMinutes(b, from, to, premium, acc);
    const firstHour = Math.ceil(from / 60);
    const lastHour = Math.floor(to / 60);
    let a = this.scanMinutes(b, from, firstHour * 60, premium, acc);
    const hours = this.hoursOf(b, premium);
    for (let h = firstHour; h < lastHour; h++) a = this.merge(a, hours[h] as Bar);
    return this.scanMinutes(b, lastHour * 60, to, premium, a);
  }

  private scanMinutes(
    b: DayBlock,
    from: number,
    to: number,
    premium: boolean,
    acc: Bar | undefined,
  ): Bar | undefined {
    const [O, H, L, C] = premium ? [b.po, b.ph, b.pl, b.pc] : [b.o, b.h, b.l, b.c];
    let a = acc;
    for (let i = from; i < to; i++) {
      const h = H[i] as number;
      const l = L[i] as number;
      if (!a) {
        a = { o: O[i] as number, h, l, c: C[i] as number, v: 0, t: 0 };
      } else {
        if (h > a.h) a.h = h;
        if (l < a.l) a.l = l;
        a.c = C[i] as number;
      }
      if (!premium) {
        a.v += b.v[i] as number;
        a.t += b.t[i] as number;
      }
    }
    return a;
  }

  private merge(a: Bar | undefined, x: Bar): Bar {
    if (!a) return { ...x };
    return { o: a.o, h: Math.max(a.h, x.h), l: Math.min(a.l, x.l), c: x.c, v: a.v + x.v, t: a.t + x.t };
  }

  /** A whole closed day, cached (the 1D candle and the block of every larger aggregation). */
  private dayBar(day: number, premium: boolean): Bar {
    let d = this.daily.get(day);
    if (!d) {
      const b = this.block(day);
      d = {
        m: this.aggMinutes(b, 0, MPD, false, undefined) as Bar,
        p: this.aggMinutes(b, 0, MPD, true, undefined) as Bar,
      };
      this.daily.set(day, d);
    }
    return premium ? d.p : d.m;
  }

  /**
   * The bar over [from, to) with `to` possibly inside a minute (the forming candle). Whole days come
   * from the day cache; the rest from minute blocks. Exactly the aggregate of the 1m candles.
   */
  aggregate(from: number, to: number, premium = false): Bar | undefined {
    let acc: Bar | undefined;
    let t = from;
    while (t < to) {
      const day = Math.floor(t / DAY);
      const dayStart = day * DAY;
      if (t === dayStart && to >= dayStart + DAY) {
        acc = this.merge(acc, this.dayBar(day, premium));
        t = dayStart + DAY;
        continue;
      }
      const b = this.block(day);
      const i0 = Math.floor((t - dayStart) / MIN);
      const endInDay = Math.min(to, dayStart + DAY);
      const i1 = Math.floor((endInDay - dayStart) / MIN);
      acc = this.aggMinutes(b, i0, i1, premium, acc);
      const rest = endInDay - (dayStart + i1 * MIN);
      if (rest > 0 && i1 < MPD) {
        acc = this.merge(acc, this.partialMinute(b, i1, Math.floor(rest / 1000), premium));
      }
      t = endInDay;
    }
    return acc;
  }

  private transform(x: number, type: CandleType): number {
    if (type === 'mark') return Math.max(1, Math.round(x * this.markFactor));
    if (type === 'index') return Math.max(1, Math.round(x * this.indexFactor));
    return x;
  }

  private wireBar(openTime: number, bar: Bar, type: CandleType): WireCandle {
    if (type === 'premium') {
      const f = (n: number) => formatUnits(n, 6);
      return [String(openTime), f(bar.o), f(bar.h), f(bar.l), f(bar.c), '0', '0'];
    }
    const p = (n: number) => formatUnits(this.transform(n, type), this.pp);
    const isMarket = type === 'market';
    return [
      String(openTime),
      p(bar.o),
      p(bar.h),
      p(bar.l),
      p(bar.c),
      isMarket ? formatUnits(bar.v, this.qp) : '0',
      isMarket ? formatUnits(bar.t, this.tp) : '0',
    ];
  }

  /**
   * Candles of an interval whose open times run from `firstOpen` to `lastOpen` (both aligned), never
   * past `now`: closed candles plus the forming one, ascending.
   */
  candles(
    interval: CandleInterval,
    firstOpen: number,
    lastOpen: number,
    now: number,
    type: CandleType,
  ): WireCandle[] {
    const step = INTERVAL_MS[interval];
    const out: WireCandle[] = [];
    const premium = type === 'premium';
    for (let open = firstOpen; open <= lastOpen && open <= now; open += step) {
      const bar = this.aggregate(open, Math.min(open + step, now), premium);
      if (bar) out.push(this.wireBar(open, bar, type));
    }
    return out;
  }

  // ---- books, fills, tickers ----------------------------------------------------------------

  private halfSpread(last: number): number {
    return Math.max(1, Math.round(last * 0.00005));
  }

  /** Order book at an instant: asks ascending from above the last price, bids descending below it. */
  book(now: number, depth: number): { asks: BookLevel[]; bids: BookLevel[] } {
    const last = this.lastTicks(now);
    const sec = Math.floor(now / this.bookCadenceMs);
    const hsp = this.halfSpread(last);
    const step = Math.max(1, Math.round(last * 0.00002));
    const baseQty = Math.max(1, this.minuteVolume * this.qScale * 0.15);
    const level = (side: number, j: number, price: number): BookLevel => {
      const u = unitHash(this.key, sec, side, j);
      const qty = Math.max(1, Math.round(baseQty * (0.2 + 1.6 * u) * (1 + j * 0.02)));
      const rpiQty = this.rpi ? Math.round(qty * 0.3 * unitHash(this.key, sec, side + 2, j)) : 0;
      return { price, qty, rpiQty };
    };
    const asks: BookLevel[] = [];
    const bids: BookLevel[] = [];
    for (let j = 0; j < depth; j++) asks.push(level(0, j, last + hsp + j * step));
    for (let j = 0; j < depth; j++) {
      const price = last - hsp - j * step;
      if (price < 1) break;
      bids.push(level(1, j, price));
    }
    return { asks, bids };
  }

  /** Recent public fills, newest first, from the per-second price path. */
  publicFills(now: number, limit: number): PublicFill[] {
    const out: PublicFill[] = [];
    const nowSec = Math.floor(now / 1000);
    const unit = Math.max(1, Math.round(this.minuteVolume * this.qScale * 0.02));
    for (let sec = nowSec; out.length < limit && sec > nowSec - 3600; sec--) {
      const h = hashInts(this.key, 31, sec);
      if (h % 3 === 0) continue;
      const ts = sec * 1000 + (h % 1000);
      if (ts > now) continue;
      const { day, i, sec: s } = this.locate(ts);
      const b = this.block(day);
      if (b.v[i] === 0) continue; // nothing traded in this minute (a closed market, a replay gap)
      const price = this.pathAt(b, i, s);
      const size = Math.max(1, Math.round(unit * (0.1 + 3 * unitHash(this.key, 32, sec))));
      out.push({
        execId: `${sec}${String(h % 100000).padStart(5, '0')}`,
        execLinkId: `${sec}${String(hashInts(this.key, 33, sec) % 100000).padStart(5, '0')}`,
        price: formatUnits(price, this.pp),
        size: formatUnits(size, this.qp),
        side: (h >>> 8) % 2 === 0 ? 'buy' : 'sell',
        ts: String(ts),
        isRPI: this.rpi && (h >>> 12) % 10 === 0 ? 'yes' : 'no',
      });
    }
    return out;
  }

  /**
   * The first instant in [from, to] at which the price path reaches `priceTicks` from the given side
   * ('below': path <= price, for a resting buy; 'above': path >= price, for a resting sell), at
   * one-second resolution; undefined if it does not.
   */
  firstTouch(dir: 'below' | 'above', priceTicks: number, from: number, to: number): number | undefined {
    let t = Math.floor(from / 1000) * 1000;
    if (t < from) t += 1000;
    while (t <= to) {
      const { day, i, sec } = this.locate(t);
      const b = this.block(day);
      const minuteStart = day * DAY + i * MIN;
      // Skip the whole minute when its range cannot reach the price.
      const reach = dir === 'below' ? (b.l[i] as number) <= priceTicks : (b.h[i] as number) >= priceTicks;
      if (reach) {
        for (let s = sec; s < 60; s++) {
          const ts = minuteStart + s * 1000;
          if (ts > to) return undefined;
          const p = this.pathAt(b, i, s);
          if (dir === 'below' ? p <= priceTicks : p >= priceTicks) return ts;
        }
      }
      t = minuteStart + MIN;
    }
    return undefined;
  }

  /** Ticker at an instant with 24h statistics over exactly the last 24 hours of the path. */
  /** The 24 h bar up to the start of the current minute: every ticker within that minute shares it. */
  private dayUpTo: { minute: number; bar: Bar | undefined } | undefined;

  ticker(now: number, extra: Partial<Ticker> = {}): Ticker {
    const last = this.lastTicks(now);
    // aggregate(now - DAY, now), as the whole minutes (cached per minute) and the forming one.
    const minute = Math.floor(now / MIN);
    if (this.dayUpTo?.minute !== minute)
      this.dayUpTo = { minute, bar: this.aggregate((minute - MPD) * MIN, minute * MIN) };
    const whole = this.dayUpTo.bar;
    const forming = this.aggregate(minute * MIN, now);
    const day = whole && forming ? this.merge(whole, forming) : (whole ?? forming);
    const bar = day ?? { o: last, h: last, l: last, c: last, v: 0, t: 0 };
    const { asks, bids } = this.book(now, 1);
    const ask = asks[0];
    const bid = bids[0];
    const pcnt = new Decimal(last - bar.o).div(bar.o).toDecimalPlaces(6);
    const p = (n: number) => formatUnits(n, this.pp);
    const q = (n: number) => formatUnits(n, this.qp);
    return {
      symbol: this.inst.wire.symbol,
      category: this.inst.wire.category,
      lastPrice: p(last),
      openPrice24h: p(bar.o),
      highPrice24h: p(Math.max(bar.h, last)),
      lowPrice24h: p(Math.min(bar.l, last)),
      ask1Price: ask ? p(ask.price) : '',
      bid1Price: bid ? p(bid.price) : '',
      ask1Size: ask ? q(ask.qty) : '0',
      bid1Size: bid ? q(bid.qty) : '0',
      price24hPcnt: pcnt.toFixed(),
      volume24h: q(bar.v),
      turnover24h: formatUnits(bar.t, this.tp),
      ...extra,
      ts: String(now),
    };
  }

  /** Futures fields of the ticker at an instant. */
  futuresFields(now: number): Pick<Ticker, 'indexPrice' | 'markPrice' | 'fundingRate' | 'openInterest'> {
    const last = this.lastTicks(now);
    const window = Math.floor(now / (8 * 3_600_000));
    const funding = Math.round((unitHash(this.key, 41, window) - 0.35) * 200) / 1_000_000;
    return {
      indexPrice: formatUnits(this.transform(last, 'index'), this.pp),
      markPrice: formatUnits(this.transform(last, 'mark'), this.pp),
      fundingRate: new Decimal(funding).toFixed(),
      openInterest: formatUnits(
        Math.round(
          this.minuteVolume * this.qScale * (800 + 400 * unitHash(this.key, 42, Math.floor(now / 60_000))),
        ),
        this.qp,
      ),
    };
  }

  /** Converts a decimal string to ticks of this market, or undefined if it has too many decimals. */
  ticksOf(price: string): number | undefined {
    const [, frac = ''] = price.split('.');
    if (frac.replace(/0+$/, '').length > this.pp) return undefined;
    return Math.round(Number(new Decimal(price).mul(this.pScale).toFixed()));
  }

  /** Price of ticks as a Decimal. */
  priceOf(ticks: number): Decimal {
    return new Decimal(formatUnits(ticks, this.pp));
  }

  /** Quantity of units as a Decimal. */
  qtyOf(units: number): Decimal {
    return new Decimal(formatUnits(units, this.qp));
  }
}

/** All markets of an instrument table, keyed by market key (margin pairs share their spot market). */
export class MarketModel {
  private readonly markets = new Map<string, InstrumentMarket>();

  constructor(
    instruments: readonly SimInstrument[],
    seed: number,
    replay: ReplaySource = {},
    bookCadenceMs = 1000,
  ) {
    const known = new Set(instruments.map((i) => i.marketKey));
    for (const k of Object.keys(replay)) {
      const key = k.includes(':') ? k : `SPOT:${k}`;
      if (!known.has(key))
        throw new Error(`replay source names ${k}, which is not an instrument of the simulator`);
    }
    for (const inst of instruments) {
      if (this.markets.has(inst.marketKey)) continue;
      const sym = inst.marketKey.startsWith('SPOT:') ? inst.wire.symbol : undefined;
      const rec = replay[inst.marketKey] ?? (sym !== undefined ? replay[sym] : undefined);
      this.markets.set(inst.marketKey, new InstrumentMarket(inst, seed, rec, bookCadenceMs));
    }
  }

  /** The market of an instrument. */
  of(inst: SimInstrument): InstrumentMarket {
    const m = this.markets.get(inst.marketKey);
    if (!m) throw new Error(`no market for ${inst.marketKey}`);
    return m;
  }
}
