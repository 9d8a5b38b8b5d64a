// Marble tests of the feed operators on a TestScheduler: virtual time drives the polls, the clock and
// the session timers, so nothing here sleeps.
import { Observable, from, map, of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  SuspensionSchema,
  type MarketCalendar,
  type Suspension,
  type Ticker,
  type WireCandle,
} from '../../../src/api/index.js';
import {
  FeedHub,
  closedCandles,
  poll,
  transitions,
  type MarketDataSource,
} from '../../../src/feeds/index.js';
import { US_CALENDAR } from '../../../src/market/sessions.js';
import { wireTicker } from '../../helpers/wire.js';

const M = 60_000;
const ts = () => new TestScheduler((a, b) => expect(a).toEqual(b));
const clockOf = (s: TestScheduler, offset = 0) => ({ now: () => offset + s.now() });
const wc = (t: number, close = 100): WireCandle => [String(t), '100', '101', '99', String(close), '1', '100'];

const ticker = (last: string): Ticker => wireTicker({ lastPrice: last });

/** A fake venue; its candles answers carry `clock`'s time as their requestTime (as a venue's envelope does). */
function fakeSource(over: Partial<MarketDataSource>, clock?: { now(): number }): MarketDataSource {
  const none = () => throwError(() => new Error('not scripted'));
  const src = { candles: none, historyCandles: none, ...over } as MarketDataSource;
  return {
    timed: (name: 'candles' | 'historyCandles', p: never) =>
      from(src[name](p)).pipe(map((data) => ({ data, requestTime: clock?.now() ?? 0 }))),
    tickers: none,
    candles: none,
    historyCandles: none,
    orderbook: none,
    instruments: none,
    suspensionResumptionInfo: none,
    marketStates: none,
    marketCalendar: none,
    ...over,
  } as MarketDataSource;
}

describe('poll', () => {
  it('emits each successful poll, keeps going after failures, and marks stale data', () => {
    const s = ts();
    s.run(({ expectObservable }) => {
      let n = 0;
      const answers = ['a', 'err', 'err', 'err', 'b'];
      const out = poll(
        () => {
          const a = answers[n++] ?? 'c';
          return a === 'err' ? throwError(() => new Error('503')) : of(a);
        },
        { periodMs: 10, staleAfterMs: 25, backoffMs: 10, maxBackoffMs: 10, scheduler: s, clock: clockOf(s) },
      );
      // t=0 'a'; failures at 10, 20, 30; at t=30 the value is 30 ms old (>25) -> stale 'a'; 'b' at 40.
      expectObservable(out, '^ 60ms !').toBe('a 29ms s 9ms b 9ms c 9ms c', {
        a: { value: 'a', at: 0, stale: false },
        s: { value: 'a', at: 0, stale: true },
        b: { value: 'b', at: 40, stale: false },
        c: expect.objectContaining({ value: 'c', stale: false }) as unknown as { value: string },
      });
    });
  });
});

describe('FeedHub shared polling', () => {
  it('serves two subscribers from one poll', () => {
    const s = ts();
    s.run(({ flush }) => {
      let polls = 0;
      const hub = new FeedHub({
        source: fakeSource({ tickers: () => (polls++, of([ticker('1.5')])) }),
        scheduler: s,
        clock: clockOf(s),
        cadences: { tickersMs: 100 },
      });
      const a: string[] = [];
      const b: string[] = [];
      const sa = hub.tickers$('SPOT', 'AAPLUSDT').subscribe((f) => a.push(f.value.lastPrice));
      const sb = hub.tickers$('SPOT', 'AAPLUSDT').subscribe((f) => b.push(f.value.lastPrice));
      s.schedule(() => {
        sa.unsubscribe();
        sb.unsubscribe();
      }, 450);
      flush();
      expect(polls).toBe(5); // t = 0, 100, 200, 300, 400 — not 10
      expect(a).toEqual(['1.5', '1.5', '1.5', '1.5', '1.5']);
      expect(b).toEqual(a);
    });
  });
});

