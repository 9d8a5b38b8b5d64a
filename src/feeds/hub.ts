// The FeedHub: one shared poll per piece of data, whatever the number of subscribers (strategies, the
// risk gate, the status line). Streams are cold until subscribed and stop polling after the last
// subscriber leaves.
import {
  Observable,
  asyncScheduler,
  distinctUntilChanged,
  from,
  map,
  pairwise,
  share,
  shareReplay,
  type SchedulerLike,
} from 'rxjs';
import type { CandleInterval, DeliveryStatus, OrderBook, Suspension, Ticker } from '../api/index.js';
import type { Candle } from '../market/candle.js';
import { parseInstrument, type InstrumentRules } from '../market/instrument-rules.js';
import { etToUtc, type SessionState } from '../market/sessions.js';
import { liveClock, type Clock } from './clock.js';
import { closedCandles, warmUpBackfill } from './closed-candles.js';
import { withInformative } from './informative.js';
import { poll, type Fresh } from './poll.js';
import { sessionStream } from './session.js';
import type { MarketDataSource } from './source.js';

/** Poll cadences in ms; defaults keep a few bots well inside the rate limits of spec section 8. */
export interface FeedCadences {
  readonly tickersMs: number;
  readonly orderbookMs: number;
  readonly instrumentsMs: number;
  readonly suspensionMs: number;
  readonly calendarMs: number;
}

export const DEFAULT_CADENCES: FeedCadences = {
  tickersMs: 2_000,
  orderbookMs: 2_000,
  instrumentsMs: 60_000,
  suspensionMs: 60_000,
  calendarMs: 6 * 3_600_000,
};

export interface FeedHubOptions {
  readonly source: MarketDataSource;
  readonly clock?: Clock | undefined;
  readonly scheduler?: SchedulerLike | undefined;
  readonly cadences?: Partial<FeedCadences> | undefined;
  /** Data older than this is marked stale (default 15 s). */
  readonly staleAfterMs?: number | undefined;
  /** Every failed poll, for logs and metrics; a failure never ends a stream. */
  readonly onError?: ((feed: string, err: unknown) => void) | undefined;
  readonly onPoll?: ((feed: string) => void) | undefined;
}

export interface StatusChange {
  readonly symbol: string;
  readonly from: InstrumentRules['status'];
  readonly to: InstrumentRules['status'];
}

type SpotOrFutures = 'SPOT' | 'USDT-FUTURES' | 'COIN-FUTURES' | 'USDC-FUTURES';

export class FeedHub {
  private readonly cache = new Map<string, Observable<unknown>>();
  readonly clock: Clock;
  readonly scheduler: SchedulerLike;
  private readonly cadences: FeedCadences;
  private readonly staleAfterMs: number;

  constructor(private readonly o: FeedHubOptions) {
    this.clock = o.clock ?? liveClock;
    this.scheduler = o.scheduler ?? asyncScheduler;
    this.cadences = { ...DEFAULT_CADENCES, ...o.cadences };
    this.staleAfterMs = o.staleAfterMs ?? 15_000;
  }

  /** `replay`: how many of the last values a late subscriber hears at once (0: none). */
  private shared<T>(key: string, make: () => Observable<T>, replay = 1): Observable<T> {
    let s = this.cache.get(key) as Observable<T> | undefined;
    if (!s) {
      s = make().pipe(replay > 0 ? shareReplay({ bufferSize: replay, refCount: true }) : share());
      this.cache.set(key, s);
    }
    return s;
  }

  private readonly started = new Map<string, number>();

  private polled<T>(feed: string, periodMs: number, fetch: () => Observable<T>): Observable<Fresh<T>> {
    // The n-th poll of a feed (one per symbol or code) starts at frac(n * golden ratio) of the period:
    // polls of many symbols spread evenly over the period instead of queueing at one instant on a
    // shared rate budget (the reality group allows one request per second for all codes together).
    const n = this.started.get(feed) ?? 0;
    this.started.set(feed, n + 1);
    const initialDelayMs = Math.floor(((n * 0.6180339887498949) % 1) * periodMs);
    return poll(fetch, {
      periodMs,
      initialDelayMs,
      staleAfterMs: this.staleAfterMs,
      scheduler: this.scheduler,
      clock: this.clock,
      onError: (e) => this.o.onError?.(feed, e),
      onPoll: () => this.o.onPoll?.(feed),
    });
  }

