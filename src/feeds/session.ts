// The market session stream: the US session (pre_market, regular, after_hours, overnight) or closed,
// from the calendar endpoint and Eastern Time (DST from the tz database), emitted at each transition.
import { Observable, distinctUntilChanged, from, switchMap, type SchedulerLike } from 'rxjs';
import type { MarketCalendar } from '../api/index.js';
import {
  US_CALENDAR,
  calendarFromClosures,
  usSessionAt,
  type MarketCalendarData,
  type SessionState,
} from '../market/sessions.js';
import type { Clock } from './clock.js';
import { poll } from './poll.js';
import type { MarketDataSource } from './source.js';

/** A calendar from the calendar endpoint (spec 2.17): holidays, early closes and weekly closures. */
export const calendarFromWire = (c: MarketCalendar): MarketCalendarData =>
  calendarFromClosures(c.specificConfig, c.regularConfig);

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
