// Closed candles: each candle is emitted once, when it has closed, in order. The strategy's warm-up and a
// gap (after a restart or an outage) are backfilled from history-candles, in windows within the venue's
// limits (planCandleWindows: 99 candles and 90 days at most), before new ones.
import type { Observable } from 'rxjs';
import { concatMap, defer, from, map, mergeMap, of, reduce, type SchedulerLike } from 'rxjs';
import {
  ENDPOINTS,
  HISTORY_CANDLES_PER_REQUEST,
  INTERVAL_MS,
  planCandleWindows,
  type CandleInterval,
  type WireCandle,
} from '../api/index.js';
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
  /**
   * The warm-up: candles of `interval` and of each `informative` interval (resampled from this stream)
   * that must have closed before the first live candle. The backfill starts early enough for it, and
   * before `since` if that is later (a restarted strategy warms up again). Default 0.
   */
  readonly warmUpCandles?: number | undefined;
  /** Informative intervals the warm-up counts too (see `warmUpStart`). */
  readonly informative?: readonly CandleInterval[] | undefined;
  /** Delay after the interval boundary before polling, so the venue has closed the candle (default 1500 ms). */
  readonly settleMs?: number | undefined;
  readonly scheduler: SchedulerLike;
  readonly clock: Clock;
  readonly onError?: ((err: unknown) => void) | undefined;
}

/**
 * The open time of the first `base` candle a stream started at `now` must backfill so that `candles` candles
 * of `base` and of each informative interval (epoch-aligned buckets of base candles, src/market/resample.ts)
 * have closed by then.
 */
export function warmUpStart(
  now: number,
  base: CandleInterval,
  informative: readonly CandleInterval[],
  candles: number,
): number {
  const step = INTERVAL_MS[base];
  let start = Math.floor(now / step) * step - Math.max(0, candles) * step;
  if (candles > 0)
    for (const i of informative) {
      const span = INTERVAL_MS[i];
      start = Math.min(start, Math.floor(now / span) * span - candles * span);
    }
  return start;
}

/**
 * What the warm-up backfill of one symbol can cost, at the worst alignment of `now` (just before a boundary
 * of the longest informative interval): base candles, history-candles requests (planCandleWindows) and
 * how far back it reaches.
 */
export function warmUpBackfill(
  base: CandleInterval,
  informative: readonly CandleInterval[],
  candles: number,
): { readonly candles: number; readonly requests: number; readonly spanMs: number } {
  const step = INTERVAL_MS[base];
  let n = Math.max(0, candles);
  if (candles > 0)
    for (const i of informative) {
      const r = INTERVAL_MS[i] / step;
      n = Math.max(n, candles * r + r - 1);
    }
  const requests = n === 0 ? 0 : planCandleWindows(0, (n - 1) * step, base).length;
  return { candles: n, requests, spanMs: n * step };
}

/**
 * The most history-candles requests a bot's start may spend on its warm-up, all symbols together: one
 * minute of the venue's limit for the endpoint (20 a second, spec 8), 1,200 windows of up to 99 candles.
 */
export const MAX_WARM_UP_REQUESTS = ENDPOINTS.historyCandles.rateLimit.perSecond * 60;

/**
 * Why a bot's warm-up cannot be backfilled at its start, or undefined when it can: more history-candles
 * requests than MAX_WARM_UP_REQUESTS, or history from before 1970 (the venue's times are Unix milliseconds).
 */
export function warmUpBackfillProblem(o: {
  readonly candles: number;
  readonly interval: CandleInterval;
  readonly informative: readonly CandleInterval[];
  readonly symbols: number;
  readonly now: number;
}): string | undefined {
  const b = warmUpBackfill(o.interval, o.informative, o.candles);
  const requests = b.requests * o.symbols;
  const what = `a warm-up of ${fmt(o.candles)} candles of ${[o.interval, ...o.informative].join(', ')} takes a backfill of ${fmt(b.candles)} ${o.interval} candles per symbol`;
  if (requests > MAX_WARM_UP_REQUESTS)
    return `${what}: ${fmt(requests)} history-candles requests${o.symbols > 1 ? ` for ${o.symbols} symbols` : ''}, more than the ${fmt(MAX_WARM_UP_REQUESTS)} a bot's start may take (one minute of the venue's ${ENDPOINTS.historyCandles.rateLimit.perSecond} a second, ${HISTORY_CANDLES_PER_REQUEST - 1} candles each); declare a smaller startupCandles, use a longer interval${o.informative.length > 0 ? ' or a shorter informative one' : ''}${o.symbols > 1 ? ', or split the symbols over bots' : ''}`;
  if (o.now - b.spanMs < 0)
    return `${what}: history from before 1970, which no venue serves; declare a smaller startupCandles`;
  return undefined;
}

const fmt = (n: number): string => n.toLocaleString('en-US');

