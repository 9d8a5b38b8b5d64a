// The simulator's market: a deterministic price process per instrument (seeded, or replayed from
// recorded 1m candles), and everything derived from it: candles at every interval, tickers, order
// books, RPI books and public fills. Prices are integer ticks and volumes integer units internally, so
// aggregating 1m candles into larger ones is exact, and the wire strings are formatted from integers.
// A Reality pair trades in every US session the venue offers (pre_market, regular, after_hours and
// overnight: 24 hours on trading days); while the calendar has it closed (weekends, holidays, the
// afternoon of an early close) it has no trades, no volume and flat candles, and reopens with a gap.
// The days come from market-generator.ts or market-replay.ts, in the units of day-block.ts; the book
// and the public fills from order-book.ts; this module caches the days and aggregates them.
import type { CandleInterval, CandleType, PublicFill, Ticker, WireCandle } from '../api/index.js';
import { INTERVAL_MS } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import type { Bar, DayBlock, Units } from './day-block.js';
import {
  DAY,
  MIN,
  MPD,
  formatUnits,
  locate,
  mergeBars,
  partialMinute,
  pathAt,
  scanMinutes,
  unitsOf,
} from './day-block.js';
import type { SimInstrument } from './instruments.js';
import { GeneratedPrices, holdWhileClosed } from './market-generator.js';
import type { ReplayCandle, ReplaySource } from './market-replay.js';
import { ReplayedPrices } from './market-replay.js';
import type { BookLevel, BookShape } from './order-book.js';
import { bookAround, publicFillsUpTo } from './order-book.js';
import { hashInts, hashString, unitHash } from './rng.js';

export type { Bar } from './day-block.js';
export { formatUnits } from './day-block.js';
export type { ReplayCandle, ReplaySource } from './market-replay.js';
export type { BookLevel } from './order-book.js';

/** A ticker's fields of the market itself, in wire order: all but the caller's extras and `ts`. */
type TickerFields = Pick<
  Ticker,
  | 'symbol'
  | 'category'
  | 'lastPrice'
  | 'openPrice24h'
  | 'highPrice24h'
  | 'lowPrice24h'
  | 'ask1Price'
  | 'bid1Price'
  | 'ask1Size'
  | 'bid1Size'
  | 'price24hPcnt'
  | 'volume24h'
  | 'turnover24h'
>;

/** The market of one instrument. Pure in (seed, instrument, replay, time): no hidden state but caches. */
export class InstrumentMarket {
  readonly pp: number;
  readonly qp: number;
  /** Decimals of turnover strings. */
  readonly tp: number;
  private readonly units: Units;
  private readonly key: number;
  private readonly minuteVolume: number;
  private readonly blocks = new Map<number, DayBlock>();
  private readonly daily = new Map<number, { m: Bar; p: Bar }>();
  /** Where the days come from: the seeded generator, or the recorded candles. */
  private readonly prices: GeneratedPrices | ReplayedPrices;
  private readonly shape: BookShape;
  private readonly markFactor: number;
  private readonly indexFactor: number;
  /** A Reality pair: it trades only while the US market is open (see the module comment). */
  private readonly sessionsOnly: boolean;

  constructor(
    readonly inst: SimInstrument,
    seed: number,
    replay?: Iterable<ReplayCandle>,
    bookCadenceMs = 1000,
  ) {
    this.units = unitsOf(Number(inst.wire.pricePrecision), Number(inst.wire.quantityPrecision));
    this.pp = this.units.pp;
    this.qp = this.units.qp;
    this.tp = this.units.tp;
    this.key = hashInts(seed, hashString(inst.pathKey));
    this.minuteVolume = inst.model.minuteVolume;
    this.markFactor = 1 + (unitHash(this.key, 11) - 0.5) * 0.0004;
    this.indexFactor = 1 + (unitHash(this.key, 12) - 0.5) * 0.0006;
    this.sessionsOnly = inst.wire.isReality === 'yes';
    this.prices = replay
      ? new ReplayedPrices(inst.marketKey, this.key, this.units, replay)
      : new GeneratedPrices(this.key, inst.model, this.units);
    this.shape = {
      key: this.key,
      units: this.units,
      minuteVolume: this.minuteVolume,
      rpi: inst.rpi,
      cadenceMs: bookCadenceMs,
    };
  }

