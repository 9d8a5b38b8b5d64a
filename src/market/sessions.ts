// US market sessions in Eastern Time (spec 3.3) and the exchange calendar. Eastern Time and its DST
// changes come from the tz database through Intl; no DST rule is written by hand here.
import type { SessionName } from '../api/index.js';
import { formatZoned, zonedWallClock } from './zoned-time.js';
import { US_EASTERN, US_SPECIFIC_CLOSURES, US_WEEKLY_CLOSURES, type SpecificClosure } from './us-calendar.js';

/** Facts of ET dates by date, filled as they are asked for (see dayOf; declared first: module set-up reads them). */
const DAYS = new Map<string, DayFacts>();
const DAY_NAMES = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;

export type SessionOrClosed = SessionName | 'closed';

export interface SessionState {
  readonly session: SessionOrClosed;
  /** Unix ms of the next change of session (or of closed -> open). */
  readonly nextChange: number;
  readonly daylightType: 'standard' | 'dst';
  /** ET date (YYYY-MM-DD) the instant falls on. */
  readonly etDate: string;
  /** Calendar remark when closed by a holiday or an early close. */
  readonly closure?: string | undefined;
}

/** A closure of part of an ET day (an early close), in minutes since ET midnight: [from, to). */
export interface TimedClosure {
  readonly from: number;
  readonly to: number;
  readonly remark: string;
}

/**
 * A calendar: full-day closures by ET date, closures of part of a day (early closes) by ET date, and
 * weekly closed weekdays (e.g. SATURDAY).
 */
export interface MarketCalendarData {
  readonly closures: ReadonlyMap<string, string>;
  readonly partial?: ReadonlyMap<string, readonly TimedClosure[]> | undefined;
  readonly weekly: ReadonlySet<string>;
}

const DAY_MINUTES = 24 * 60;
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];
const minuteOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * A calendar from spec 2.17's closures (`YYYY-MM-DD HH:mm`, ET) and weekly closures. Each closure
 * covers the ET dates it spans: a date it covers from 00:00 to 23:59 (or beyond) is a full-day
 * closure, any other part of a date is a timed closure (an end of 23:59 means the end of the day).
 */
export function calendarFromClosures(
  specific: readonly SpecificClosure[],
  regular: readonly string[],
): MarketCalendarData {
  const closures = new Map<string, string>();
  const partial = new Map<string, TimedClosure[]>();
  for (const s of specific) {
    const start = s.startTime.slice(0, 10);
    const end = s.endTime.slice(0, 10);
    for (let d = start; d <= end; d = nextDate(d)) {
      const from = d > start ? 0 : minuteOf(s.startTime.slice(11));
      const endMinute = d < end ? DAY_MINUTES : minuteOf(s.endTime.slice(11));
      const to = endMinute >= DAY_MINUTES - 1 ? DAY_MINUTES : endMinute;
      if (from === 0 && to === DAY_MINUTES) closures.set(d, s.remark);
      else if (to > from) partial.set(d, [...(partial.get(d) ?? []), { from, to, remark: s.remark }]);
    }
  }
  const weekly = new Set(regular.map((w) => w.toUpperCase()).filter((w) => WEEKDAYS.includes(w)));
  return { closures, partial, weekly };
}

/** The built-in US calendar (2025 to 2027 holidays and early closes, weekends). */
export const US_CALENDAR: MarketCalendarData = calendarFromClosures(US_SPECIFIC_CLOSURES, US_WEEKLY_CLOSURES);

export interface EtParts {
  readonly date: string;
  readonly weekday: string;
  /** Minutes since ET midnight. */
  readonly minuteOfDay: number;
  readonly second: number;
}

/** The offset from the tz database (Intl), for one instant. */
function intlOffsetMinutes(ms: number): number {
  const asUtc = zonedWallClock(ms, US_EASTERN);
  return Math.round((asUtc - (ms - (((ms % 1000) + 1000) % 1000))) / 60_000);
}

