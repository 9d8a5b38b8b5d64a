// Early closes (13:00 ET on the day after Thanksgiving, Christmas Eve and July 3 when they are trading
// days): the regular session ends at 13:00 and nothing trades until the next overnight session. The
// session function is the one the gate, the backtester and the simulator read.
import { describe, expect, it } from 'vitest';
import type { Instrument } from '../../../src/api/index.js';
import { calendarFromWire } from '../../../src/feeds/session.js';
import { Decimal } from '../../../src/market/decimal.js';
import { parseInstrument } from '../../../src/market/instrument-rules.js';
import {
  US_CALENDAR,
  calendarFromClosures,
  etToUtc,
  usRegularSession,
  usSessionAt,
} from '../../../src/market/sessions.js';
import { US_SPECIFIC_CLOSURES, US_WEEKLY_CLOSURES } from '../../../src/market/us-calendar.js';
import { Portfolio } from '../../../src/portfolio/index.js';
import { RiskGate, RiskLimitsSchema } from '../../../src/risk/index.js';

const et = (date: string, hh: number, mm = 0) => etToUtc(date, hh, mm);
const iso = (ms: number) => new Date(ms).toISOString();

describe('early closes', () => {
  it('ends the regular session at 13:00 ET on the day after Thanksgiving and stays closed for the weekend', () => {
    const before = usSessionAt(et('2026-11-27', 12, 59));
    expect(before.session).toBe('regular');
    expect(iso(before.nextChange)).toBe(iso(et('2026-11-27', 13)));
    const after = usSessionAt(et('2026-11-27', 13, 30));
    expect(after).toMatchObject({ session: 'closed', closure: 'Early close (day after Thanksgiving)' });
    // Friday: the next session is Sunday evening's overnight, into Monday.
    expect(iso(after.nextChange)).toBe(iso(et('2026-11-29', 20)));
    expect(usSessionAt(et('2026-11-27', 16, 30)).session).toBe('closed'); // no after_hours
    expect(usSessionAt(et('2026-11-27', 9, 30)).session).toBe('regular');
    expect(usSessionAt(et('2026-11-27', 8)).session).toBe('pre_market');
  });

  it('closes at 13:00 ET on Christmas Eve and reopens with the overnight session into December 26', () => {
    expect(usSessionAt(et('2025-12-24', 12)).session).toBe('regular');
    const s = usSessionAt(et('2025-12-24', 14));
    expect(s).toMatchObject({ session: 'closed', closure: 'Early close (Christmas Eve)' });
    expect(iso(s.nextChange)).toBe(iso(et('2025-12-25', 20)));
    expect(usSessionAt(et('2026-12-24', 13, 1)).session).toBe('closed');
    // 2027: December 24 is the observed holiday itself, so December 23 is a full day.
    expect(usSessionAt(et('2027-12-23', 15)).session).toBe('regular');
  });

  it('closes early on July 3, 2025 only (2026 observes Independence Day on July 3)', () => {
    expect(usSessionAt(et('2025-07-03', 13, 30)).session).toBe('closed');
    expect(usSessionAt(et('2026-07-02', 13, 30)).session).toBe('regular');
    expect(usSessionAt(et('2026-07-03', 13, 30))).toMatchObject({
      session: 'closed',
      closure: 'Independence Day (observed)',
    });
  });

  it('gives the regular session of a date, early close included', () => {
    expect(usRegularSession('2026-11-27')).toEqual({
      open: et('2026-11-27', 9, 30),
      close: et('2026-11-27', 13),
    });
    expect(usRegularSession('2026-11-30')).toEqual({
      open: et('2026-11-30', 9, 30),
      close: et('2026-11-30', 16),
    });
    expect(usRegularSession('2026-11-26')).toBeUndefined(); // Thanksgiving
    expect(usRegularSession('2026-11-28')).toBeUndefined(); // Saturday
  });

  it('reads the same closures back from the calendar endpoint shape (spec 2.17)', () => {
    const wire = calendarFromWire({
      timeZone: 'EST',
      specificConfig: US_SPECIFIC_CLOSURES.map((c) => ({ ...c })),
      regularConfig: [...US_WEEKLY_CLOSURES],
    });
    for (const t of [
      et('2026-11-27', 13, 30),
      et('2026-11-27', 12),
      et('2025-12-24', 14),
      et('2026-11-26', 12),
    ]) {
      expect(usSessionAt(t, wire)).toEqual(usSessionAt(t, US_CALENDAR));
    }
    expect(US_SPECIFIC_CLOSURES).toContainEqual({
      remark: 'Early close (day after Thanksgiving)',
      startTime: '2026-11-27 13:00',
      endTime: '2026-11-27 20:00',
    });
  });

  it('cuts an overnight session short when a timed closure starts inside it', () => {
    const cal = calendarFromClosures(
      [{ remark: 'maintenance', startTime: '2026-11-24 02:00', endTime: '2026-11-24 03:00' }],
      ['SATURDAY', 'SUNDAY'],
    );
    const s = usSessionAt(et('2026-11-23', 21), cal);
    expect(s.session).toBe('overnight');
    expect(iso(s.nextChange)).toBe(iso(et('2026-11-24', 2)));
    const during = usSessionAt(et('2026-11-24', 2, 30), cal);
    expect(during).toMatchObject({ session: 'closed', closure: 'maintenance' });
    expect(iso(during.nextChange)).toBe(iso(et('2026-11-24', 3)));
    expect(usSessionAt(et('2026-11-24', 3), cal).session).toBe('overnight');
  });

  it('lets the risk gate deny a regular-session order at 14:00 ET on the day after Thanksgiving', () => {
    const wire: Instrument = {
      category: 'SPOT',
      symbol: 'AAPLUSDT',
      isReality: 'yes',
      baseCoin: 'AAPL',
      quoteCoin: 'USDT',
      status: 'online',
      pricePrecision: '2',
      quantityPrecision: '2',
    };
    const check = (now: number) =>
      new RiskGate(RiskLimitsSchema.parse({})).check(
        {
          type: 'limit',
          symbol: 'AAPLUSDT',
          category: 'SPOT',
          side: 'buy',
          quantity: new Decimal(1),
          price: new Decimal(100),
          tag: 't',
          reason: 'r',
        },
        {
          now,
          rules: parseInstrument(wire),
          market: {
            last: new Decimal(100),
            bid: new Decimal('99.99'),
            ask: new Decimal('100.01'),
            ts: now - 1000,
          },
          session: usSessionAt(now),
          portfolio: new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '100000' } }),
          tradingState: 'ACTIVE',
          recentOrderTimes: [],
        },
      );
    expect(check(et('2026-11-27', 11)).ok).toBe(true);
    const denied = check(et('2026-11-27', 14));
    expect(denied).toMatchObject({
      ok: false,
      code: 'CALENDAR_CLOSED',
      message: 'the US market is closed for Early close (day after Thanksgiving)',
    });
  });
});
