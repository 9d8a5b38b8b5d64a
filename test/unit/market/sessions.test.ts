// US sessions in Eastern Time: DST change days, holidays, weekends and the overnight session.
import { describe, expect, it } from 'vitest';
import { etToUtc, isEasternDst, usSessionAt } from '../../../src/market/sessions.js';

const at = (iso: string) => usSessionAt(Date.parse(iso));
const iso = (ms: number) => new Date(ms).toISOString();

describe('usSessionAt', () => {
  it('knows the regular session in winter (EST) and summer (EDT)', () => {
    expect(at('2026-11-23T14:30:00Z')).toMatchObject({ session: 'regular', daylightType: 'standard' });
    expect(at('2026-11-23T14:29:59Z').session).toBe('pre_market');
    expect(at('2026-07-01T13:30:00Z')).toMatchObject({ session: 'regular', daylightType: 'dst' });
    expect(at('2026-07-01T13:29:00Z').session).toBe('pre_market');
  });

  it('moves the open by an hour across the March DST change', () => {
    // Friday before: 9:30 EST = 14:30Z; Monday after: 9:30 EDT = 13:30Z
    expect(at('2026-03-06T14:30:00Z').session).toBe('regular');
    expect(at('2026-03-09T13:30:00Z').session).toBe('regular');
    expect(at('2026-03-09T13:29:00Z').session).toBe('pre_market');
    expect(isEasternDst(Date.parse('2026-03-08T06:59:00Z'))).toBe(false);
    expect(isEasternDst(Date.parse('2026-03-08T07:00:00Z'))).toBe(true);
    // Sunday evening's overnight session opens at 20:00 EDT = 00:00Z Monday
    expect(iso(at('2026-03-08T12:00:00Z').nextChange)).toBe('2026-03-09T00:00:00.000Z');
  });

  it('handles the November change', () => {
    expect(etToUtc('2026-11-02', 9, 30)).toBe(Date.parse('2026-11-02T14:30:00Z'));
    expect(etToUtc('2026-10-30', 9, 30)).toBe(Date.parse('2026-10-30T13:30:00Z'));
  });

  it('is closed on a holiday, with the remark, and reopens with the next overnight session', () => {
    const s = at('2026-11-26T16:00:00Z');
    expect(s).toMatchObject({ session: 'closed', closure: 'Thanksgiving Day' });
    expect(iso(s.nextChange)).toBe('2026-11-27T01:00:00.000Z');
    expect(at('2027-03-26T15:00:00Z')).toMatchObject({ session: 'closed', closure: 'Good Friday' });
  });

  it('runs overnight into a trading day only', () => {
    expect(at('2026-11-24T02:00:00Z').session).toBe('overnight'); // Mon 21:00 -> Tue
    expect(at('2026-11-26T02:00:00Z').session).toBe('closed'); // Wed 21:00 -> Thanksgiving
    expect(at('2026-11-27T03:00:00Z').session).toBe('overnight'); // Thanksgiving 22:00 -> Fri
    expect(at('2026-11-28T02:00:00Z').session).toBe('closed'); // Fri 21:00 -> weekend
    expect(at('2026-11-30T02:00:00Z').session).toBe('overnight'); // Sun 21:00 -> Mon
  });

  it('gives the time of the next transition', () => {
    expect(iso(at('2026-11-23T15:00:00Z').nextChange)).toBe('2026-11-23T21:00:00.000Z');
    expect(iso(at('2026-11-23T22:00:00Z').nextChange)).toBe('2026-11-24T01:00:00.000Z');
  });
});
