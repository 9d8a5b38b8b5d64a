// The live warm-up backfill: a closed-candle stream starts exactly where the strategy's warm-up needs it (its
// base interval and each informative one resampled from it), asks history-candles in windows within the
// venue's limits (spec 4.1: 100 candles and 90 days a query), and says when a bot's start cannot be served.
import { from, map, of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  HISTORY_CANDLES_MAX_RANGE_MS,
  INTERVAL_MS,
  type CandleInterval,
  type WireCandle,
} from '../../../src/api/index.js';
import {
  MAX_WARM_UP_REQUESTS,
  closedCandles,
  warmUpBackfill,
  warmUpBackfillProblem,
  warmUpStart,
  withInformative,
  type MarketDataSource,
} from '../../../src/feeds/index.js';
import type { Candle } from '../../../src/market/candle.js';

const M = 60_000;
const H = 60 * M;
const DAY = 24 * H;
const T0 = Date.UTC(2026, 10, 23, 15, 0); // an hour boundary
const wc = (t: number): WireCandle => [String(t), '100', '101', '99', '100', '1', '100'];

/** history-candles as the venue answers it (rule 4.1.1: one interval earlier when endTime is off a boundary). */
function history(
  interval: CandleInterval,
  asked: [number, number][] = [],
  clock: { now(): number } = { now: () => Infinity },
): MarketDataSource {
  const step = INTERVAL_MS[interval];
  const none = () => throwError(() => new Error('not scripted'));
  const src = {
    tickers: none,
    orderbook: none,
    instruments: none,
    suspensionResumptionInfo: none,
    marketStates: none,
    marketCalendar: none,
    candles: () => of([]),
    historyCandles: (p: { startTime?: string | undefined; endTime?: string | undefined }) => {
      const st = Number(p.startTime);
      const en = Number(p.endTime);
      asked.push([st, en]);
      const rows: WireCandle[] = [];
      for (let t = Math.ceil(st / step) * step - (en % step === 0 ? 0 : step); t <= en; t += step)
        rows.push(wc(t));
      return of(rows);
    },
  };
  const timed = (name: 'candles' | 'historyCandles', p: { startTime?: string; endTime?: string }) =>
    from(src[name](p)).pipe(map((data) => ({ data, requestTime: clock.now() })));
  return { ...src, timed } as unknown as MarketDataSource;
}

/** The candles a stream of `interval` (with `informative` resampled) hands out in its first poll at `now`. */
function firstPoll(
  now: number,
  interval: CandleInterval,
  o: { warmUpCandles?: number; informative?: CandleInterval[]; since?: number },
  asked: [number, number][] = [],
): Candle[] {
  const s = new TestScheduler((a, b) => expect(a).toEqual(b));
  const seen: Candle[] = [];
  s.run(({ flush }) => {
    const clock = { now: () => now + s.now() };
    const sub = closedCandles(history(interval, asked, clock), {
      category: 'SPOT',
      symbol: 'AAPLUSDT',
      interval,
      since: o.since,
      warmUpCandles: o.warmUpCandles,
      informative: o.informative,
      scheduler: s,
      clock,
    })
      .pipe(withInformative('AAPLUSDT', interval, o.informative ?? []))
      .subscribe((c) => seen.push(c));
    s.schedule(() => sub.unsubscribe(), 1000);
    flush();
  });
  return seen;
}

