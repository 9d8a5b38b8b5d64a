// US sessions in Eastern Time: DST change days, holidays, weekends and the overnight session.
import { describe, expect, it } from 'vitest';
import {
  etToUtc,
  isEasternDst,
  marketWaitSentence,
  nextAllowedSession,
  usSessionAt,
} from '../../../src/market/sessions.js';

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

describe('when a bot that trades some sessions can trade next', () => {
  const next = (iso: string, allowed: Parameters<typeof nextAllowedSession>[1]) => {
    const n = nextAllowedSession(Date.parse(iso), allowed);
    return n && { at: new Date(n.at).toISOString(), session: n.session };
  };

  it('on Thanksgiving, regular opens on the Friday (the early close day); overnight on the Friday evening does not run', () => {
    expect(next('2026-11-26T16:00:00Z', ['regular'])).toEqual({
      at: '2026-11-27T14:30:00.000Z',
      session: 'regular',
    });
    // Friday after the 13:00 ET early close: the next session of any kind is Sunday's overnight.
    expect(next('2026-11-27T19:00:00Z', ['pre_market', 'regular', 'after_hours', 'overnight'])).toEqual({
      at: '2026-11-30T01:00:00.000Z',
      session: 'overnight',
    });
  });

  it('on Christmas and New Year, the next regular session is the next trading day', () => {
    expect(next('2026-12-25T16:00:00Z', ['regular'])).toEqual({
      at: '2026-12-28T14:30:00.000Z',
      session: 'regular',
    });
    expect(next('2027-01-01T16:00:00Z', ['regular'])).toEqual({
      at: '2027-01-04T14:30:00.000Z',
      session: 'regular',
    });
  });

  it('across the March DST change, the open moves to 13:30 UTC', () => {
    expect(next('2026-03-07T16:00:00Z', ['regular'])).toEqual({
      at: '2026-03-09T13:30:00.000Z',
      session: 'regular',
    });
  });

  it('inside an allowed session, answers now', () => {
    expect(next('2026-11-23T15:00:00Z', ['regular'])).toEqual({
      at: '2026-11-23T15:00:00.000Z',
      session: 'regular',
    });
  });

  it('says why the bot waits and until when, in Eastern Time', () => {
    const now = Date.parse('2026-11-26T16:00:00Z');
    expect(marketWaitSentence(now, usSessionAt(now), ['regular'])).toBe(
      'the US market is closed (Thanksgiving Day); the bot trades in regular: regular opens at 2026-11-27 09:30:00 EST (in 22h 30m); it waits',
    );
    const evening = Date.parse('2026-11-27T19:00:00Z');
    expect(marketWaitSentence(evening, usSessionAt(evening), ['overnight'])).toMatch(
      /^the US market is closed \(.+\); the bot trades in overnight: overnight opens at 2026-11-29 20:00:00 EST \(in 54h 0m\); it waits$/,
    );
  });
});
