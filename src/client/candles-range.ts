// History candles over any time range: windows of at most 90 days and 99 open times (planCandleWindows,
// src/api/history-windows.ts), requested with limit 100 (spec 4.1), the extra interval of rule 4.1.1
// removed, deduplicated and sorted.
import {
  HISTORY_CANDLES_PER_REQUEST,
  planCandleWindows,
  type CandleInterval,
  type CandleType,
  type CandleWindow,
  type WireCandle,
} from '../api/index.js';
import type { RestClient } from './rest-client.js';

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
