// The equity curve a run keeps: one point per time step (the equity marked at every candle's close). The
// figures come from the whole curve; what leaves the process (result.json, the report, a sweep worker's
// answer) is thinned to a bound by `thinEquity`, which keeps each bucket's lowest and highest point.
import type { EquityCurvePoint } from './result.js';

/** result.json keeps the whole curve up to this many points (a month of 1m candles), else a thinned one. */
export const MAX_STORED_EQUITY_POINTS = 50_000;

/** The report's equity and drawdown charts: as many points as the price chart keeps bars. */
export const MAX_CHART_EQUITY_POINTS = 3_000;

/**
 * At most about `max` points of `points` (the whole curve when it fits): the first and the last point, and
 * in each bucket of consecutive points its lowest and its highest, in time order, so that peaks and troughs
 * (what a drawdown is measured between) stay on the chart. Answers the kept indices too, for a series that
 * goes with the curve (the benchmark).
 */
export function thinEquity(
  points: readonly EquityCurvePoint[],
  max: number,
): { points: EquityCurvePoint[]; indices: number[] } {
  const n = points.length;
  if (n <= max) return { points: [...points], indices: points.map((_, i) => i) };
  const per = Math.ceil((n - 2) / Math.max(1, Math.floor((max - 2) / 2)));
  const indices = [0];
  for (let start = 1; start < n - 1; start += per) {
    const end = Math.min(n - 1, start + per);
    let lo = start;
    let hi = start;
    for (let i = start + 1; i < end; i++) {
      const e = (points[i] as EquityCurvePoint).equity;
      if (e < (points[lo] as EquityCurvePoint).equity) lo = i;
      if (e > (points[hi] as EquityCurvePoint).equity) hi = i;
    }
    indices.push(Math.min(lo, hi));
    if (hi !== lo) indices.push(Math.max(lo, hi));
  }
  if (n > 1) indices.push(n - 1);
  return { points: indices.map((i) => points[i] as EquityCurvePoint), indices };
}
