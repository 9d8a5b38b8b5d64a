// The guard that keeps the suite date-proof: with TRADEBOT_REQUIRE_PINNED_START=1 (vitest.config.ts sets it for
// every test and the processes they spawn), a simulator on the wall clock refuses to start and says how to pin it.
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { REQUIRE_PINNED_START, SimEngine } from '../../../src/sim/index.js';
import { runCli } from '../../helpers/cli.js';

describe('a simulator in the test suite must be pinned', () => {
  const before = process.env[REQUIRE_PINNED_START];
  afterEach(() => {
    if (before === undefined) delete process.env[REQUIRE_PINNED_START];
    else process.env[REQUIRE_PINNED_START] = before;
  });

  it('is required by the suite itself', () => {
    expect(before).toBe('1');
  });

  it('refuses a simulator on the wall clock, naming the ways to pin it', () => {
    expect(() => new SimEngine({ seed: 1 })).toThrow(
      /started on the wall clock: pin it with a startTime \(startSimulator\(\{ startTime: Date\.UTC\(2026, 10, 23, 15\) \}\), venue\.startTime in YAML, --start-time on the command line\) or an injected VirtualClock/,
    );
  });

  it('accepts a start time or an injected clock', () => {
    expect(new SimEngine({ seed: 1, startTime: Date.UTC(2026, 10, 23, 15) }).now()).toBeGreaterThanOrEqual(
      Date.UTC(2026, 10, 23, 15),
    );
    expect(new SimEngine({ seed: 1, clock: new VirtualClock(Date.UTC(2026, 10, 28, 16)) }).now()).toBe(
      Date.UTC(2026, 10, 28, 16),
    );
  });

  it('outside the suite (the variable unset), the simulator starts on the wall clock as users expect', () => {
    delete process.env[REQUIRE_PINNED_START];
    expect(() => new SimEngine({ seed: 1 })).not.toThrow();
  });

  it('reaches a simulator started by a spawned command: `tradebot sim` without --start-time is refused', async () => {
    const r = await runCli(['sim', '--port', '0'], {}, 20_000);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /TRADEBOT_REQUIRE_PINNED_START=1 and the simulator was started on the wall clock/,
    );
  });
});
