// The shared polling primitive: polls on a scheduler, retries a failed poll with backoff without ever
// ending the stream, and marks the last value stale when no poll succeeded for a while.
import {
  Observable,
  from,
  type ObservableInput,
  type SchedulerAction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { Clock } from './clock.js';

/** A polled value with when it was received and whether it is now too old to trade on. */
export interface Fresh<T> {
  readonly value: T;
  /** Clock time of the successful poll that produced it. */
  readonly at: number;
  readonly stale: boolean;
}

export interface PollOptions {
  readonly periodMs: number;
  /** Age after which the last value is re-emitted marked stale; undefined: never. */
  readonly staleAfterMs?: number | undefined;
  readonly scheduler: SchedulerLike;
  readonly clock: Clock;
  /** First retry delay after a failure; doubled per failure up to maxBackoffMs. */
  readonly backoffMs?: number | undefined;
  readonly maxBackoffMs?: number | undefined;
  readonly onError?: ((err: unknown, failures: number) => void) | undefined;
  readonly onPoll?: (() => void) | undefined;
  /** Delay of the first poll (default 0). */
  readonly initialDelayMs?: number | undefined;
  /** Delay before the next poll after a success (default periodMs), e.g. to align to candle boundaries. */
  readonly nextDelayMs?: (() => number) | undefined;
}

/**
 * Polls `fetch` every `periodMs`. Each success emits a fresh value; a failure is reported, retried
 * with backoff, and never errors the stream; when the last success is older than `staleAfterMs`,
 * the last value is emitted again marked stale (once), so consumers can stop trading on it.
 */
export function poll<T>(fetch: () => ObservableInput<T>, o: PollOptions): Observable<Fresh<T>> {
  return new Observable<Fresh<T>>((sub) => {
    let last: Fresh<T> | undefined;
    let failures = 0;
    let inner: Subscription | undefined;
    let closed = false;
    const timers: Subscription[] = [];
    const later = (ms: number, fn: () => void) => {
      timers.push(o.scheduler.schedule(fn, ms));
      if (timers.length > 8) timers.splice(0, timers.length - 8);
    };
    const checkStale = () => {
      if (o.staleAfterMs !== undefined && last && !last.stale && o.clock.now() - last.at > o.staleAfterMs) {
        last = { ...last, stale: true };
        sub.next(last);
      }
    };
    const tick = () => {
      if (closed) return;
      checkStale();
      o.onPoll?.();
      let done = false;
      inner = from(fetch()).subscribe({
        next: (value) => {
          if (done) return;
          done = true;
          failures = 0;
          last = { value, at: o.clock.now(), stale: false };
          sub.next(last);
          later(o.nextDelayMs?.() ?? o.periodMs, tick);
        },
        error: (err: unknown) => {
          failures++;
          o.onError?.(err, failures);
          checkStale();
          const base = o.backoffMs ?? Math.min(1000, o.periodMs);
          later(Math.min(o.maxBackoffMs ?? 30_000, base * 2 ** (failures - 1)), tick);
        },
        complete: () => {
          if (!done) {
            // An empty answer counts as a failure to get data, not as the end of the stream.
            failures++;
            later(o.backoffMs ?? o.periodMs, tick);
          }
        },
      });
    };
    later(o.initialDelayMs ?? 0, tick);
    // A stale watchdog, so a poll that hangs still marks the data stale.
    const staleAfter = o.staleAfterMs;
    const watchdog =
      staleAfter === undefined
        ? undefined
        : o.scheduler.schedule(function (this: SchedulerAction<undefined>) {
            checkStale();
            if (!closed) this.schedule(undefined, staleAfter);
          }, staleAfter);
    return () => {
      closed = true;
      inner?.unsubscribe();
      watchdog?.unsubscribe();
      for (const t of timers) t.unsubscribe();
    };
  });
}