/**
 * Closed candles of one symbol and interval. A row is closed only when the answer that carried it was made
 * after its close (the envelope's requestTime, the venue's time): never by this process's clock, which may
 * run ahead of the venue's or read a late answer, and neither endpoint is trusted to answer closed candles
 * only. One candles read per boundary while nothing is missing; history-candles only for a real gap (the
 * first backfill, or a candles answer that does not reach back to the last candle seen), its range ending
 * before the forming candle of the venue's time.
 */
export function closedCandles(source: MarketDataSource, o: ClosedCandleOptions): Observable<Candle> {
  const step = INTERVAL_MS[o.interval];
  const settle = o.settleMs ?? 1500;
  return defer(() => {
    // After a restart (a mark, `since`) the warm-up ends at the last candle decided, so every candle after it
    // is decided as live, in order; a first start warms up on the candles before now.
    const warmTo = o.since === undefined ? o.clock.now() : o.since + step;
    const warmFrom = warmUpStart(warmTo, o.interval, o.informative ?? [], o.warmUpCandles ?? 0);
    const reader = new CandleReader(source, o, Math.min(o.since ?? Infinity, warmFrom - step));
    // Polls run shortly after each boundary of the clock, which follows the venue's (a candle the venue had
    // not closed yet is read at the next one).
    const untilNextClose = () => {
      const t = o.clock.now();
      return (Math.floor((t - settle) / step) + 1) * step + settle - t;
    };
    return poll(() => defer(() => reader.read()), {
      periodMs: step,
      nextDelayMs: untilNextClose,
      scheduler: o.scheduler,
      clock: o.clock,
      onError: (e) => o.onError?.(e),
    }).pipe(mergeMap((f) => from(f.value)));
  });
}

/** What one closed-candle stream has read: the candles of each poll, in order, each once. */
class CandleReader {
  private readonly step: number;
  private readonly settle: number;
  private backfilled = false;

  constructor(
    private readonly source: MarketDataSource,
    private readonly o: ClosedCandleOptions,
    /** Open time of the last candle handed out, or up to which the venue is known to have nothing more. */
    private last: number,
  ) {
    this.step = INTERVAL_MS[o.interval];
    this.settle = o.settleMs ?? 1500;
  }

  /** One poll: the first backfills everything since `last` up to the forming candle; later ones read candles. */
  read(): Observable<Candle[]> {
    const { o, step } = this;
    if (!this.backfilled) {
      const lastClosed = Math.floor(o.clock.now() / step) * step - step;
      return this.history(this.last + step, lastClosed).pipe(
        map((cs) => {
          this.backfilled = true;
          return cs;
        }),
      );
    }
    const params = { category: o.category, symbol: o.symbol, interval: o.interval, limit: '5' };
    return from(this.source.timed('candles', params)).pipe(
      concatMap((a) => {
        const cs = this.closedOf(a.data, a.requestTime);
        const oldest = Math.min(...a.data.map((w) => Number(w[0])));
        // The answer reaches back to the last candle seen (or holds nothing new): nothing is missing. Else
        // the candles between are a gap, read from history before the new ones.
        if (cs.length === 0 || oldest <= this.last) return of(this.take(cs));
        return this.history(this.last + step, oldest - step).pipe(map((gap) => [...gap, ...this.take(cs)]));
      }),
    );
  }

  /** The rows of one answer that closed by its requestTime and are new, in order. */
  private closedOf(rows: readonly WireCandle[], requestTime: number): Candle[] {
    const out: Candle[] = [];
    let seen = this.last;
    for (const w of [...rows].sort((a, b) => Number(a[0]) - Number(b[0]))) {
      const t = Number(w[0]);
      if (t <= seen || t + this.step > requestTime) continue; // seen already, or still forming
      out.push(candleFromWire(w, this.o.symbol, this.o.interval));
      seen = t;
    }
    return out;
  }

  /** The candles after `last`, which then moves to the newest. */
  private take(cs: readonly Candle[]): Candle[] {
    const out = cs.filter((c) => c.openTime > this.last);
    const end = out.at(-1);
    if (end !== undefined) this.last = end.openTime;
    return out;
  }

  /** history-candles from `first` to `lastOpen` (open times), each window's rows closed by its own answer. */
  private history(first: number, lastOpen: number): Observable<Candle[]> {
    const { o, step } = this;
    if (lastOpen < first) return of([]);
    return from(planCandleWindows(first, lastOpen, o.interval)).pipe(
      concatMap((w) =>
        from(
          this.source.timed('historyCandles', {
            category: o.category,
            symbol: o.symbol,
            interval: o.interval,
            startTime: String(w.startTime),
            endTime: String(w.endTime),
            limit: String(HISTORY_CANDLES_PER_REQUEST),
          }),
        ).pipe(
          map((a) => {
            const cs = this.take(this.closedOf(a.data, a.requestTime));
            // The venue answered all it had closed in the window: a hole in it (a closed market) is not asked
            // again. A candle is given `settle` after its close to appear.
            const known = Math.min(w.endTime, Math.floor((a.requestTime - this.settle) / step) * step - step);
            this.last = Math.max(this.last, Math.floor(known / step) * step);
            return cs;
          }),
        ),
      ),
      reduce((acc: Candle[], cs) => acc.concat(cs), []),
    );
  }
}
