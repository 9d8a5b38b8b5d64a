// /readyz: ready only while every bot runs, not all of them are halted, and the venue answered a poll within
// the last minute.
import { describe, expect, it } from 'vitest';
import {
  MIN_VENUE_REACHABLE_MS,
  readiness,
  VENUE_REACHABLE_MS,
  venueReachableMs,
} from '../../../src/daemon/health.js';
import { botStatus as bot } from '../../helpers/bot-status.js';
import { degradedHealth } from '../../helpers/feed-health.js';

const now = Date.UTC(2026, 10, 23, 15);
const polled = now - 5_000;

describe('readiness', () => {
  it('is ready while every bot runs and the venue answered a poll within the minute', () => {
    const r = readiness({ bots: [bot('a'), bot('b')], lastPollOk: polled, now });
    expect(r).toEqual({ ready: true, detail: { bots: [bot('a'), bot('b')], venueReachable: true } });
  });

  it('is not ready while a bot is not built yet or restarts, or has stopped running', () => {
    expect(readiness({ bots: [bot('a'), undefined], lastPollOk: polled, now }).ready).toBe(false);
    expect(readiness({ bots: [bot('a'), bot('b', { running: false })], lastPollOk: polled, now }).ready).toBe(
      false,
    );
  });

  it('is not ready when every bot is halted; one halted bot among others is still ready', () => {
    const halted = { tradingState: 'HALTED' };
    expect(readiness({ bots: [bot('a', halted), bot('b', halted)], lastPollOk: polled, now }).ready).toBe(
      false,
    );
    expect(readiness({ bots: [bot('a', halted), bot('b')], lastPollOk: polled, now }).ready).toBe(true);
  });

  it('is not ready while a bot is DEGRADED (a starving feed), and says which bot and why', () => {
    const starving = degradedHealth('no new candle for 3m (limit 2m): the strategy decides on nothing new');
    const r = readiness({ bots: [bot('a'), bot('b', { health: starving })], lastPollOk: polled, now });
    expect(r.ready).toBe(false);
    expect(r.detail.degraded).toEqual([
      'b: no new candle for 3m (limit 2m): the strategy decides on nothing new',
    ]);
    expect(readiness({ bots: [bot('a'), bot('b')], lastPollOk: polled, now }).detail).not.toHaveProperty(
      'degraded',
    );
  });

  it('is not ready, and says the venue is unreachable, a minute after the last answered poll', () => {
    expect(readiness({ bots: [bot('a')], lastPollOk: now - VENUE_REACHABLE_MS + 1, now })).toMatchObject({
      ready: true,
      detail: { venueReachable: true },
    });
    expect(readiness({ bots: [bot('a')], lastPollOk: now - VENUE_REACHABLE_MS, now })).toMatchObject({
      ready: false,
      detail: { venueReachable: false },
    });
    expect(readiness({ bots: [bot('a')], lastPollOk: 0, now }).ready).toBe(false);
  });

  it('counts the venue unreachable after three of its fastest polls without an answer, and says for how long', () => {
    // Tickers every 5 s at real speed: 15 s of silence is an outage (30 s used to read venueReachable: true).
    const window = venueReachableMs(5_000, 1);
    expect(window).toBe(15_000);
    expect(readiness({ bots: [bot('a')], lastPollOk: now - 14_000, now, reachableMs: window })).toMatchObject(
      {
        ready: true,
        detail: { venueReachable: true },
      },
    );
    const silent = readiness({ bots: [bot('a')], lastPollOk: now - 30_000, now, reachableMs: window });
    expect(silent).toMatchObject({ ready: false, detail: { venueReachable: false, venueSilentMs: 30_000 } });
    // An accelerated venue polls faster in real time, but a poll's time-out must still fit.
    expect(venueReachableMs(5_000, 60)).toBe(MIN_VENUE_REACHABLE_MS);
    expect(venueReachableMs(60_000, 1)).toBe(VENUE_REACHABLE_MS);
  });

  it('names a bot whose newest drift check found unexplained differences in its detail, readiness unchanged', () => {
    const r = readiness({
      bots: [bot('a'), bot('b')],
      lastPollOk: polled,
      now,
      drift: { a: { unexplained: 0 }, b: { unexplained: 2 } },
    });
    expect(r.ready).toBe(true);
    expect(r.detail).toMatchObject({
      drift: { a: { unexplained: 0 }, b: { unexplained: 2 } },
      driftAlarm: ['b: 2 unexplained drift differences (tradebot drift --report)'],
    });
  });
});