describe('FeedHub tickers of many symbols', () => {
  it('polls the symbol alone while it is the only one, then the whole category once a second joins', () => {
    const s = ts();
    s.run(({ flush }) => {
      const asked: (string | undefined)[] = [];
      const all = [
        wireTicker({ symbol: 'AAPLUSDT', lastPrice: '1' }),
        wireTicker({ symbol: 'TSLAUSDT', lastPrice: '2' }),
      ];
      const hub = new FeedHub({
        source: fakeSource({
          tickers: (p: { symbol?: string }) => (
            asked.push(p.symbol),
            of(p.symbol === undefined ? all : all.filter((t) => t.symbol === p.symbol))
          ),
        } as Partial<MarketDataSource>),
        scheduler: s,
        clock: clockOf(s),
        cadences: { tickersMs: 100 },
      });
      const aapl: string[] = [];
      const tsla: string[] = [];
      const errors: unknown[] = [];
      const sa = hub
        .tickers$('SPOT', 'AAPLUSDT')
        .subscribe({ next: (f) => aapl.push(f.value.lastPrice), error: (e) => errors.push(e) });
      let sb: { unsubscribe(): void } | undefined;
      s.schedule(() => {
        sb = hub
          .tickers$('SPOT', 'TSLAUSDT')
          .subscribe({ next: (f) => tsla.push(f.value.lastPrice), error: (e) => errors.push(e) });
      }, 150);
      s.schedule(() => sb?.unsubscribe(), 350);
      s.schedule(() => sa.unsubscribe(), 450);
      flush();
      // One request a period whatever the symbols: AAPL alone at 0 and 100, both at 200 and 300, AAPL alone again at 400.
      expect(asked).toEqual(['AAPLUSDT', 'AAPLUSDT', undefined, undefined, 'AAPLUSDT']);
      expect(aapl).toEqual(['1', '1', '1', '1', '1']);
      // TSLA joined after the poll at 100 (of AAPL alone, which said nothing of it): its first ticker is at 200.
      expect(tsla).toEqual(['2', '2']);
      expect(errors).toEqual([]);
    });
  });

  it('errs the stream of a symbol the venue has no ticker for', () => {
    const s = ts();
    s.run(({ flush }) => {
      const hub = new FeedHub({
        source: fakeSource({ tickers: () => of([wireTicker({ symbol: 'AAPLUSDT' })]) }),
        scheduler: s,
        clock: clockOf(s),
        cadences: { tickersMs: 100 },
      });
      const errors: string[] = [];
      const sa = hub.tickers$('SPOT', 'AAPLUSDT').subscribe({ error: (e: Error) => errors.push(e.message) });
      const sx = hub.tickers$('SPOT', 'NOPEUSDT').subscribe({ error: (e: Error) => errors.push(e.message) });
      s.schedule(() => (sa.unsubscribe(), sx.unsubscribe()), 50);
      flush();
      expect(errors).toEqual(['no ticker for NOPEUSDT']);
    });
  });
});

