// The windows a range of history candles is asked for in, within the venue's limits (spec 4.1 and 8: at
// most 100 candles and 90 days per history-candles query): one plan for the client's range download and
// the live feeds' backfill.
import { HISTORY_CANDLES_MAX_RANGE_MS } from './params.js';
import { INTERVAL_MS, type CandleInterval } from './resources.js';

export const HISTORY_CANDLES_PER_REQUEST = 100;
/**
 * Open times per window: one fewer than the request limit. Rule 4.1.1 lets an answer hold one extra
 * (earlier) interval when endTime passes a boundary; with 100 open times that answer would be 101
 * candles and the limit would cut one off (the newest or the oldest, the spec does not say which):
 * a gap. With 99, every answer fits, whichever end the venue anchors it to.
 */
export const HISTORY_CANDLES_PER_WINDOW = HISTORY_CANDLES_PER_REQUEST - 1;

export interface CandleWindow {
  readonly startTime: number;
  readonly endTime: number;
}

/**
 * Plans the windows of a range [startTime, endTime] (inclusive open times): each covers at most 99
 * candle open times (see HISTORY_CANDLES_PER_WINDOW) and at most 90 days; windows are contiguous,
 * without gap or overlap.
 */
export function planCandleWindows(
  startTime: number,
  endTime: number,
  interval: CandleInterval,
): CandleWindow[] {
  if (!Number.isSafeInteger(startTime) || !Number.isSafeInteger(endTime)) {
    throw new RangeError('startTime and endTime must be integer Unix milliseconds');
  }
  if (startTime > endTime) throw new RangeError('startTime must not be after endTime');
  const step = INTERVAL_MS[interval];
  // Align to the first open time at or after startTime.
  const first = Math.ceil(startTime / step) * step;
  const span = Math.min(HISTORY_CANDLES_PER_WINDOW * step, HISTORY_CANDLES_MAX_RANGE_MS + 1);
  const windows: CandleWindow[] = [];
  for (let s = first; s <= endTime; s += span) {
    windows.push({ startTime: s, endTime: Math.min(endTime, s + span - 1) });
  }
  return windows;
}