  /** The 1m candles of a UTC day, from a cache of the 48 last read. */
  private block(day: number): DayBlock {
    let b = this.blocks.get(day);
    if (b) {
      // Refresh recency for the LRU.
      this.blocks.delete(day);
      this.blocks.set(day, b);
      return b;
    }
    b = this.prices.block(day);
    if (this.sessionsOnly && this.prices instanceof GeneratedPrices)
      holdWhileClosed(this.units, day, b, (d) => this.block(d));
    this.blocks.set(day, b);
    if (this.blocks.size > 48) {
      const oldest = this.blocks.keys().next().value;
      if (oldest !== undefined) this.blocks.delete(oldest);
    }
    return b;
  }

  /** Last traded price at an instant, in ticks. */
  lastTicks(now: number): number {
    const { day, i, sec } = locate(now);
    return pathAt(this.block(day), i, sec);
  }

  /**
   * A reference price for the UTC day of `ms` (the day's opening anchor), O(1) for generated markets
   * and fixed per seed whatever the clock: company records dated that day take their prices from it.
   */
  priceOnDay(ms: number): Decimal {
    const day = Math.floor(ms / DAY);
    return this.priceOf(
      this.prices instanceof ReplayedPrices ? (this.block(day).o[0] as number) : this.prices.anchorTicks(day),
    );
  }

  /** Last traded price as a decimal string. */
  lastPrice(now: number): string {
    return formatUnits(this.lastTicks(now), this.pp);
  }

  // ---- aggregation ----------------------------------------------------------------------------

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
      for (let i = 0; i < MPD; i += 60) bars.push(scanMinutes(b, i, i + 60, premium, undefined) as Bar);
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
    if (to - from < 120) return scanMinutes(b, from, to, premium, acc);
    const firstHour = Math.ceil(from / 60);
    const lastHour = Math.floor(to / 60);
    let a = scanMinutes(b, from, firstHour * 60, premium, acc);
    const hours = this.hoursOf(b, premium);
    for (let h = firstHour; h < lastHour; h++) a = mergeBars(a, hours[h] as Bar);
    return scanMinutes(b, lastHour * 60, to, premium, a);
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
        acc = mergeBars(acc, this.dayBar(day, premium));
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
        acc = mergeBars(acc, partialMinute(this.units, b, i1, Math.floor(rest / 1000), premium));
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

  /** JSON text of closed candle runs, by `interval|type|firstOpen|count`: the latest few asked for. */
  private readonly closedRuns = new Map<string, string>();

  /**
   * Candles of an interval whose open times run from `firstOpen` to `lastOpen` (both aligned), never
   * past `now`: closed candles plus the forming one, ascending, as the JSON text of the wire array. A
   * closed candle (open + step <= now) never changes, so the text of a run of them is kept and reused by
   * every poll until the next one closes; only the forming candle is aggregated each time.
   */
  candlesJson(
    interval: CandleInterval,
    firstOpen: number,
    lastOpen: number,
    now: number,
    type: CandleType,
  ): string {
    const step = INTERVAL_MS[interval];
    const premium = type === 'premium';
    const closedUpTo = Math.min(lastOpen, now - step);
    const closed = closedUpTo < firstOpen ? 0 : Math.floor((closedUpTo - firstOpen) / step) + 1;
    const key = `${interval}|${type}|${firstOpen}|${closed}`;
    let run = this.closedRuns.get(key);
    if (run === undefined) {
      const parts: string[] = [];
      for (let k = 0, open = firstOpen; k < closed; k++, open += step) {
        const bar = this.aggregate(open, open + step, premium);
        if (bar) parts.push(JSON.stringify(this.wireBar(open, bar, type)));
      }
      run = parts.join(',');
      if (this.closedRuns.size >= 32) this.closedRuns.delete(this.closedRuns.keys().next().value as string);
      this.closedRuns.set(key, run);
    }
    const open = firstOpen + closed * step;
    const bar =
      open <= lastOpen && open <= now ? this.aggregate(open, Math.min(open + step, now), premium) : undefined;
    const forming = bar ? JSON.stringify(this.wireBar(open, bar, type)) : '';
    return `[${run}${run !== '' && forming !== '' ? ',' : ''}${forming}]`;
  }