describe('the warm-up backfill of a closed-candle stream', () => {
  it('backfills exactly the warm-up: its last `n` closed candles, and nothing without one', () => {
    const seen = firstPoll(T0 + 10_000, '1m', { warmUpCandles: 50 });
    expect(seen).toHaveLength(50);
    expect(seen[0]?.openTime).toBe(T0 - 50 * M);
    expect(seen.at(-1)?.openTime).toBe(T0 - M);
    // A strategy without a warm-up gets no history (a fixed 200 candles before).
    expect(firstPoll(T0 + 10_000, '1m', {})).toEqual([]);
  });

  it('reaches back far enough for `n` closed candles of each informative interval', () => {
    // 5m bot with a 1H informative interval and a warm-up of 3, started at 15:37:10.
    const now = T0 + 37 * M + 10_000;
    expect(warmUpStart(now, '5m', ['1H'], 3)).toBe(T0 - 3 * H);
    const seen = firstPoll(now, '5m', { warmUpCandles: 3, informative: ['1H'] });
    const hours = seen.filter((c) => c.interval === '1H').map((c) => c.openTime);
    expect(hours).toEqual([T0 - 3 * H, T0 - 2 * H, T0 - H]);
    const base = seen.filter((c) => c.interval === '5m');
    expect(base[0]?.openTime).toBe(T0 - 3 * H);
    expect(base.at(-1)?.openTime).toBe(T0 + 30 * M);
    // The worst alignment (just before an hour ends) costs 3 x 12 + 11 five-minute candles.
    expect(warmUpBackfill('5m', ['1H'], 3)).toEqual({ candles: 47, requests: 1, spanMs: 47 * 5 * M });
    expect(base.length).toBeLessThanOrEqual(47);
  });

  it('after a restart, warms up on the candles up to the journal mark, then hands out every later one', () => {
    // The warm-up's 10 candles end at the mark (-2), so -1, closed while the daemon was down, is decided live.
    const seen = firstPoll(T0 + 10_000, '1m', { warmUpCandles: 10, since: T0 - 2 * M });
    expect(seen.map((c) => (c.openTime - T0) / M)).toEqual([-11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1]);
    // A gap longer than the warm-up: 3 candles up to the mark, then the 19 after it.
    expect(firstPoll(T0 + 10_000, '1m', { warmUpCandles: 3, since: T0 - 20 * M })).toHaveLength(22);
  });

  it('asks history-candles in windows of at most 100 candles and 90 days, also for daily candles', () => {
    const asked: [number, number][] = [];
    const seen = firstPoll(T0, '1D', { since: T0 - 201 * DAY - 15 * H }, asked);
    expect(seen).toHaveLength(200);
    expect(new Set(seen.map((c) => c.openTime)).size).toBe(200);
    expect(asked.length).toBeGreaterThan(1);
    for (const [st, en] of asked) {
      // A window of 100 daily candles spans 99 days: more than one query may ask (spec 4.1).
      expect(en - st).toBeLessThanOrEqual(HISTORY_CANDLES_MAX_RANGE_MS);
      expect(Math.floor(en / DAY) - Math.ceil(st / DAY) + 1).toBeLessThanOrEqual(99);
    }
  });
});

describe("whether a bot's start can serve its warm-up", () => {
  const at = { now: T0, symbols: 1 };

  it('can: a warm-up of 200 on 1m takes 3 requests a symbol', () => {
    expect(warmUpBackfill('1m', [], 200)).toEqual({ candles: 200, requests: 3, spanMs: 200 * M });
    expect(warmUpBackfillProblem({ ...at, candles: 200, interval: '1m', informative: [] })).toBeUndefined();
    expect(MAX_WARM_UP_REQUESTS).toBe(1200); // one minute of the venue's 20 history-candles requests a second
  });

  it('cannot: 200 daily candles of an informative interval from a 1m bot, with a sentence saying what to change', () => {
    expect(warmUpBackfillProblem({ ...at, candles: 200, interval: '1m', informative: ['1D'] })).toBe(
      "a warm-up of 200 candles of 1m, 1D takes a backfill of 289,439 1m candles per symbol: 2,924 history-candles requests, more than the 1,200 a bot's start may take (one minute of the venue's 20 a second, 99 candles each); declare a smaller startupCandles, use a longer interval or a shorter informative one",
    );
    // The same warm-up from a 15m bot is 19,295 candles: 195 requests.
    expect(
      warmUpBackfillProblem({ ...at, candles: 200, interval: '15m', informative: ['1D'] }),
    ).toBeUndefined();
  });

  it('counts every symbol of the bot, and refuses history from before 1970', () => {
    expect(
      warmUpBackfillProblem({ ...at, symbols: 30, candles: 5000, interval: '1m', informative: [] }),
    ).toMatch(/: 1,530 history-candles requests for 30 symbols, .*, or split the symbols over bots$/);
    expect(warmUpBackfillProblem({ ...at, candles: 30_000, interval: '1D', informative: [] })).toMatch(
      /history from before 1970, which no venue serves; declare a smaller startupCandles$/,
    );
  });
});
