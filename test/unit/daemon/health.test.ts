// /readyz: ready only while every bot runs, not all of them are halted, and the venue answered a poll within
// the last minute.
import { describe, expect, it } from 'vitest';
import { readiness, VENUE_REACHABLE_MS } from '../../../src/daemon/health.js';
import { botStatus as bot } from '../../helpers/bot-status.js';
import { degradedHealth } from '../../helpers/feed-health.js';

const now = Date.UTC(2026, 10, 23, 15);
const polled = now - 5_000;

describe('readiness', () => {
  it('is ready while every bot runs and the venue answered a poll within the minute', () => {
    const r = readiness([bot('a'), bot('b')], polled, now);
    expect(r).toEqual({ ready: true, detail: { bots: [bot('a'), bot('b')], venueReachable: true } });
  });

  it('is not ready while a bot is not built yet or restarts, or has stopped running', () => {
    expect(readiness([bot('a'), undefined], polled, now).ready).toBe(false);
    expect(readiness([bot('a'), bot('b', { running: false })], polled, now).ready).toBe(false);
  });

  it('is not ready when every bot is halted; one halted bot among others is still ready', () => {
    const halted = { tradingState: 'HALTED' };
    expect(readiness([bot('a', halted), bot('b', halted)], polled, now).ready).toBe(false);
    expect(readiness([bot('a', halted), bot('b')], polled, now).ready).toBe(true);
  });

  it('is not ready while a bot is DEGRADED (a starving feed), and says which bot and why', () => {
    const starving = degradedHealth('no new candle for 3m (limit 2m): the strategy decides on nothing new');
    const r = readiness([bot('a'), bot('b', { health: starving })], polled, now);
    expect(r.ready).toBe(false);
    expect(r.detail.degraded).toEqual([
      'b: no new candle for 3m (limit 2m): the strategy decides on nothing new',
    ]);
    expect(readiness([bot('a'), bot('b')], polled, now).detail).not.toHaveProperty('degraded');
  });

  it('is not ready, and says the venue is unreachable, a minute after the last answered poll', () => {
    expect(readiness([bot('a')], now - VENUE_REACHABLE_MS + 1, now)).toMatchObject({
      ready: true,
      detail: { venueReachable: true },
    });
    expect(readiness([bot('a')], now - VENUE_REACHABLE_MS, now)).toMatchObject({
      ready: false,
      detail: { venueReachable: false },
    });
    expect(readiness([bot('a')], 0, now).ready).toBe(false);
  });

  it('names a bot whose newest drift check found unexplained differences in its detail, readiness unchanged', () => {
    const r = readiness([bot('a'), bot('b')], polled, now, { a: { unexplained: 0 }, b: { unexplained: 2 } });
    expect(r.ready).toBe(true);
    expect(r.detail).toMatchObject({
      drift: { a: { unexplained: 0 }, b: { unexplained: 2 } },
      driftAlarm: ['b: 2 unexplained drift differences (tradebot drift --report)'],
    });
  });
});