  // ---- books, fills, tickers ----------------------------------------------------------------

  /** Order book at an instant: asks ascending from above the last price, bids descending below it. */
  book(now: number, depth: number): { asks: BookLevel[]; bids: BookLevel[] } {
    return bookAround(this.shape, this.lastTicks(now), now, depth);
  }

  /** Recent public fills, newest first, from the per-second price path. */
  publicFills(now: number, limit: number): PublicFill[] {
    return publicFillsUpTo(this.shape, (day) => this.block(day), now, limit);
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
      const { day, i, sec } = locate(t);
      const b = this.block(day);
      const minuteStart = day * DAY + i * MIN;
      // Skip the whole minute when its range cannot reach the price.
      const reach = dir === 'below' ? (b.l[i] as number) <= priceTicks : (b.h[i] as number) >= priceTicks;
      if (reach) {
        for (let s = sec; s < 60; s++) {
          const ts = minuteStart + s * 1000;
          if (ts > to) return undefined;
          const p = pathAt(b, i, s);
          if (dir === 'below' ? p <= priceTicks : p >= priceTicks) return ts;
        }
      }
      t = minuteStart + MIN;
    }
    return undefined;
  }

  /** The 24 h bar up to the start of the current minute: every ticker within that minute shares it. */
  private dayUpTo: { minute: number; bar: Bar | undefined } | undefined;

  /**
   * The ticker's fields but `ts` at the last instant asked for, by second and book cadence: the price path
   * and the 24 h bar move once a second and the book once a cadence, so every ticker of one second
   * (of one cadence, if shorter) shares them.
   */
  private tickerAt: { sec: number; slot: number; fields: TickerFields } | undefined;

  /** Ticker at an instant with 24h statistics over exactly the last 24 hours of the path. */
  ticker(now: number, extra: Partial<Ticker> = {}): Ticker {
    const sec = Math.floor(now / 1000);
    const slot = Math.floor(now / this.shape.cadenceMs);
    if (this.tickerAt?.sec !== sec || this.tickerAt.slot !== slot)
      this.tickerAt = { sec, slot, fields: this.tickerFields(now) };
    return { ...this.tickerAt.fields, ...extra, ts: String(now) };
  }

  private tickerFields(now: number): TickerFields {
    const last = this.lastTicks(now);
    // aggregate(now - DAY, now), as the whole minutes (cached per minute) and the forming one.
    const minute = Math.floor(now / MIN);
    if (this.dayUpTo?.minute !== minute)
      this.dayUpTo = { minute, bar: this.aggregate((minute - MPD) * MIN, minute * MIN) };
    const whole = this.dayUpTo.bar;
    const forming = this.aggregate(minute * MIN, now);
    const day = whole && forming ? mergeBars(whole, forming) : (whole ?? forming);
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
          this.minuteVolume *
            this.units.qScale *
            (800 + 400 * unitHash(this.key, 42, Math.floor(now / 60_000))),
        ),
        this.qp,
      ),
    };
  }

  /** Converts a decimal string to ticks of this market, or undefined if it has too many decimals. */
  ticksOf(price: string): number | undefined {
    const [, frac = ''] = price.split('.');
    if (frac.replace(/0+$/, '').length > this.pp) return undefined;
    return Math.round(Number(new Decimal(price).mul(this.units.pScale).toFixed()));
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
