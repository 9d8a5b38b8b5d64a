// Simulated time for a whole process: when the venue is the embedded simulator running `speed` times
// faster than real time, the clock, the RxJS scheduler and sleeps of the daemon all run on the
// simulator's time, so a poll cadence of 60 s means 60 simulated seconds.
import { Subscription, asyncScheduler, type SchedulerAction, type SchedulerLike } from 'rxjs';
import type { Clock } from './clock.js';

/** An RxJS scheduler whose delays are in `clock` time, running `speed` times faster than real time. */
export class ScaledScheduler implements SchedulerLike {
  constructor(
    private readonly clock: Clock,
    readonly speed: number,
  ) {
    if (!(speed > 0)) throw new RangeError(`speed must be positive, got ${speed}`);
  }

  now(): number {
    return this.clock.now();
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    const all = new Subscription();
    const run = (st: T | undefined, d: number): void => {
      const step: Subscription = asyncScheduler.schedule(
        () => {
          // A step that ran is done: kept in `all`, every reschedule of a recurring action (a feed's stale
          // watchdog, an interval) would stay referenced for as long as the daemon runs.
          all.remove(step);
          const action = new Subscription() as Subscription & { schedule(s?: T, d?: number): Subscription };
          action.schedule = (s2?: T, d2 = 0) => {
            run(s2, d2);
            return all;
          };
          work.call(action as unknown as SchedulerAction<T>, st);
        },
        Math.max(0, d / this.speed),
      );
      all.add(step);
    };
    run(state, delay);
    return all;
  }
}

/** The longest delay a Node timer takes: a longer one fires at once, with a TimeoutOverflowWarning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A sleep in `speed`-scaled time. `signal` ends it early (resolved: a wake-up; the caller reads the signal
 * to tell why). A delay beyond one timer's range is slept in parts, never handed to setTimeout whole.
 */
export const scaledSleep =
  (speed: number) =>
  (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      // NaN and negative delays are no wait.
      let left = ms > 0 ? ms / speed : 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const arm = (): void => {
        const part = Math.min(left, MAX_TIMER_MS);
        left -= part;
        timer = setTimeout(() => (left > 0 ? arm() : done()), part);
      };
      signal?.addEventListener('abort', done, { once: true });
      arm();
    });