  /**
   * The ticker of a symbol, fresh or marked stale. The symbols watched in a category share one poll: of the
   * symbol alone while it is the only one, of the whole category (one answer) once there are more, so 50
   * symbols cost one request a period, not 50 (whose 25 a second would pass the venue's 20, spec 8).
   */
  tickers$(category: SpotOrFutures, symbol: string): Observable<Fresh<Ticker>> {
    return this.shared(
      `tickers:${category}:${symbol}`,
      () =>
        new Observable<Fresh<Ticker>>((sub) => {
          const watched = this.watchedTickers(category);
          watched.set(symbol, (watched.get(symbol) ?? 0) + 1);
          const inner = this.categoryTickers$(category).subscribe({
            next: (f) => {
              const t = f.value.bySymbol.get(symbol);
              // An answer asked for another symbol alone (before this one was watched) says nothing of it.
              if (t !== undefined) sub.next({ ...f, value: t });
              else if (f.value.asked === undefined || f.value.asked === symbol)
                sub.error(new Error(`no ticker for ${symbol}`));
            },
            error: (e) => sub.error(e),
            complete: () => sub.complete(),
          });
          return () => {
            inner.unsubscribe();
            const n = (watched.get(symbol) ?? 1) - 1;
            if (n > 0) watched.set(symbol, n);
            else watched.delete(symbol);
          };
        }),
    );
  }

  /** Subscriber counts of the symbols whose tickers are watched, by category. */
  private readonly tickerWatch = new Map<SpotOrFutures, Map<string, number>>();

  private watchedTickers(category: SpotOrFutures): Map<string, number> {
    let w = this.tickerWatch.get(category);
    if (w === undefined) this.tickerWatch.set(category, (w = new Map()));
    return w;
  }

  /**
   * The one tickers poll of a category (see `tickers$`): each answer indexed by symbol once, for every watched
   * symbol to take its own (50 symbols each searching a 500-ticker answer was 25,000 comparisons a poll), with
   * the symbol it was asked for, if one.
   */
  private categoryTickers$(
    category: SpotOrFutures,
  ): Observable<
    Fresh<{ readonly bySymbol: ReadonlyMap<string, Ticker>; readonly asked: string | undefined }>
  > {
    return this.shared(
      `tickers:${category}`,
      () =>
        this.polled('tickers', this.cadences.tickersMs, () => {
          const watched = this.watchedTickers(category);
          const asked = watched.size === 1 ? [...watched.keys()][0] : undefined;
          const answer = this.o.source.tickers(
            asked === undefined ? { category } : { category, symbol: asked },
          );
          return from(answer).pipe(map((tickers) => ({ bySymbol: bySymbol(tickers), asked })));
        }),
      0,
    );
  }

  orderbook$(category: SpotOrFutures, symbol: string, limit = 5): Observable<Fresh<OrderBook>> {
    return this.shared(`book:${category}:${symbol}:${limit}`, () =>
      this.polled('orderbook', this.cadences.orderbookMs, () =>
        from(this.o.source.orderbook({ category, symbol, limit: String(limit) })),
      ),
    );
  }

  /** Instrument rules of a category, by symbol. */
  instruments$(
    category: InstrumentRules['category'],
  ): Observable<Fresh<ReadonlyMap<string, InstrumentRules>>> {
    return this.shared(`instruments:${category}`, () =>
      this.polled('instruments', this.cadences.instrumentsMs, () =>
        from(this.o.source.instruments({ category })),
      ).pipe(
        map((f) => ({
          ...f,
          value: new Map(f.value.map((i) => [i.symbol, parseInstrument(i)] as const)) as ReadonlyMap<
            string,
            InstrumentRules
          >,
        })),
      ),
    );
  }

  /** Each change of an instrument's status. */
  instrumentStatusChanges$(category: InstrumentRules['category']): Observable<StatusChange> {
    return new Observable<StatusChange>((sub) =>
      this.instruments$(category)
        .pipe(pairwise())
        .subscribe(([a, b]) => {
          for (const [symbol, r] of b.value) {
            const before = a.value.get(symbol);
            if (before && before.status !== r.status) sub.next({ symbol, from: before.status, to: r.status });
          }
        }),
    );
  }

  /** Delivery status of a delivery contract, from its ticker. */
  deliveryStatus$(
    category: Exclude<SpotOrFutures, 'SPOT'>,
    symbol: string,
  ): Observable<DeliveryStatus | undefined> {
    return this.tickers$(category, symbol).pipe(
      map((f) => f.value.deliveryStatus as DeliveryStatus | undefined),
      distinctUntilChanged(),
    );
  }