// Eastern Time changes its offset only on the hour, a few times a year. The changes of each UTC year are
// worked out once and kept: an instant's offset is then a comparison or two (sessions are asked for
// millions of times). From 2007 on they follow the US rule in force (Energy Policy Act of 2005): summer
// time from the second Sunday of March, 02:00 EST, to the first Sunday of November, 02:00 EDT. Earlier
// years are read from the tz database (Intl), by comparing the offset at month starts and bisecting on the
// hour inside a month where it differs (about 30 look-ups a year). The rule spares a backtest the tz
// database's start-up (about 12 ms for the first Intl.DateTimeFormat of a process); a test holds it to the
// tz database for every year to 2100, so a change of the law shows as a failing test, not a wrong session.
const HOUR_MS = 3_600_000;
/** The first year of the current US rule. */
const US_RULE_FROM = 2007;

/** The day of the month of the n-th Sunday (n >= 1) of a month. */
function nthSunday(year: number, month: number, n: number): number {
  const weekdayOfFirst = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - weekdayOfFirst) % 7) + 7 * (n - 1);
}

interface OffsetYear {
  readonly start: number;
  readonly end: number;
  /** Offset at the year's start, then each change: from `at` (inclusive) the offset is `minutes`. */
  readonly first: number;
  readonly changes: readonly { readonly at: number; readonly minutes: number }[];
}

const offsetYears = new Map<number, OffsetYear>();
let lastYear: OffsetYear | undefined;

function offsetYear(year: number): OffsetYear {
  let y = offsetYears.get(year);
  if (y !== undefined) return y;
  const monthStart = (m: number) => Date.UTC(year, m, 1);
  if (year >= US_RULE_FROM) {
    y = {
      start: monthStart(0),
      end: monthStart(12),
      first: -300,
      changes: [
        { at: Date.UTC(year, 2, nthSunday(year, 2, 2), 7), minutes: -240 }, // 02:00 EST
        { at: Date.UTC(year, 10, nthSunday(year, 10, 1), 6), minutes: -300 }, // 02:00 EDT
      ],
    };
    offsetYears.set(year, y);
    return y;
  }
  const changes: { at: number; minutes: number }[] = [];
  let prev = intlOffsetMinutes(monthStart(0));
  const first = prev;
  for (let m = 0; m < 12; m++) {
    let lo = monthStart(m) / HOUR_MS; // offset known to be `prev` at lo
    const hi = monthStart(m + 1) / HOUR_MS;
    const atEnd = intlOffsetMinutes(hi * HOUR_MS);
    // One change a month at most in any zone this module serves (Eastern Time: March and November).
    if (atEnd === prev) continue;
    let h = hi; // offset is atEnd at h
    while (h - lo > 1) {
      const mid = Math.floor((lo + h) / 2);
      if (intlOffsetMinutes(mid * HOUR_MS) === prev) lo = mid;
      else h = mid;
    }
    changes.push({ at: h * HOUR_MS, minutes: atEnd });
    prev = atEnd;
  }
  y = { start: monthStart(0), end: monthStart(12), first, changes };
  offsetYears.set(year, y);
  return y;
}

