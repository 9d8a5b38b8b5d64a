// A request within its budget leaves the limiter at once (tryAcquire, no promise), and only then: a request
// past the spacing, behind a queued one, or inside the window of the request `limit` places back is left to
// acquire, which queues it. The spacing and the window are the same either way.
import { describe, expect, it } from 'vitest';
import { VenueLimiter, realSleep } from '../../../src/client/venue-limiter.js';
import { VirtualClock } from '../../../src/feeds/clock.js';

const NOW = 1_767_225_600_000;

describe('VenueLimiter.tryAcquire', () => {
  it('lets a request within the budget through at once, and none closer than the spacing', () => {
    const clock = new VirtualClock(NOW);
    const l = new VenueLimiter(clock, realSleep);
    const spacing = l.spacingMs(20);
    const done = l.tryAcquire('tickers');
    expect(done).toBeTypeOf('function');
    expect(l.inFlight).toBe(1);
    // The next one of the same budget waits out the spacing, answered or not.
    done?.();
    expect(l.tryAcquire('tickers')).toBeUndefined();
    clock.set(NOW + spacing - 1);
    expect(l.tryAcquire('tickers')).toBeUndefined();
    // Another endpoint is another budget.
    expect(l.tryAcquire('candles')).toBeTypeOf('function');
    clock.set(NOW + spacing);
    expect(l.tryAcquire('tickers')).toBeTypeOf('function');
    expect(l.released).toBe(3);
  });

  it('never passes a request queued by acquire, nor one inside the window of the request limit places back', async () => {
    const clock = new VirtualClock(NOW);
    const l = new VenueLimiter(clock, (ms) => {
      clock.set(clock.now() + ms);
      return Promise.resolve();
    });
    // Orders: 5 a second per UID; the fifth request back is still in flight, so the sixth may not leave.
    const account = { apiKey: 'k' };
    const dones = [];
    for (let i = 0; i < 5; i++) {
      dones.push(l.tryAcquire('placeRealityOrder', account));
      clock.set(clock.now() + l.spacingMs(5));
    }
    expect(dones.every((d) => typeof d === 'function')).toBe(true);
    expect(l.tryAcquire('placeRealityOrder', account)).toBeUndefined();
    // All five answered now: the window after the answer of the fifth back still holds the sixth.
    for (const d of dones) d?.();
    const answeredAt = clock.now();
    expect(l.tryAcquire('placeRealityOrder', account)).toBeUndefined();
    // A queued request goes first (nothing passes it), at the window's end; then the budget is free again.
    const queued = l.acquire('placeRealityOrder', account);
    expect(l.tryAcquire('placeRealityOrder', account)).toBeUndefined();
    (await queued)();
    expect(clock.now()).toBeGreaterThanOrEqual(answeredAt + 1000);
    clock.set(clock.now() + l.spacingMs(5));
    expect(l.tryAcquire('placeRealityOrder', account)).toBeTypeOf('function');
  });
});
