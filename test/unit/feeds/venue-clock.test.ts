// The daemon's clock on a venue's accelerated time is re-estimated from every answer: the answer with the least
// round trip anchors it, an answer that says it is off re-anchors it at once (said once, with the size), and it
// is synced again when an answer agrees. Wall-clock time is a VirtualClock here: nothing sleeps.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/feeds/clock.js';
import {
  VenueClock,
  type VenueClockJump,
  type VenueClockResync,
  type VenueTimeSample,
} from '../../../src/feeds/venue-clock.js';

const SPEED = 60;
const V0 = Date.UTC(2026, 10, 23, 15);
const R0 = 1_000_000;

/** A venue whose clock runs at `speed` from V0 at R0, with `setSpeed` as POST /sim/clock/speed. */
function venue(real: VirtualClock) {
  let anchorV = V0;
  let anchorR = R0;
  let speed = SPEED;
  const now = () => Math.floor(anchorV + (real.now() - anchorR) * speed);
  return {
    now,
    setSpeed(s: number) {
      anchorV = now();
      anchorR = real.now();
      speed = s;
    },
    /** One request: sent now, stamped `upMs` later, answered `downMs` after that (real ms). */
    ask(upMs: number, downMs: number): VenueTimeSample {
      const sentRealMs = real.now();
      real.advance(upMs);
      const requestTime = now();
      real.advance(downMs);
      return { requestTime, sentRealMs, receivedRealMs: real.now() };
    },
  };
}

function setUp() {
  const real = new VirtualClock(R0);
  const v = venue(real);
  const jumps: VenueClockJump[] = [];
  const resyncs: VenueClockResync[] = [];
  const clock = VenueClock.fromSample(v.ask(200, 200), SPEED, {
    real,
    onJump: (j) => jumps.push(j),
    onResync: (r) => resyncs.push(r),
  });
  return { real, v, clock, jumps, resyncs };
}

describe('VenueClock', () => {
  it('starts within its first answer’s round trip and tightens on quicker answers, with no jump said', () => {
    const { real, v, clock, jumps } = setUp();
    // A first answer of 400 real ms: the clock may be off by 12 venue seconds.
    expect(Math.abs(clock.now() - v.now())).toBeLessThanOrEqual(200 * SPEED + SPEED);
    let read = clock.now();
    for (let k = 0; k < 20; k++) {
      real.advance(30);
      clock.observe(v.ask(1, 1));
      // A refinement never runs the clock backwards.
      expect(clock.now()).toBeGreaterThanOrEqual(read);
      read = clock.now();
    }
    expect(Math.abs(clock.now() - v.now())).toBeLessThanOrEqual(2 * SPEED);
    expect(clock.uncertaintyMs()).toBeLessThan(3 * SPEED);
    expect(jumps).toEqual([]);
    expect(clock.settled()).toBeUndefined();
  });

  it('after the venue’s clock stood still 36 s: stays with it, holds decisions, re-syncs once with the size', () => {
    const { real, v, clock, jumps, resyncs } = setUp();
    const poll = (realMs: number) => {
      for (let t = 0; t < realMs; t += 33) {
        real.advance(30);
        clock.observe(v.ask(1, 1));
        // Two answers a millisecond apart agree with anything: they do not end the run of jumps.
        clock.observe(v.ask(0, 1));
        // Never more than one answer's gap (30 real ms) ahead of the venue.
        expect(clock.now() - v.now()).toBeLessThanOrEqual(35 * SPEED);
      }
    };
    poll(2_000);
    v.setSpeed(0.0001);
    poll(36_000);
    // The first jump was said once; decisions wait.
    expect(jumps).toHaveLength(1);
    expect(clock.settled()).toBeInstanceOf(Promise);
    v.setSpeed(SPEED);
    poll(2_000);
    expect(resyncs).toHaveLength(1);
    // It lost the time the venue stood still (some 35 venue minutes), in steps.
    expect(resyncs[0]?.jumpMs).toBeLessThan(-30 * 60_000);
    expect(Math.abs(clock.now() - v.now())).toBeLessThanOrEqual(3 * SPEED);
    expect(clock.settled()).toBeUndefined();
  });

  it('steps back at once to a venue whose clock was set 35 minutes back, and says it', () => {
    const { real, v, clock, jumps, resyncs } = setUp();
    real.advance(100);
    clock.observe(v.ask(1, 1));
    // The venue restarted on an earlier time.
    const before = clock.now();
    v.setSpeed(SPEED);
    const back = { ...v.ask(1, 1) };
    clock.observe({ ...back, requestTime: back.requestTime - 35 * 60_000 });
    expect(clock.now()).toBeLessThan(before - 34 * 60_000);
    expect(jumps[0]?.jumpMs).toBeLessThan(-34 * 60_000);
    expect(resyncs).toEqual([]);
  });

  it('is confirmed synced by slower answers than the one it jumped on, once late enough to have seen a stop', () => {
    const { real, v, clock, resyncs } = setUp();
    real.advance(100);
    clock.observe(v.ask(0, 0)); // a 1 ms answer: the tightest anchor there is
    v.setSpeed(0.0001);
    real.advance(1_000);
    clock.observe(v.ask(0, 0));
    expect(clock.settled()).toBeInstanceOf(Promise);
    v.setSpeed(SPEED);
    // Every later answer takes 20 real ms (1.2 venue s each way): decisions do not wait for a 1 ms one.
    for (let k = 0; k < 5 && resyncs.length === 0; k++) {
      real.advance(100);
      clock.observe(v.ask(10, 10));
    }
    expect(resyncs).toHaveLength(1);
    expect(clock.settled()).toBeUndefined();
  });
});
