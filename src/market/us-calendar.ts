// The US exchange calendar data: full-day closures and early closes of the NYSE/Nasdaq for 2025 to
// 2027 (the real schedule NYSE Group published in November 2024 and December 2025) and the weekly
// closures. Pure data; session logic lives in sessions.ts.

export interface Closure {
  /** ET calendar date YYYY-MM-DD. */
  readonly date: string;
  readonly remark: string;
}

/** Full-day closures, in date order. */
export const US_FULL_DAY_CLOSURES: readonly Closure[] = [
  { date: '2025-01-01', remark: "New Year's Day" },
  { date: '2025-01-09', remark: 'National Day of Mourning for President Jimmy Carter' },
  { date: '2025-01-20', remark: 'Martin Luther King, Jr. Day' },
  { date: '2025-02-17', remark: "Washington's Birthday" },
  { date: '2025-04-18', remark: 'Good Friday' },
  { date: '2025-05-26', remark: 'Memorial Day' },
  { date: '2025-06-19', remark: 'Juneteenth National Independence Day' },
  { date: '2025-07-04', remark: 'Independence Day' },
  { date: '2025-09-01', remark: 'Labor Day' },
  { date: '2025-11-27', remark: 'Thanksgiving Day' },
  { date: '2025-12-25', remark: 'Christmas Day' },
  { date: '2026-01-01', remark: "New Year's Day" },
  { date: '2026-01-19', remark: 'Martin Luther King, Jr. Day' },
  { date: '2026-02-16', remark: "Washington's Birthday" },
  { date: '2026-04-03', remark: 'Good Friday' },
  { date: '2026-05-25', remark: 'Memorial Day' },
  { date: '2026-06-19', remark: 'Juneteenth National Independence Day' },
  { date: '2026-07-03', remark: 'Independence Day (observed)' },
  { date: '2026-09-07', remark: 'Labor Day' },
  { date: '2026-11-26', remark: 'Thanksgiving Day' },
  { date: '2026-12-25', remark: 'Christmas Day' },
  { date: '2027-01-01', remark: "New Year's Day" },
  { date: '2027-01-18', remark: 'Martin Luther King, Jr. Day' },
  { date: '2027-02-15', remark: "Washington's Birthday" },
  { date: '2027-03-26', remark: 'Good Friday' },
  { date: '2027-05-31', remark: 'Memorial Day' },
  { date: '2027-06-18', remark: 'Juneteenth National Independence Day (observed)' },
  { date: '2027-07-05', remark: 'Independence Day (observed)' },
  { date: '2027-09-06', remark: 'Labor Day' },
  { date: '2027-11-25', remark: 'Thanksgiving Day' },
  { date: '2027-12-24', remark: 'Christmas Day (observed)' },
];

/**
 * Early closes: the primary markets close at 13:00 ET on these days. The venue's Reality pairs follow:
 * the regular session ends at 13:00 and nothing trades until the overnight session that leads into the
 * next trading day (20:00 ET). The exchanges' late sessions run to 17:00 on these days, but the
 * venue publishes no after_hours for them, so we take the conservative reading: closed from 13:00.
 * None of 2025-2027's early closes is followed by a trading day, so no overnight follows either.
 * (2026 and 2027 have no July early close: Independence Day is observed on July 3, 2026 and on July 5,
 * 2027; 2027 has no Christmas Eve early close, as December 24 is the observed holiday.)
 */
export const US_EARLY_CLOSES: readonly Closure[] = [
  { date: '2025-07-03', remark: 'Early close (day before Independence Day)' },
  { date: '2025-11-28', remark: 'Early close (day after Thanksgiving)' },
  { date: '2025-12-24', remark: 'Early close (Christmas Eve)' },
  { date: '2026-11-27', remark: 'Early close (day after Thanksgiving)' },
  { date: '2026-12-24', remark: 'Early close (Christmas Eve)' },
  { date: '2027-11-26', remark: 'Early close (day after Thanksgiving)' },
];

/** ET time the regular session ends on an early-close day, and the time trading may resume. */
export const US_EARLY_CLOSE_TIME = '13:00';
export const US_EARLY_CLOSE_UNTIL = '20:00';

/** One special closure as spec 2.17's `specificConfig` carries it (ET, `YYYY-MM-DD HH:mm`). */
export interface SpecificClosure {
  readonly remark: string;
  readonly startTime: string;
  readonly endTime: string;
}

/**
 * The whole built-in calendar as spec 2.17 `specificConfig` entries: a holiday is 00:00 to 23:59, an
 * early close is 13:00 to 20:00 of its day. The simulator answers with exactly these, and
 * `US_CALENDAR` (sessions.ts) is built from them, so both read one list.
 */
export const US_SPECIFIC_CLOSURES: readonly SpecificClosure[] = [
  ...US_FULL_DAY_CLOSURES.map((c) => ({
    remark: c.remark,
    startTime: `${c.date} 00:00`,
    endTime: `${c.date} 23:59`,
  })),
  ...US_EARLY_CLOSES.map((c) => ({
    remark: c.remark,
    startTime: `${c.date} ${US_EARLY_CLOSE_TIME}`,
    endTime: `${c.date} ${US_EARLY_CLOSE_UNTIL}`,
  })),
].sort((a, b) => (a.startTime < b.startTime ? -1 : a.startTime > b.startTime ? 1 : 0));

/** Weekly closures, as the calendar endpoint names them. */
export const US_WEEKLY_CLOSURES = ['SATURDAY', 'SUNDAY'] as const;

/** US sessions in Eastern Time (spec 3.3), as HH:mm. overnight runs into the next day. */
export const US_SESSIONS = [
  { state: 'pre_market', startTime: '04:00', endTime: '09:30' },
  { state: 'regular', startTime: '09:30', endTime: '16:00' },
  { state: 'after_hours', startTime: '16:00', endTime: '20:00' },
  { state: 'overnight', startTime: '20:00', endTime: '04:00' },
] as const;

/** The IANA zone of US Eastern Time; DST comes from the tz database through Intl, never by hand. */
export const US_EASTERN = 'America/New_York';
