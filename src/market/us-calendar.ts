// The US exchange calendar data: full-day closures of the NYSE/Nasdaq for 2025 to 2027 (the real,
// published holiday schedule) and the weekly closures. Pure data; session logic lives in sessions.ts.

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
