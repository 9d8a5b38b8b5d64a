// One UTC day of a market in integer units (prices in ticks, volumes in base units, turnovers in quote
// units): its 1m candles, the second of each minute's high and low, and the premium index; the price
// path inside a minute, and the bars read from a block. Whole units keep every sum exact in any grouping.

export const MIN = 60_000;
export const DAY = 86_400_000;
/** Minutes per day: the length of a block's columns. */
export const MPD = 1440;

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
export interface DayBlock {
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

/** A market's units: decimals of its price, quantity and turnover strings, and units per 1 of price and quantity. */
export interface Units {
  readonly pp: number;
  readonly qp: number;
  readonly tp: number;
  readonly pScale: number;
  readonly qScale: number;
}

/** The units of a market with these price and quantity decimals (turnover: their sum, at most 4). */
export function unitsOf(pp: number, qp: number): Units {
  return { pp, qp, tp: Math.min(pp + qp, 4), pScale: 10 ** pp, qScale: 10 ** qp };
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

/** A day block of zeros. */
export function blankDay(): DayBlock {
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

/** Turnover in quote units of a volume traded between two prices (ticks), at their midpoint. */
export function turnoverOf(u: Units, volUnits: number, open: number, close: number): number {
  return Math.round((volUnits / u.qScale) * ((open + close) / 2 / u.pScale) * 10 ** u.tp);
}

/** The UTC day of an instant, its minute in the day and its second in the minute. */
export function locate(ms: number): { day: number; i: number; sec: number } {
  const day = Math.floor(ms / DAY);
  const inDay = ms - day * DAY;
  const i = Math.floor(inDay / MIN);
  return { day, i, sec: Math.floor((inDay - i * MIN) / 1000) };
}

/**
 * Price (ticks) at second `s` (0..60) of minute `i`: piecewise linear through the open, the high and
 * the low (each at its own second) and the close, so the per-second samples of a minute have
 * exactly the minute's high and low.
 */
export function pathAt(b: DayBlock, i: number, s: number): number {
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

/** Aggregates whole minutes [from, to) of one day block into `acc` (or starts it). */
export function scanMinutes(
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

/** The bar of `a` followed by `x` (a copy of `x` when there is no `a`). */
export function mergeBars(a: Bar | undefined, x: Bar): Bar {
  if (!a) return { ...x };
  return { o: a.o, h: Math.max(a.h, x.h), l: Math.min(a.l, x.l), c: x.c, v: a.v + x.v, t: a.t + x.t };
}

/** The part of minute `i` traded up to second `sec` (exclusive of later seconds). */
export function partialMinute(u: Units, b: DayBlock, i: number, sec: number, premium: boolean): Bar {
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
    c = pathAt(b, i, s);
    if (c > h) h = c;
    if (c < l) l = c;
  }
  const v = Math.floor(((b.v[i] as number) * sec) / 60);
  return { o, h, l, c, v, t: turnoverOf(u, v, o, c) };
}
