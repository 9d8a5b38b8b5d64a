// The equity curve a run keeps: one point per time step (the equity marked at every candle's close). The
// figures come from the whole curve; what leaves the process (result.json, the report, a sweep worker's
// answer) is thinned to a bound by `thinEquity`, which keeps each bucket's lowest and highest point.

/** A point of the curve: a time step's close and the equity marked there (a number: statistics and charts). */
export interface EquityCurvePoint {
  readonly ts: number;
  readonly equity: number;
}

/** result.json keeps the whole curve up to this many points (a month of 1m candles), else a thinned one. */
export const MAX_STORED_EQUITY_POINTS = 50_000;

/** The report's equity and drawdown charts: as many points as the price chart keeps bars. */
export const MAX_CHART_EQUITY_POINTS = 3_000;

/**
 * The curve as two columns of doubles (times, equities): a point per candle without an object per point (a
 * million `{ts, equity}` objects were most of a 1M-candle run's garbage collection and a third of its peak
 * memory). Each equity is the very double the replay marked; `at(i)` answers a point object when one is wanted.
 */
export class EquityCurve {
  private tsCol: Float64Array;
  private eqCol: Float64Array;
  private n = 0;

  constructor(capacity = 1024) {
    this.tsCol = new Float64Array(Math.max(16, capacity));
    this.eqCol = new Float64Array(Math.max(16, capacity));
  }

  /** The curve of `points` (itself when it is one already). */
  static of(points: EquityPoints): EquityCurve {
    if (points instanceof EquityCurve) return points;
    const c = new EquityCurve(points.length);
    for (const p of points) c.push(p.ts, p.equity);
    return c;
  }

  get length(): number {
    return this.n;
  }

  push(ts: number, equity: number): void {
    if (this.n === this.tsCol.length) {
      const ts2 = new Float64Array(this.n * 2);
      const eq2 = new Float64Array(this.n * 2);
      ts2.set(this.tsCol);
      eq2.set(this.eqCol);
      this.tsCol = ts2;
      this.eqCol = eq2;
    }
    this.tsCol[this.n] = ts;
    this.eqCol[this.n] = equity;
    this.n++;
  }

  /** Replaces the last point's equity (its time stays). */
  setLastEquity(equity: number): void {
    this.eqCol[this.n - 1] = equity;
  }

  ts(i: number): number {
    return this.tsCol[i] as number;
  }

  equity(i: number): number {
    return this.eqCol[i] as number;
  }

  /** The times, as a view of the column (valid until the next push). */
  times(): Float64Array {
    return this.tsCol.subarray(0, this.n);
  }

  /** The equities, as a view of the column (valid until the next push). */
  equities(): Float64Array {
    return this.eqCol.subarray(0, this.n);
  }

  at(i: number): EquityCurvePoint {
    return { ts: this.tsCol[i] as number, equity: this.eqCol[i] as number };
  }

  /** The points from the first at or after `from`, as objects. */
  pointsFrom(from = -Infinity): EquityCurvePoint[] {
    const out: EquityCurvePoint[] = [];
    for (let i = 0; i < this.n; i++) if ((this.tsCol[i] as number) >= from) out.push(this.at(i));
    return out;
  }

  map<T>(f: (p: EquityCurvePoint, i: number) => T): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.n; i++) out.push(f(this.at(i), i));
    return out;
  }
}

/** A curve as the engine keeps it, or as points (a walk-forward's stitched curve, a test's). */
export type EquityPoints = EquityCurve | readonly EquityCurvePoint[];

/**
 * At most about `max` points of `points` (the whole curve when it fits): the first and the last point, and
 * in each bucket of consecutive points its lowest and its highest, in time order, so that peaks and troughs
 * (what a drawdown is measured between) stay on the chart. Answers the kept indices too, for a series that
 * goes with the curve (the benchmark).
 */
export function thinEquity(
  points: EquityPoints,
  max: number,
): { points: EquityCurvePoint[]; indices: number[] } {
  const c = EquityCurve.of(points);
  const n = c.length;
  if (n <= max) return { points: c.map((p) => p), indices: c.map((_, i) => i) };
  const per = Math.ceil((n - 2) / Math.max(1, Math.floor((max - 2) / 2)));
  const indices = [0];
  for (let start = 1; start < n - 1; start += per) {
    const end = Math.min(n - 1, start + per);
    let lo = start;
    let hi = start;
    for (let i = start + 1; i < end; i++) {
      const e = c.equity(i);
      if (e < c.equity(lo)) lo = i;
      if (e > c.equity(hi)) hi = i;
    }
    indices.push(Math.min(lo, hi));
    if (hi !== lo) indices.push(Math.max(lo, hi));
  }
  if (n > 1) indices.push(n - 1);
  return { points: indices.map((i) => c.at(i)), indices };
}
