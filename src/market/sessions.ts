// US market sessions in Eastern Time (spec 3.3) and the exchange calendar. Eastern Time and its DST
// changes come from the tz database through Intl; no DST rule is written by hand here.
import type { SessionName } from '../api/index.js';
import { US_EASTERN, US_FULL_DAY_CLOSURES, US_WEEKLY_CLOSURES } from './us-calendar.js';

export type SessionOrClosed = SessionName | 'closed';

export interface SessionState {
  readonly session: SessionOrClosed;
  /** Unix ms of the next change of session (or of closed -> open). */
  readonly nextChange: number;
  readonly daylightType: 'standard' | 'dst';
  /** ET date (YYYY-MM-DD) the instant falls on. */
  readonly etDate: string;
  /** Calendar remark when closed by a holiday. */
  readonly closure?: string | undefined;
}

/** A calendar: full-day closures by ET date, and weekly closed weekdays (e.g. SATURDAY). */
export interface MarketCalendarData {
  readonly closures: ReadonlyMap<string, string>;
  readonly weekly: ReadonlySet<string>;
}

/** The built-in US calendar (2025 to 2027 holidays, weekends). */
export const US_CALENDAR: MarketCalendarData = {
  closures: new Map(US_FULL_DAY_CLOSURES.map((c) => [c.date, c.remark])),
  weekly: new Set(US_WEEKLY_CLOSURES),
};

const fmt = new Intl.DateTimeFormat('en-US', {
  timeZone: US_EASTERN,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export interface EtParts {
  readonly date: string;
  readonly weekday: string;
  /** Minutes since ET midnight. */
  readonly minuteOfDay: number;
  readonly second: number;
}

/** The offset from the tz database (Intl), for one instant. */
function intlOffsetMinutes(ms: number): number {
  const p: Record<string, string> = {};
  for (const part of fmt.formatToParts(new Date(ms))) p[part.type] = part.value;
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return Math.round((asUtc - (ms - (((ms % 1000) + 1000) % 1000))) / 60_000);
}

// Eastern Time changes its offset only on the hour (02:00 local, 06:00 or 07:00 UTC), so the offset is
// looked up in the tz database once per UTC hour and cached: formatToParts costs microseconds, and the
// backtester asks for sessions millions of times.
const offsetByHour = new Map<number, number>();

/** Offset of Eastern Time from UTC at an instant, in minutes (-300 in winter, -240 in summer). */
export function etOffsetMinutes(ms: number): number {
  const hour = Math.floor(ms / 3_600_000);
  let off = offsetByHour.get(hour);
  if (off === undefined) {
    off = intlOffsetMinutes(hour * 3_600_000);
    if (offsetByHour.size > 200_000) offsetByHour.clear();
    offsetByHour.set(hour, off);
  }
  return off;
}

const WEEKDAY_NAMES = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Wall-clock parts of an instant in Eastern Time. */
export function etParts(ms: number): EtParts {
  const local = new Date(ms + etOffsetMinutes(ms) * 60_000);
  return {
    date: `${local.getUTCFullYear()}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())}`,
    weekday: WEEKDAY_NAMES[local.getUTCDay()] as string,
    minuteOfDay: local.getUTCHours() * 60 + local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

/** Whether daylight saving time applies in Eastern Time at an instant. */
export const isEasternDst = (ms: number): boolean => etOffsetMinutes(ms) === -240;

/** The Unix ms of an ET wall-clock time on an ET date (resolves DST through Intl). */
export function etToUtc(date: string, hh: number, mm: number): number {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, mo - 1, d, hh, mm);
  // Two passes settle the offset even on a change day.
  let t = guess - etOffsetMinutes(guess) * 60_000;
  t = guess - etOffsetMinutes(t) * 60_000;
  return t;
}

const PRE = 4 * 60;
const REGULAR = 9 * 60 + 30;
const AFTER = 16 * 60;
const OVERNIGHT = 20 * 60;

/** The ET calendar date after `date` (YYYY-MM-DD). */
export function nextDate(date: string): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, mo - 1, d + 1)).toISOString().slice(0, 10);
}

function weekdayOf(date: string): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  return ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'][
    new Date(Date.UTC(y, mo - 1, d)).getUTCDay()
  ] as string;
}

/** Whether an ET date is a trading day of the calendar. */
export function isTradingDay(date: string, cal: MarketCalendarData = US_CALENDAR): boolean {
  return !cal.closures.has(date) && !cal.weekly.has(weekdayOf(date));
}

/**
 * The session at an instant. A trading day D has overnight from 20:00 on the day before to 04:00 on
 * D, then pre_market 04:00-09:30, regular 09:30-16:00 and after_hours 16:00-20:00. The overnight
 * session belongs to the trading day it leads into, so it runs on Sunday evening before a Monday and
 * on a holiday evening before a trading day, and not on Friday evening or the evening before a
 * holiday. Closures come from the calendar (full-day closures and weekly closures).
 */
export function usSessionAt(ms: number, cal: MarketCalendarData = US_CALENDAR): SessionState {
  const p = etParts(ms);
  const daylightType = isEasternDst(ms) ? 'dst' : 'standard';
  const m = p.minuteOfDay;
  const today = p.date;
  const base = { daylightType, etDate: today } as const;
  // Early morning belongs to the previous ET date's overnight session.
  if (m < PRE) {
    if (isTradingDay(today, cal)) return { ...base, session: 'overnight', nextChange: etToUtc(today, 4, 0) };
    return closedUntilNextOpen(ms, today, cal, base);
  }
  if (m >= OVERNIGHT) {
    const tomorrow = nextDate(today);
    if (isTradingDay(tomorrow, cal))
      return { ...base, session: 'overnight', nextChange: etToUtc(tomorrow, 4, 0) };
    return closedUntilNextOpen(ms, today, cal, base);
  }
  if (!isTradingDay(today, cal)) return closedUntilNextOpen(ms, today, cal, base);
  if (m < REGULAR) return { ...base, session: 'pre_market', nextChange: etToUtc(today, 9, 30) };
  if (m < AFTER) return { ...base, session: 'regular', nextChange: etToUtc(today, 16, 0) };
  return { ...base, session: 'after_hours', nextChange: etToUtc(today, 20, 0) };
}

function prevDate(date: string): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, mo - 1, d - 1)).toISOString().slice(0, 10);
}

function closedUntilNextOpen(
  ms: number,
  today: string,
  cal: MarketCalendarData,
  base: { daylightType: 'standard' | 'dst'; etDate: string },
): SessionState {
  // The next open is the overnight session (20:00 ET the evening before) of the next trading day.
  let d = today;
  for (let i = 0; i < 30; i++) {
    if (isTradingDay(d, cal)) {
      const open = etToUtc(prevDate(d), 20, 0);
      if (open > ms)
        return { ...base, session: 'closed', nextChange: open, closure: cal.closures.get(today) };
    }
    d = nextDate(d);
  }
  throw new Error(`no trading day within 30 days after ${today}`);
}