describe('closed candles', () => {
  const T0 = Date.UTC(2026, 10, 23, 15, 0); // a minute boundary

  it('emits each closed candle once and never the forming one', () => {
    const s = ts();
    s.run(({ flush }) => {
      const clock = clockOf(s, T0 + 30_000);
      // The venue answers the last candles, the newest still forming, overlapping from poll to poll.
      const recent = () => {
        const now = clock.now();
        const forming = Math.floor(now / M) * M;
        return of([wc(forming - 2 * M), wc(forming - M), wc(forming)].reverse());
      };
      const src = fakeSource({ candles: recent, historyCandles: () => of([wc(T0 - M)]) }, clock);
      const seen: number[] = [];
      const sub = closedCandles(src, {
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        interval: '1m',
        since: T0 - 2 * M,
        scheduler: s,
        clock,
        settleMs: 1000,
      }).subscribe((c) => seen.push((c.openTime - T0) / M));
      s.schedule(() => sub.unsubscribe(), 4 * M);
      flush();
      // Backfill gives T0-1m; then T0, T0+1m, T0+2m, T0+3m close one by one, each once.
      expect(seen).toEqual([-1, 0, 1, 2, 3]);
    });
  });

  it('backfills a gap from history-candles in windows of 100 before new candles flow', () => {
    const s = ts();
    s.run(({ flush }) => {
      const clock = clockOf(s, T0 + 10_000);
      const windows: [number, number][] = [];
      const history = (p: { startTime?: string | undefined; endTime?: string | undefined }) => {
        const st = Number(p.startTime);
        const en = Number(p.endTime);
        windows.push([st, en]);
        const rows: WireCandle[] = [];
        for (let t = st - M; t <= en; t += M) rows.push(wc(t)); // rule 4.1.1: one extra before
        return of(rows);
      };
      const src = fakeSource({ historyCandles: history, candles: () => of([]) }, clock);
      const seen: number[] = [];
      const sub = closedCandles(src, {
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        interval: '1m',
        since: T0 - 251 * M,
        scheduler: s,
        clock,
      }).subscribe((c) => seen.push(c.openTime));
      s.schedule(() => sub.unsubscribe(), 1000);
      flush();
      expect(windows).toHaveLength(3);
      for (const [a, b] of windows) expect((b - a) / M + 1).toBeLessThanOrEqual(100);
      expect(seen).toHaveLength(250);
      expect(seen[0]).toBe(T0 - 250 * M);
      expect(seen.at(-1)).toBe(T0 - M);
      expect(new Set(seen).size).toBe(250);
    });
  });

  it('keeps the stream alive through a failed poll and backfills what it missed', () => {
    const s = ts();
    s.run(({ flush }) => {
      const clock = clockOf(s, T0 + 5_000);
      let down = false;
      const src = fakeSource(
        {
          candles: () =>
            down ? throwError(() => new Error('ECONNRESET')) : of([wc(Math.floor(clock.now() / M) * M - M)]),
          historyCandles: (p: { startTime?: string | undefined; endTime?: string | undefined }) => {
            const rows: WireCandle[] = [];
            for (let t = Number(p.startTime); t <= Number(p.endTime); t += M) rows.push(wc(t));
            return of(rows);
          },
        },
        clock,
      );
      const seen: number[] = [];
      const errors: unknown[] = [];
      const sub = closedCandles(src, {
        category: 'SPOT',
        symbol: 'X',
        interval: '1m',
        since: T0 - M,
        scheduler: s,
        clock,
        onError: (e) => errors.push(e),
      }).subscribe((c) => seen.push((c.openTime - T0) / M));
      s.schedule(() => (down = true), 1.5 * M);
      s.schedule(() => (down = false), 4.2 * M);
      s.schedule(() => sub.unsubscribe(), 6 * M);
      flush();
      expect(errors.length).toBeGreaterThan(0);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    });
  });
});