/** Offset of Eastern Time from UTC at an instant, in minutes (-300 in winter, -240 in summer). */
export function etOffsetMinutes(ms: number): number {
  let y = lastYear;
  if (y === undefined || ms < y.start || ms >= y.end) {
    y = offsetYear(new Date(ms).getUTCFullYear());
    lastYear = y;
  }
  let off = y.first;
  for (const c of y.changes) {
    if (ms < c.at) break;
    off = c.minutes;
  }
  return off;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Wall-clock parts of an instant in Eastern Time. */
export function etParts(ms: number): EtParts {
  const local = new Date(ms + etOffsetMinutes(ms) * 60_000);
  return {
    date: `${local.getUTCFullYear()}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())}`,
    weekday: DAY_NAMES[local.getUTCDay()] as string,
    minuteOfDay: local.getUTCHours() * 60 + local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

/**
 * The wall clock of an instant in a zone, read as if it were UTC (Unix ms, whole seconds; see zonedWallClock):
 * UTC and Eastern Time without a tz-database look-up per instant (microseconds each), other zones through it.
 */
export function wallClockIn(ms: number, zone: string): number {
  const whole = ms - (((ms % 1000) + 1000) % 1000);
  if (zone === 'UTC') return whole;
  if (zone === US_EASTERN) return whole + etOffsetMinutes(ms) * 60_000;
  return zonedWallClock(ms, zone);
}

/** Whether daylight saving time applies in Eastern Time at an instant. */
export const isEasternDst = (ms: number): boolean => etOffsetMinutes(ms) === -240;

/** The Unix ms of an ET wall-clock time on an ET date (resolves DST through Intl). */
export function etToUtc(date: string, hh: number, mm: number): number {
  const guess = dayOf(date).utcMidnight + (hh * 60 + mm) * 60_000;
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
  return dayOf(date).next;
}

function weekdayOf(date: string): string {
  return dayOf(date).weekday;
}

/** What the session arithmetic asks of an ET date, worked out once per date (a backtest asks per session change). */
interface DayFacts {
  readonly weekday: string;
  readonly next: string;
  readonly prev: string;
  /** Date.UTC of the date at 00:00 (the ET wall clock read as UTC). */
  readonly utcMidnight: number;
}
function dayOf(date: string): DayFacts {
  let f = DAYS.get(date);
  if (f === undefined) {
    const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
    const iso = (day: number) => new Date(Date.UTC(y, mo - 1, day)).toISOString().slice(0, 10);
    f = {
      utcMidnight: Date.UTC(y, mo - 1, d),
      weekday: DAY_NAMES[new Date(Date.UTC(y, mo - 1, d)).getUTCDay()] as string,
      next: iso(d + 1),
      prev: iso(d - 1),
    };
    // Dates are few (about 250 a year); the bound only guards against a caller walking centuries.
    if (DAYS.size >= 100_000) DAYS.clear();
    DAYS.set(date, f);
  }
  return f;
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
 * holiday. Closures come from the calendar (full-day closures and weekly closures); a timed closure
 * (an early close, 13:00 to 20:00 ET) closes the market inside it and cuts the session before it short.
 * The gate's session check, the backtester and the simulator all read sessions through this function.
 */
export function usSessionAt(ms: number, cal: MarketCalendarData = US_CALENDAR): SessionState {
  const s = sessionWithoutTimedClosures(ms, cal);
  if (cal.partial === undefined || cal.partial.size === 0) return s;
  const p = etParts(ms);
  const inside = cal.partial.get(p.date)?.find((c) => p.minuteOfDay >= c.from && p.minuteOfDay < c.to);
  if (inside !== undefined) {
    const end = etToUtc(p.date, Math.floor(inside.to / 60), inside.to % 60);
    const after = usSessionAt(end, cal);
    return {
      daylightType: s.daylightType,
      etDate: p.date,
      session: 'closed',
      nextChange: after.session === 'closed' ? after.nextChange : end,
      closure: inside.remark,
    };
  }
  if (s.session === 'closed') {
    // The next open may itself fall inside a timed closure: then the market opens when that ends.
    const next = usSessionAt(s.nextChange, cal);
    return next.session === 'closed' ? stateOf(s, s.session, next.nextChange, s.closure) : s;
  }
  // An open session ends early when a timed closure starts before its normal end.
  let nextChange = s.nextChange;
  for (const date of new Set([p.date, etParts(s.nextChange).date])) {
    for (const c of cal.partial.get(date) ?? []) {
      const t = etToUtc(date, Math.floor(c.from / 60), c.from % 60);
      if (t > ms && t < nextChange) nextChange = t;
    }
  }
  return nextChange === s.nextChange ? s : stateOf(s, s.session, nextChange, s.closure);
}

/**
 * A session state, written out field by field: V8 (Node 20) builds `{ ...base, session, nextChange }` about
 * ten times slower, and a backtest asks for the session at every change.
 */
function stateOf(
  base: { readonly daylightType: 'standard' | 'dst'; readonly etDate: string },
  session: SessionOrClosed,
  nextChange: number,
  closure?: string,
): SessionState {
  return closure === undefined
    ? { daylightType: base.daylightType, etDate: base.etDate, session, nextChange }
    : { daylightType: base.daylightType, etDate: base.etDate, session, nextChange, closure };
}

function sessionWithoutTimedClosures(ms: number, cal: MarketCalendarData): SessionState {
  const p = etParts(ms);
  const daylightType = isEasternDst(ms) ? 'dst' : 'standard';
  const m = p.minuteOfDay;
  const today = p.date;
  const base = { daylightType, etDate: today } as const;
  // Early morning belongs to the previous ET date's overnight session.
  if (m < PRE) {
    if (isTradingDay(today, cal)) return stateOf(base, 'overnight', etToUtc(today, 4, 0));
    return closedUntilNextOpen(ms, today, cal, base);
  }
  if (m >= OVERNIGHT) {
    const tomorrow = nextDate(today);
    if (isTradingDay(tomorrow, cal)) return stateOf(base, 'overnight', etToUtc(tomorrow, 4, 0));
    return closedUntilNextOpen(ms, today, cal, base);
  }
  if (!isTradingDay(today, cal)) return closedUntilNextOpen(ms, today, cal, base);
  if (m < REGULAR) return stateOf(base, 'pre_market', etToUtc(today, 9, 30));
  if (m < AFTER) return stateOf(base, 'regular', etToUtc(today, 16, 0));
  return stateOf(base, 'after_hours', etToUtc(today, 20, 0));
}

/**
 * The regular session of an ET date as Unix ms: 09:30 to 16:00, or to the early close when a timed
 * closure starts inside it (13:00 on the day after Thanksgiving); undefined on a day without trading.
 * What a daily stock candle opens and closes at (the backtester decides a daily candle at `close`).
 */
export function usRegularSession(
  date: string,
  cal: MarketCalendarData = US_CALENDAR,
): { readonly open: number; readonly close: number } | undefined {
  if (!isTradingDay(date, cal)) return undefined;
  let close = AFTER;
  for (const c of cal.partial?.get(date) ?? []) {
    if (c.from <= REGULAR && c.to > REGULAR) return undefined; // closed at the open
    if (c.from > REGULAR && c.from < close) close = c.from;
  }
  return {
    open: etToUtc(date, Math.floor(REGULAR / 60), REGULAR % 60),
    close: etToUtc(date, Math.floor(close / 60), close % 60),
  };
}

function prevDate(date: string): string {
  return dayOf(date).prev;
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
      if (open > ms) return stateOf(base, 'closed', open, cal.closures.get(today));
    }
    d = nextDate(d);
  }
  throw new Error(`no trading day within 30 days after ${today}`);
}

/** When a bot that trades only `allowed` sessions can next trade: the first such session at or after `ms`. */
export function nextAllowedSession(
  ms: number,
  allowed: readonly SessionOrClosed[],
  cal: MarketCalendarData = US_CALENDAR,
): { readonly at: number; readonly session: SessionName } | undefined {
  let t = ms;
  // About seven transitions a day: 400 reach past the longest closure the calendar can hold (30 days).
  for (let i = 0; i < 400; i++) {
    const s = usSessionAt(t, cal);
    if (s.session !== 'closed' && allowed.includes(s.session)) return { at: t, session: s.session };
    if (!(s.nextChange > t)) return undefined;
    t = s.nextChange;
  }
  return undefined;
}

/**
 * What a bot on Reality tokens tells the operator when the session does not let it trade: why, and when it
 * can trade again, in Eastern Time. E.g. "the US market is closed (Thanksgiving Day); the bot trades in
 * regular, which opens at 2026-11-27 09:30:00 EST (in 17h 4m); it waits".
 */
export function marketWaitSentence(
  now: number,
  state: SessionState,
  allowed: readonly SessionOrClosed[],
  cal: MarketCalendarData = US_CALENDAR,
): string {
  const why =
    state.session === 'closed'
      ? `the US market is closed (${state.closure ?? (isTradingDay(state.etDate, cal) ? 'outside its sessions' : 'weekend')})`
      : `the US market is in its ${state.session} session, which the bot does not trade`;
  const next = nextAllowedSession(now, allowed, cal);
  if (next === undefined)
    return `${why}; none of the bot's sessions (${allowed.join(', ')}) opens within 30 days`;
  const inMinutes = Math.round((next.at - now) / 60_000);
  const hours = Math.floor(inMinutes / 60);
  const minutes = inMinutes % 60;
  return (
    `${why}; the bot trades in ${allowed.join(', ')}: ${next.session} opens at ` +
    `${formatZoned(next.at, US_EASTERN)} (in ${hours > 0 ? `${hours}h ` : ''}${minutes}m); it waits`
  );
}
