// History candles over any time range: windows of at most 90 days and 99 open times, requested with
// limit 100 (spec 4.1), the extra interval of rule 4.1.1 removed, deduplicated and sorted.
import {
  HISTORY_CANDLES_MAX_RANGE_MS,
  INTERVAL_MS,
  type CandleInterval,
  type CandleType,
  type WireCandle,
} from '../api/index.js';
import type { RestClient } from './rest-client.js';

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

export interface CandleRangeArgs {
  readonly category: 'SPOT' | 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES';
  readonly symbol: string;
  readonly interval: CandleInterval;
  readonly startTime: number;
  readonly endTime: number;
  readonly type?: CandleType | undefined;
  /** Called after each window, e.g. for a progress bar. */
  readonly onWindow?: ((done: number, total: number) => void) | undefined;
}

/** Downloads every candle whose open time lies in [startTime, endTime], each once, sorted ascending. */
export async function* historyCandlesRange(
  client: RestClient,
  a: CandleRangeArgs,
): AsyncGenerator<WireCandle> {
  const windows = planCandleWindows(a.startTime, a.endTime, a.interval);
  let last = -Infinity;
  for (let i = 0; i < windows.length; i++) {
    const w = windows[i] as CandleWindow;
    const rows = await client.historyCandles({
      category: a.category,
      symbol: a.symbol,
      interval: a.interval,
      startTime: w.startTime,
      endTime: w.endTime,
      limit: HISTORY_CANDLES_PER_REQUEST,
      ...(a.type !== undefined ? { type: a.type } : {}),
    });
    const inWindow = rows
      .filter((c) => {
        const t = Number(c[0]);
        return t >= w.startTime && t <= w.endTime && t > last;
      })
      .sort((x, y) => Number(x[0]) - Number(y[0]));
    for (const c of inWindow) {
      const t = Number(c[0]);
      if (t <= last) continue;
      last = t;
      yield c;
    }
    a.onWindow?.(i + 1, windows.length);
  }
}
