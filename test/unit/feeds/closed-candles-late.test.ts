// Closed candles against a venue whose answers come late: each answer is made at its request (its
// requestTime, the venue's time) and handed over up to 90 venue seconds later, and the polls themselves run
// up to a step late. A row is closed only by its answer's requestTime, so no forming candle is ever taken,
// and every closed candle comes once and in order; history-candles is asked only for a real gap.
import { timer, map, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { WireCandle } from '../../../src/api/index.js';
import { closedCandles, type MarketDataSource } from '../../../src/feeds/index.js';

const M = 60_000;
const T0 = Date.UTC(2026, 10, 23, 15, 0);

/** A deterministic pseudo-random sequence in [0, 1). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x / 2 ** 31);
}

/** A candle as the venue answers it at `now`: the forming one has the part of its volume traded so far. */
function candleAt(t: number, now: number): WireCandle {
  const done = Math.min(1, (now - t) / M);
  return [String(t), '100', '101', '99', '100', String(60 * done), '6000'];
}

/** A venue at `venueNow` whose answers arrive `delay()` (on `s`) after they were made; `down` answers nothing. */
function lateVenue(
  s: TestScheduler,
  venueNow: () => number,
  delay: () => number,
  o: { down?: (t: number) => boolean } = {},
): { source: MarketDataSource; requests: { candles: number; history: number } } {
  const requests = { candles: 0, history: 0 };
  const answer = (rows: (now: number) => WireCandle[]) => {
    const now = venueNow();
    if (o.down?.(now) === true) throw new Error('ECONNREFUSED');
    const data = rows(now);
    return timer(delay(), s).pipe(map(() => ({ data, requestTime: now })));
  };
  const source = {
    timed: (name: 'candles' | 'historyCandles', p: { startTime?: string; endTime?: string }) => {
      if (name === 'candles') {
        requests.candles++;
        return answer((now) => {
          const forming = Math.floor(now / M) * M;
          return [0, 1, 2, 3, 4].map((k) => candleAt(forming - k * M, now));
        });
      }
      requests.history++;
      return answer((now) => {
        const rows: WireCandle[] = [];
        // The venue answers the forming minute too when the range reaches it.
        for (let t = Number(p.startTime); t <= Number(p.endTime) && t <= now; t += M)
          rows.push(candleAt(t, now));
        return rows;
      });
    },
  } as unknown as MarketDataSource;
  return { source, requests };
}

/** `s` with every scheduled action run up to `lateness()` later than asked: a busy process. */
function lateScheduler(s: TestScheduler, lateness: () => number): SchedulerLike {
  return {
    now: () => s.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T) {
      return s.schedule(work, delay + lateness(), state);
    },
  };
}

describe('closed candles from late answers', () => {
  it('takes no forming candle and every closed one once, in order, with answers up to 90 s late and polls up to a step late', () => {
    const s = new TestScheduler((a, b) => expect(a).toEqual(b));
    const random = lcg(7);
    const seen: WireCandle[] = [];
    let venue: ReturnType<typeof lateVenue> | undefined;
    s.run(({ flush }) => {
      const clock = { now: () => T0 + s.now() };
      venue = lateVenue(s, clock.now, () => Math.floor(random() * 90_000));
      const sub = closedCandles(venue.source, {
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        interval: '1m',
        since: T0 - M,
        scheduler: lateScheduler(s, () => Math.floor(random() * M)),
        clock,
        settleMs: 1000,
      }).subscribe((c) => seen.push([String(c.openTime), '', '', '', '', c.volume.toString(), '']));
      s.schedule(() => sub.unsubscribe(), 180 * M);
      flush();
    });
    const opens = seen.map((w) => (Number(w[0]) - T0) / M);
    // Every candle from the mark on, each once and in order: 0, 1, 2, ... up to one that closed near the end.
    expect(opens.length).toBeGreaterThan(170);
    expect(opens).toEqual(opens.map((_, k) => k));
    // None forming: each has the whole minute's volume.
    expect(seen.filter((w) => w[5] !== '60')).toEqual([]);
    // Nothing was missing after the start: no history-candles request at all.
    expect(venue?.requests.history).toBe(0);
  });

  it('reads a real gap (the venue down for 10 minutes) from history-candles once, then candles again', () => {
    const s = new TestScheduler((a, b) => expect(a).toEqual(b));
    const random = lcg(11);
    const opens: number[] = [];
    let venue: ReturnType<typeof lateVenue> | undefined;
    s.run(({ flush }) => {
      const clock = { now: () => T0 + s.now() };
      venue = lateVenue(s, clock.now, () => Math.floor(random() * 5_000), {
        down: (t) => t >= T0 + 20 * M && t < T0 + 30 * M,
      });
      const sub = closedCandles(venue.source, {
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        interval: '1m',
        since: T0 - M,
        scheduler: s,
        clock,
      }).subscribe((c) => opens.push((c.openTime - T0) / M));
      s.schedule(() => sub.unsubscribe(), 60 * M);
      flush();
    });
    expect(opens).toEqual(opens.map((_, k) => k));
    expect(opens.length).toBeGreaterThanOrEqual(58);
    expect(venue?.requests.history).toBe(1);
  });
});
