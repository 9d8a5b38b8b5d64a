// Instants as an operator reads them: in a time zone (the venue's: US Eastern for Reality tokens), with
// the zone's short name, e.g. "2026-11-23 16:00:00 EST".

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'short',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The parts of an instant in a zone: year, month, day, weekday (Mon), hour (00-23), minute, second, timeZoneName. */
export function zonedParts(ts: number, zone: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(ts)) out[p.type] = p.value;
  return out;
}

/**
 * The wall clock of an instant in a zone, read as if it were UTC (Unix ms, whole seconds): what the zone's
 * clock shows, for arithmetic on local dates and times and for charts that draw in UTC.
 */
export function zonedWallClock(ts: number, zone: string): number {
  const p = zonedParts(ts, zone);
  return Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
}

/** "2026-11-23 16:00:00 EST": the date, the time and the zone's short name. */
export function formatZoned(ts: number, zone: string): string {
  const p = zonedParts(ts, zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
}

/** "16:00:00 EST": the time of day and the zone's short name. */
export function formatZonedTime(ts: number, zone: string): string {
  const p = zonedParts(ts, zone);
  return `${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
}
