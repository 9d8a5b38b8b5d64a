// The Eastern Time offset is worked out once per year (the US rule from 2007, the tz database by bisection
// before) and then computed by comparison: it must equal what Intl says for every instant, across DST changes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { etOffsetMinutes, wallClockIn } from '../../../src/market/sessions.js';
import { zonedWallClock } from '../../../src/market/zoned-time.js';

const fmt = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  timeZoneName: 'longOffset',
});
/** The offset straight from the tz database, e.g. "GMT-04:00" -> -240. */
function intlOffset(ms: number): number {
  const name = fmt.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  if (m === null) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

describe('etOffsetMinutes', () => {
  it('equals the tz database at any instant from 1970 to 2100', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }), (ms) => {
        expect(etOffsetMinutes(ms)).toBe(intlOffset(ms));
      }),
      { numRuns: 3000 },
    );
  });

  it('changes on the exact hour of each DST change (2026: 8 March 07:00 UTC, 1 November 06:00 UTC)', () => {
    const spring = Date.UTC(2026, 2, 8, 7);
    const fall = Date.UTC(2026, 10, 1, 6);
    expect([etOffsetMinutes(spring - 1), etOffsetMinutes(spring)]).toEqual([-300, -240]);
    expect([etOffsetMinutes(fall - 1), etOffsetMinutes(fall)]).toEqual([-240, -300]);
    // Every hour of a year agrees with the tz database (the changes are found by bisection).
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 3_600_000) {
      expect(etOffsetMinutes(t)).toBe(intlOffset(t));
    }
  });
});

describe('etOffsetMinutes against the tz database, year by year', () => {
  it('changes in the same hours as the tz database in every year from 1970 to 2100', () => {
    for (let year = 1970; year <= 2100; year++) {
      // Every change of the year, to the hour, as the tz database has it and as we have it: the days whose
      // noon (UTC) offset differs from the day before's, then the hours of those days and the day before.
      const changes = (offset: (ms: number) => number) => {
        const out: number[] = [];
        for (let d = Date.UTC(year, 0, 1); d < Date.UTC(year + 1, 0, 1); d += 86_400_000) {
          if (offset(d + 43_200_000) === offset(d - 43_200_000)) continue;
          for (let t = d - 43_200_000 + 3_600_000; t <= d + 43_200_000; t += 3_600_000)
            if (offset(t) !== offset(t - 3_600_000)) out.push(t);
        }
        return out;
      };
      const tz = changes(intlOffset);
      const ours = changes(etOffsetMinutes);
      expect({ year, changes: ours }).toEqual({ year, changes: tz });
      expect(tz.length).toBeGreaterThan(0);
      // Either side of each change, the offset itself agrees.
      for (const t of tz) {
        expect([etOffsetMinutes(t - 1), etOffsetMinutes(t)]).toEqual([intlOffset(t - 1), intlOffset(t)]);
      }
    }
  });
});

describe('wallClockIn', () => {
  it('reads the same wall clock as the tz database in UTC, Eastern Time and another zone, to the second', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -86_400_000, max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom('UTC', 'America/New_York', 'Europe/Berlin'),
        (ms, zone) => {
          expect(wallClockIn(ms, zone)).toBe(zonedWallClock(ms, zone));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
