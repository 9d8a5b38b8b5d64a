// Cron on a Clock: node-cron runs its tasks on the wall clock, but the daemon's venue may run on
// simulated time (the embedded simulator at 60x). Here node-cron only reads the expression (its parser
// and its own `match`, so every syntax it accepts means the same); the next fire time is found on the
// venue's clock in the expression's time zone, and a timer sleeps the real time until then.
import cron from 'node-cron';
import type { Clock } from './clock.js';
import { zonedParts } from '../market/zoned-time.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** A year and a day of hours: an expression that matches nothing in that span (30 February) never fires. */
const MAX_HOURS = 366 * 24 + 24;
/** The longest real sleep before the venue's time is read again (a remote venue clock drifts; an admin skips). */
const MAX_SLEEP_MS = 30_000;

interface Fields {
  readonly second: ReadonlySet<number>;
  readonly minute: ReadonlySet<number>;
  readonly hour: ReadonlySet<number>;
  readonly month: ReadonlySet<number>;
  /** Undefined when a field holds a special value (L, 1#2): node-cron's `match` decides the day alone. */
  readonly dayOfMonth: ReadonlySet<number> | undefined;
  readonly dayOfWeek: ReadonlySet<number> | undefined;
}

const numbers = (xs: readonly (number | string)[]): ReadonlySet<number> | undefined =>
  xs.every((x) => typeof x === 'number') ? new Set(xs as number[]) : undefined;

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** A cron expression in a time zone: which instants it matches, and the next one after a time. */
export class CronExpression {
  private readonly fields: Fields;
  private readonly matcher: { match(d: Date): boolean };

  constructor(
    readonly expression: string,
    readonly timeZone: string,
  ) {
    const p = cron.parse(expression);
    this.fields = {
      second: new Set(p.second),
      minute: new Set(p.minute),
      hour: new Set(p.hour),
      month: new Set(p.month),
      dayOfMonth: numbers(p.dayOfMonth),
      dayOfWeek: numbers(p.dayOfWeek),
    };
    // createTask does not start the task: it is used only for its `match` (time zone and special days).
    this.matcher = cron.createTask(expression, () => undefined, { timezone: timeZone });
  }

  private local(t: number) {
    const out = zonedParts(t, this.timeZone);
    return {
      month: Number(out.month),
      day: Number(out.day),
      weekday: WEEKDAYS[out.weekday ?? ''] ?? -1,
      hour: Number(out.hour),
      minute: Number(out.minute),
      second: Number(out.second),
    };
  }

  /** Whether the day may match: either day field (cron reads them with OR), confirmed by `match` later. */
  private dayMayMatch(l: { day: number; weekday: number }): boolean {
    const { dayOfMonth, dayOfWeek } = this.fields;
    if (dayOfMonth === undefined || dayOfWeek === undefined) return true;
    return dayOfMonth.has(l.day) || dayOfWeek.has(l.weekday) || (l.weekday === 0 && dayOfWeek.has(7));
  }

  /** The first whole second strictly after `after` that the expression matches, or undefined within a year. */
  next(after: number): number | undefined {
    const f = this.fields;
    let t = Math.floor(after / SECOND) * SECOND + SECOND;
    const end = t + MAX_HOURS * HOUR;
    while (t < end) {
      const l = this.local(t);
      const toNextHour = HOUR - l.minute * MINUTE - l.second * SECOND;
      if (!f.month.has(l.month) || !this.dayMayMatch(l) || !f.hour.has(l.hour)) {
        t += toNextHour;
        continue;
      }
      if (!f.minute.has(l.minute)) {
        t += MINUTE - l.second * SECOND;
        continue;
      }
      const s = [...f.second].filter((x) => x >= l.second).sort((a, b) => a - b)[0];
      if (s === undefined) {
        t += MINUTE - l.second * SECOND;
        continue;
      }
      t += (s - l.second) * SECOND;
      if (this.matcher.match(new Date(t))) return t;
      t += SECOND;
    }
    return undefined;
  }
}

export interface ClockCronOptions {
  readonly expression: string;
  readonly timeZone: string;
  /** The venue's clock: the schedule fires when it reads the expression's time. */
  readonly clock: Clock;
  /** How much faster than real time `clock` runs (1 for a live venue). */
  readonly speed: number;
  /** The task, given the scheduled time (on `clock`); a rejection goes to `onError`. */
  readonly run: (scheduledAt: number) => void | Promise<void>;
  readonly onError?: ((err: unknown) => void) | undefined;
}

/** A cron schedule on a clock; `stop()` ends it. */
export interface ClockCron {
  /** The next time it fires, on the clock (undefined: never, or stopped). */
  nextRun(): number | undefined;
  stop(): void;
}

/**
 * Runs a task at every time a cron expression names, read on `clock` in `timeZone`. A time the clock
 * jumped over (an admin skip, a suspended laptop) runs the task once, late, then the schedule goes on
 * from the clock's present.
 */
export function scheduleOnClock(o: ClockCronOptions): ClockCron {
  const expr = new CronExpression(o.expression, o.timeZone);
  let next = expr.next(o.clock.now());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const arm = (): void => {
    if (stopped || next === undefined) return;
    const wait = Math.min(MAX_SLEEP_MS, Math.max(0, (next - o.clock.now()) / o.speed));
    timer = setTimeout(wake, Math.ceil(wait));
    timer.unref();
  };
  const wake = (): void => {
    if (stopped || next === undefined) return;
    const now = o.clock.now();
    if (now >= next) {
      const at = next;
      next = expr.next(Math.max(now, at));
      try {
        Promise.resolve(o.run(at)).catch((e: unknown) => o.onError?.(e));
      } catch (e) {
        o.onError?.(e);
      }
    }
    arm();
  };
  arm();
  return {
    nextRun: () => (stopped ? undefined : next),
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
