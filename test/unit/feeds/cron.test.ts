// Cron on the venue's clock: the next fire time read in the expression's time zone (DST from the tz
// database), and a schedule that fires when an accelerated clock reads the time, not the wall clock.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/feeds/clock.js';
import { CronExpression, scheduleOnClock } from '../../../src/feeds/cron.js';
import { waitFor } from '../../helpers/wait-for.js';

const iso = (t: number | undefined) => (t === undefined ? 'never' : new Date(t).toISOString());

describe('CronExpression.next', () => {
  const close = new CronExpression('0 16 * * 1-5', 'America/New_York');

  it('finds 16:00 New York time: 21:00 UTC in winter, 20:00 UTC in summer', () => {
    expect(iso(close.next(Date.UTC(2026, 10, 23, 14, 25)))).toBe('2026-11-23T21:00:00.000Z');
    expect(iso(close.next(Date.UTC(2026, 6, 1, 12)))).toBe('2026-07-01T20:00:00.000Z');
  });

  it('skips the weekend and is strictly after the time given', () => {
    // Friday 2026-11-27 16:00 ET exactly: the next is Monday's.
    expect(iso(close.next(Date.UTC(2026, 10, 27, 21)))).toBe('2026-11-30T21:00:00.000Z');
  });

  it('crosses the spring DST change (8 March 2026) at the right hour', () => {
    const early = new CronExpression('30 1 * * *', 'America/New_York');
    // 01:30 EST on 8 March is 06:30 UTC; the next day's 01:30 is EDT, 05:30 UTC.
    expect(iso(early.next(Date.UTC(2026, 2, 8, 0)))).toBe('2026-03-08T06:30:00.000Z');
    expect(iso(early.next(Date.UTC(2026, 2, 8, 7)))).toBe('2026-03-09T05:30:00.000Z');
  });

  it('reads node-cron special days (last day of the month) and seconds', () => {
    const last = new CronExpression('0 0 12 L * *', 'UTC');
    expect(iso(last.next(Date.UTC(2026, 1, 3)))).toBe('2026-02-28T12:00:00.000Z');
    const every15s = new CronExpression('*/15 * * * * *', 'UTC');
    expect(iso(every15s.next(Date.UTC(2026, 0, 1, 0, 0, 16)))).toBe('2026-01-01T00:00:30.000Z');
  });
});

describe('scheduleOnClock', () => {
  it('fires when an accelerated clock reads 16:00 ET, venue seconds in real milliseconds', async () => {
    const speed = 60;
    const start = Date.UTC(2026, 10, 23, 20, 59, 58); // 15:59:58 ET: two venue seconds, 33 real ms, before
    const t0 = performance.now();
    const clock: Clock = { now: () => Math.floor(start + (performance.now() - t0) * speed) };
    const fired: { at: number; clockRead: number }[] = [];
    const job = scheduleOnClock({
      expression: '0 16 * * 1-5',
      timeZone: 'America/New_York',
      clock,
      speed,
      run: (at) => void fired.push({ at, clockRead: clock.now() }),
    });
    expect(iso(job.nextRun())).toBe('2026-11-23T21:00:00.000Z');
    await waitFor(() => fired.length > 0, { what: 'the 16:00 ET task', timeoutMs: 5000 });
    job.stop();
    const f = fired[0] as { at: number; clockRead: number };
    expect(iso(f.at)).toBe('2026-11-23T21:00:00.000Z');
    // Fired on the venue's 16:00, not before, and within a venue minute (a real second of timer latency).
    expect(f.clockRead).toBeGreaterThanOrEqual(f.at);
    expect(f.clockRead - f.at).toBeLessThan(60_000);
    expect(job.nextRun()).toBeUndefined();
  });

  it('a task that throws is reported and the schedule goes on', async () => {
    const speed = 3600;
    const start = Date.UTC(2026, 0, 5, 0, 0, 50);
    const t0 = performance.now();
    const clock: Clock = { now: () => Math.floor(start + (performance.now() - t0) * speed) };
    const errors: unknown[] = [];
    let runs = 0;
    const job = scheduleOnClock({
      expression: '* * * * *',
      timeZone: 'UTC',
      clock,
      speed,
      run: () => {
        runs++;
        throw new Error('boom');
      },
      onError: (e) => errors.push(e),
    });
    await waitFor(() => runs >= 2, { what: 'two runs', timeoutMs: 5000 });
    job.stop();
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });
});
