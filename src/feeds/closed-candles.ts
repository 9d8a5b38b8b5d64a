// Closed candles: each candle is emitted once, when it has closed, in order. A gap (after a restart or
// an outage) is backfilled from history-candles, in windows of at most 100 candles, before new ones.
import type { Observable } from 'rxjs';
import { EMPTY, concatMap, defer, from, map, mergeMap, range, reduce, type SchedulerLike } from 'rxjs';
import { INTERVAL_MS, type CandleInterval, type WireCandle } from '../api/index.js';
import { candleFromWire, type Candle } from '../market/candle.js';
import type { Clock } from './clock.js';
import { poll } from './poll.js';
import type { MarketDataSource } from './source.js';

export interface ClosedCandleOptions {
  readonly category: 'SPOT' | 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES';
  readonly symbol: string;
  readonly interval: CandleInterval;
  /** Open time of the last candle already seen (e.g. from the journal): backfill starts after it. */
  readonly since?: number | undefined;
  /** How far back to start when nothing was seen (default: 200 candles). */
  readonly warmupCandles?: number | undefined;
  /** Delay after the interval boundary before polling, so the venue has closed the candle (default 1500 ms). */
  readonly settleMs?: number | undefined;
  readonly scheduler: SchedulerLike;
  readonly clock: Clock;
  readonly onError?: ((err: unknown) => void) | undefined;
}

const HISTORY_WINDOW = 100;

/** Closed candles of one symbol and interval. */
export function closedCandles(source: MarketDataSource, o: ClosedCandleOptions): Observable<Candle> {
  const step = INTERVAL_MS[o.interval];
  return defer(() => {
    const now = o.clock.now();
    let last = o.since ?? Math.floor(now / step) * step - (o.warmupCandles ?? 200) * step - step;
    const toCandles = (rows: readonly WireCandle[], upTo: number): Candle[] => {
      const out: Candle[] = [];
      for (const w of [...rows].sort((a, b) => Number(a[0]) - Number(b[0]))) {
        const t = Number(w[0]);
        if (t <= last || t + step > upTo) continue; // seen already, or still forming
        out.push(candleFromWire(w, o.symbol, o.interval));
        last = t;
      }
      return out;
    };
    const backfill = (upTo: number): Observable<Candle> => {
      const firstMissing = last + step;
      const lastClosed = Math.floor(upTo / step) * step - step;
      if (lastClosed < firstMissing) return EMPTY;
      const windows = Math.ceil((lastClosed - firstMissing + step) / (HISTORY_WINDOW * step));
      return range(0, windows).pipe(
        concatMap((i) => {
          const s = firstMissing + i * HISTORY_WINDOW * step;
          const e = Math.min(lastClosed, s + (HISTORY_WINDOW - 1) * step);
          return from(
            source.historyCandles({
              category: o.category,
              symbol: o.symbol,
              interval: o.interval,
              startTime: String(s),
              endTime: String(e),
              limit: String(HISTORY_WINDOW),
            }),
          );
        }),
        reduce((acc: WireCandle[], rows) => acc.concat(rows), []),
        mergeMap((rows) => from(toCandles(rows, upTo))),
      );
    };
    // The first poll backfills everything since `last`; later polls run shortly after each boundary.
    const settle = o.settleMs ?? 1500;
    const untilNextClose = () => {
      const t = o.clock.now();
      return (Math.floor((t - settle) / step) + 1) * step + settle - t;
    };
    let backfilled = false;
    return poll(
      () =>
        defer(() => {
          const t = o.clock.now();
          if (!backfilled || t - last > 2 * step + settle) {
            // A gap: fill it from history before taking recent candles.
            return backfill(t).pipe(
              reduce((acc: Candle[], c) => (acc.push(c), acc), []),
              map((cs) => {
                backfilled = true;
                return cs;
              }),
            );
          }
          return from(
            source.candles({ category: o.category, symbol: o.symbol, interval: o.interval, limit: '5' }),
          ).pipe(map((rows) => toCandles(rows, o.clock.now())));
        }),
      {
        periodMs: step,
        nextDelayMs: untilNextClose,
        scheduler: o.scheduler,
        clock: o.clock,
        onError: (e) => o.onError?.(e),
      },
    ).pipe(mergeMap((f) => from(f.value)));
  });
}