  /**
   * Whether a Reality code is suspended now. Our reading of suspension-resumption-info: suspended when a
   * suspensionDate is given and no resumptionDate, or the resumption date/time is still ahead.
   */
  suspension$(code: string): Observable<Fresh<{ suspended: boolean; info: Suspension }>> {
    return this.shared(`suspension:${code}`, () =>
      this.polled('suspension', this.cadences.suspensionMs, () =>
        from(this.o.source.suspensionResumptionInfo({ code })),
      ).pipe(
        map((f) => ({ ...f, value: { suspended: isSuspended(f.value, this.clock.now()), info: f.value } })),
      ),
    );
  }

  /** The US market session, emitted at every transition. */
  session$(): Observable<SessionState> {
    return this.shared('session', () =>
      sessionStream(this.o.source, {
        scheduler: this.scheduler,
        clock: this.clock,
        calendarRefreshMs: this.cadences.calendarMs,
        onError: (e) => this.o.onError?.('calendar', e),
      }),
    );
  }

  /**
   * Closed candles, each once, backfilled after a gap and for a warm-up of `warmUp.candles` candles of
   * `interval` and of each `warmUp.informative` interval (see `closedCandles`). A subscriber that joins the
   * stream after its backfill (a second bot of the symbol, started after the first) hears the last candles of
   * that warm-up's length at once: without them it warmed up on live candles, 200 candles of its interval
   * for an SMA 200 (a 200-bot start on 50 symbols took 8 s more at speed 60, bench/scale.ts). A warm-up
   * longer than MAX_REPLAYED_CANDLES is not kept: a late subscriber warms up on live candles.
   */
  closedCandles$(
    category: SpotOrFutures,
    symbol: string,
    interval: CandleInterval,
    since?: number,
    warmUp: { readonly candles: number; readonly informative?: readonly CandleInterval[] } = { candles: 0 },
  ): Observable<Candle> {
    const informative = warmUp.informative ?? [];
    return this.shared(
      `candles:${category}:${symbol}:${interval}:${since ?? ''}:${warmUp.candles}:${informative.join(',')}`,
      () =>
        closedCandles(this.o.source, {
          category,
          symbol,
          interval,
          since,
          warmUpCandles: warmUp.candles,
          informative,
          scheduler: this.scheduler,
          clock: this.clock,
          onError: (e) => this.o.onError?.('candles', e),
        }),
      replayedCandles(interval, informative, warmUp.candles),
    );
  }

  /**
   * Closed candles of `base`, with the candles of each `informative` interval resampled from them (never
   * polled on their own): a higher candle comes once it has closed, just before the base candle that
   * closes it. One shared poll of the base candles feeds both; its backfill covers a warm-up of
   * `warmUpCandles` candles of the base and of each informative interval.
   */
  closedCandlesWithInformative$(
    category: SpotOrFutures,
    symbol: string,
    base: CandleInterval,
    informative: readonly CandleInterval[],
    since?: number,
    warmUpCandles = 0,
  ): Observable<Candle> {
    return this.closedCandles$(category, symbol, base, since, { candles: warmUpCandles, informative }).pipe(
      withInformative(symbol, base, informative),
    );
  }
}

/**
 * The most candles a symbol's shared candle stream keeps for a late subscriber's warm-up: 5,000 candles of
 * about 100 bytes, half a megabyte a symbol (an SMA 200 of 1m with a 1h informative interval takes 12,059).
 */
export const MAX_REPLAYED_CANDLES = 5_000;

/** How many candles a candle stream keeps for a late subscriber (see `FeedHub.closedCandles$`). */
function replayedCandles(
  base: CandleInterval,
  informative: readonly CandleInterval[],
  warmUp: number,
): number {
  if (warmUp <= 0) return 0;
  const n = warmUpBackfill(base, informative, warmUp).candles;
  return n <= MAX_REPLAYED_CANDLES ? n : 0;
}

/** The tickers of an answer by symbol; a symbol said twice is its first ticker. */
function bySymbol(tickers: readonly Ticker[]): ReadonlyMap<string, Ticker> {
  const m = new Map<string, Ticker>();
  for (const t of tickers) if (!m.has(t.symbol)) m.set(t.symbol, t);
  return m;
}

/** Suspension reading documented on `FeedHub.suspension$`. */
export function isSuspended(s: Suspension, now: number): boolean {
  if (s.suspensionDate.trim() === '') return false;
  if (s.resumptionDate.trim() === '') return true;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s.resumptionDate.trim())) return true;
  const [hh, mm] = (s.resumptionTradingTime || '00:00').split(':').map(Number);
  // Dates and times of US companies are Eastern Time.
  const resumes = etToUtc(s.resumptionDate.trim(), hh ?? 0, mm ?? 0);
  return Number.isNaN(resumes) ? true : now < resumes;
}