describe('session transitions', () => {
  it('walks through a DST change weekend: closed until Sunday 20:00 EDT, then overnight, pre-market at 04:00 EDT', () => {
    const s = ts();
    s.run(({ flush }) => {
      const start = Date.parse('2026-03-07T12:00:00Z'); // Saturday
      const clock = clockOf(s, start);
      const seen: string[] = [];
      const sub = transitions(US_CALENDAR, s, clock).subscribe((x) =>
        seen.push(`${new Date(clock.now()).toISOString().slice(5, 16)} ${x.session} ${x.daylightType}`),
      );
      s.schedule(() => sub.unsubscribe(), Date.parse('2026-03-09T15:00:00Z') - start);
      flush();
      expect(seen).toEqual([
        '03-07T12:00 closed standard',
        '03-08T12:00 closed dst',
        '03-09T00:00 overnight dst',
        '03-09T08:00 pre_market dst',
        '03-09T13:30 regular dst',
      ]);
    });
  });

  it('skips a holiday from the calendar endpoint', () => {
    const s = ts();
    s.run(({ flush }) => {
      const start = Date.parse('2026-11-25T20:00:00Z'); // Wed 15:00 ET before Thanksgiving
      const clock = clockOf(s, start);
      const cal: MarketCalendar = {
        timeZone: 'EST',
        specificConfig: [
          { remark: 'Thanksgiving Day', startTime: '2026-11-26 00:00', endTime: '2026-11-26 23:59' },
        ],
        regularConfig: ['SATURDAY', 'SUNDAY'],
      };
      const hub = new FeedHub({ source: fakeSource({ marketCalendar: () => of(cal) }), scheduler: s, clock });
      const seen: string[] = [];
      const sub = hub
        .session$()
        .subscribe((x) =>
          seen.push(
            `${new Date(clock.now()).toISOString().slice(5, 16)} ${x.session}${x.closure ? ` (${x.closure})` : ''}`,
          ),
        );
      s.schedule(() => sub.unsubscribe(), Date.parse('2026-11-27T15:00:00Z') - start);
      flush();
      expect(seen).toEqual([
        '11-25T20:00 regular',
        '11-25T21:00 after_hours',
        '11-26T01:00 closed', // no overnight session into a holiday; closed until Thursday 20:00 ET
        '11-27T01:00 overnight',
        '11-27T09:00 pre_market',
        '11-27T14:30 regular',
      ]);
    });
  });
});

describe('staleness through the hub', () => {
  it('marks a ticker stale when polls keep failing, and fresh again when they recover', () => {
    const s = ts();
    s.run(({ flush }) => {
      let fail = false;
      const hub = new FeedHub({
        source: fakeSource({
          tickers: () =>
            fail ? new Observable<Ticker[]>((o) => o.error(new Error('x'))) : of([ticker('2')]),
        }),
        scheduler: s,
        clock: clockOf(s),
        cadences: { tickersMs: 1000 },
        staleAfterMs: 3000,
      });
      const seen: boolean[] = [];
      const sub = hub.tickers$('SPOT', 'AAPLUSDT').subscribe((f) => seen.push(f.stale));
      s.schedule(() => (fail = true), 1500);
      s.schedule(() => (fail = false), 7000);
      s.schedule(() => sub.unsubscribe(), 9500);
      flush();
      expect(seen.slice(0, 2)).toEqual([false, false]);
      expect(seen).toContain(true);
      expect(seen.at(-1)).toBe(false);
    });
  });
});

const notSuspended: Suspension = SuspensionSchema.parse(
  Object.fromEntries(SuspensionSchema.keyof().options.map((k) => [k, ''])),
);

describe('FeedHub polls of many symbols', () => {
  it('spreads the first polls of one feed over its period instead of firing them at one instant', () => {
    const s = ts();
    s.run(({ flush }) => {
      const at: number[] = [];
      const hub = new FeedHub({
        source: fakeSource({
          suspensionResumptionInfo: () => {
            at.push(s.now());
            return of(notSuspended);
          },
        }),
        scheduler: s,
        clock: clockOf(s),
        cadences: { suspensionMs: 60_000 },
      });
      const subs = ['AAPL', 'TSLA', 'NVDA', 'MSFT', 'AMZN'].map((c) => hub.suspension$(c).subscribe());
      s.schedule(() => subs.forEach((x) => x.unsubscribe()), 59_999);
      flush();
      const sorted = [...at].sort((a, b) => a - b);
      expect(sorted).toHaveLength(5);
      expect(sorted[0]).toBe(0);
      // Five codes, one period: no two first polls closer than a tenth of it.
      for (let i = 1; i < sorted.length; i++)
        expect((sorted[i] as number) - (sorted[i - 1] as number)).toBeGreaterThanOrEqual(6_000);
    });
  });
});
