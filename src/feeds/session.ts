// The market session stream: the US session (pre_market, regular, after_hours, overnight) or closed,
// from the calendar endpoint and Eastern Time (DST from the tz database), emitted at each transition.
import { Observable, distinctUntilChanged, from, switchMap, type SchedulerLike } from 'rxjs';
import type { MarketCalendar } from '../api/index.js';
import {
  US_CALENDAR,
  nextDate,
  usSessionAt,
  type MarketCalendarData,
  type SessionState,
} from '../market/sessions.js';
import type { Clock } from './clock.js';
import { poll } from './poll.js';
import type { MarketDataSource } from './source.js';

const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** A calendar from the calendar endpoint: each specific closure covers the ET dates it spans. */
export function calendarFromWire(c: MarketCalendar): MarketCalendarData {
  const closures = new Map<string, string>();
  for (const s of c.specificConfig) {
    const start = s.startTime.slice(0, 10);
    const end = s.endTime.slice(0, 10);
    // Full-day closures only: a closure covering the whole day (00:00 to 23:59 or beyond).
    for (let d = start; d <= end; d = nextDate(d)) {
      const fullStart = d > start || s.startTime.slice(11) === '00:00';
      const fullEnd = d < end || s.endTime.slice(11) >= '23:59';
      if (fullStart && fullEnd) closures.set(d, s.remark);
    }
  }
  const weekly = new Set(c.regularConfig.map((w) => w.toUpperCase()).filter((w) => WEEKDAYS.includes(w)));
  return { closures, weekly };
}

/** Emits the session now and at every transition; the calendar is refreshed every `calendarRefreshMs`. */
export function sessionStream(
  source: MarketDataSource,
  o: {
    scheduler: SchedulerLike;
    clock: Clock;
    calendarRefreshMs?: number | undefined;
    onError?: ((e: unknown) => void) | undefined;
  },
): Observable<SessionState> {
  const calendars = poll(() => from(source.marketCalendar()), {
    periodMs: o.calendarRefreshMs ?? 6 * 3_600_000,
    scheduler: o.scheduler,
    clock: o.clock,
    onError: o.onError,
  });
  return calendars.pipe(
    distinctUntilChanged((a, b) => JSON.stringify(a.value) === JSON.stringify(b.value)),
    switchMap((f) => transitions(calendarFromWire(f.value), o.scheduler, o.clock)),
    distinctUntilChanged((a, b) => a.session === b.session && a.nextChange === b.nextChange),
  );
}

/** The session at each transition of a calendar, on a scheduler. */
export function transitions(
  cal: MarketCalendarData = US_CALENDAR,
  scheduler: SchedulerLike,
  clock: Clock,
): Observable<SessionState> {
  return new Observable<SessionState>((sub) => {
    let timer = scheduler.schedule(function step() {
      const s = usSessionAt(clock.now(), cal);
      sub.next(s);
      const wait = Math.max(1, s.nextChange - clock.now());
      // Timers longer than ~24 days overflow; wake up earlier and re-check.
      timer = scheduler.schedule(step, Math.min(wait, 86_400_000));
    }, 0);
    return () => timer.unsubscribe();
  });
}
