import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Candle } from '../../../src/market/candle.js';
import { Decimal } from '../../../src/market/decimal.js';
import { etToUtc, usRegularSession, usSessionAt } from '../../../src/market/sessions.js';
import type { SessionState } from '../../../src/market/sessions.js';
import { MemoryStrategyState } from '../../../src/strategy/state.js';
import { MemoryLogger, MemoryPortfolio, runStrategy } from '../../../src/strategy/testing.js';
import realitySession from '../../../strategies/reality-session.js';

const MIN = 60_000;
const OPEN = 9 * 60 + 30;
const CLOSE = 16 * 60;

/** One-minute candles of an ET date from `fromMin` to `toMin` (minutes of the ET day), closes from `price`. */
function dayCandles(
  symbol: string,
  date: string,
  price: (m: number) => number,
  fromMin = 4 * 60,
  toMin = 20 * 60,
): Candle[] {
  const t0 = etToUtc(date, 0, 0);
  const out: Candle[] = [];
  let prev = price(fromMin);
  for (let m = fromMin; m < toMin; m++) {
    const close = price(m);
    out.push({
      symbol,
      interval: '1m',
      openTime: t0 + m * MIN,
      open: prev,
      high: Math.max(prev, close),
      low: Math.min(prev, close),
      close,
      volume: 1,
      turnover: close,
    });
    prev = close;
  }
  return out;
}

/** Wild pre-market, a 99-101 opening range, a breakout at 10:00 ET, then a wild after-hours. */
const breakoutDay = (m: number): number => {
  if (m < OPEN) return m < OPEN - 1 ? 90 + ((m * 7) % 40) : 100;
  if (m < OPEN + 15) return [100, 101, 99][m % 3] as number;
  if (m < 10 * 60) return 100;
  if (m < CLOSE) return 102 + (m % 5);
  return 150 - (m % 30);
};

const params = { rangeMinutes: 15, flattenMinutes: 10, quoteAmount: '500' };
const inRegular = (t: number): boolean =>
  usSessionAt(t - 1).session === 'regular' && usSessionAt(t).session === 'regular';

describe('reality-session', () => {
  it('buys the breakout of the opening range and sells everything 10 minutes before the 16:00 ET close', () => {
    const date = '2026-01-05'; // a Monday in standard time
    const r = runStrategy(realitySession, dayCandles('AAPLUSDT', date, breakoutDay), { params });
    expect(r.intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['buy:breakout', 'sell:flatten']);
    expect(r.intents[0] && 'quoteAmount' in r.intents[0] && r.intents[0].quoteAmount).toEqual(
      new Decimal('500'),
    );
    expect(r.emittedAt[0]).toBe(etToUtc(date, 10, 1)); // the 10:00 candle closes at 10:01
    expect(r.emittedAt[1]).toBe(etToUtc(date, 15, 50));
    const sell = r.intents[1];
    expect(sell && 'quantity' in sell && sell.quantity).toEqual(new Decimal('500').div(102));
    expect(r.portfolio.position('AAPLUSDT').quantity.isZero()).toBe(true);
  });

  it('follows Eastern daylight time in summer (09:30 ET is 13:30 UTC)', () => {
    const date = '2026-07-06';
    const r = runStrategy(realitySession, dayCandles('AAPLUSDT', date, breakoutDay), { params });
    expect(r.emittedAt).toEqual([Date.UTC(2026, 6, 6, 14, 1), Date.UTC(2026, 6, 6, 19, 50)]);
  });

  it('never emits outside the regular session, in pre-market and after-hours breakouts included', () => {
    const date = '2026-03-10';
    const r = runStrategy(realitySession, dayCandles('AAPLUSDT', date, breakoutDay), { params });
    expect(r.emittedAt.length).toBeGreaterThan(0);
    for (const t of r.emittedAt) expect(inRegular(t)).toBe(true);
  });

  it('never enters once the flatten window has begun', () => {
    const date = '2026-01-06';
    // Flat inside the range until 15:52 ET, then a breakout: too late.
    const late = (m: number): number =>
      m < OPEN + 15 ? ([100, 101, 99][m % 3] as number) : m < 15 * 60 + 52 ? 100 : 110;
    expect(runStrategy(realitySession, dayCandles('AAPLUSDT', date, late), { params }).intents).toEqual([]);
  });

  it('flattens before the 13:00 ET early close on the day after Thanksgiving', () => {
    const date = '2026-11-27';
    const r = runStrategy(realitySession, dayCandles('AAPLUSDT', date, breakoutDay), { params });
    expect(r.intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['buy:breakout', 'sell:flatten']);
    expect(r.emittedAt[1]).toBe(etToUtc(date, 12, 50));
  });

  it('does nothing on a market holiday or a weekend', () => {
    expect(
      runStrategy(realitySession, dayCandles('AAPLUSDT', '2026-01-19', breakoutDay), { params }).intents,
    ).toEqual([]);
    expect(
      runStrategy(realitySession, dayCandles('AAPLUSDT', '2026-01-10', breakoutDay), { params }).intents,
    ).toEqual([]);
  });

  it('sells at the range low after an entry and does not enter twice in a day', () => {
    const date = '2026-01-07';
    const fade = (m: number): number => {
      if (m < OPEN + 15) return [100, 101, 99][m % 3] as number;
      if (m < 10 * 60) return 102; // breakout
      if (m < 11 * 60) return 98; // under the range low: stop
      return 103; // above the high again: no second entry
    };
    const r = runStrategy(realitySession, dayCandles('AAPLUSDT', date, fade, 9 * 60, CLOSE), { params });
    expect(r.intents.map((i) => `${i.side}:${i.tag}`)).toEqual(['buy:breakout', 'sell:range-stop']);
  });

  it('leaves the stop out when stopAtRangeLow is false, and still flattens', () => {
    const date = '2026-01-07';
    const fade = (m: number): number =>
      m < OPEN + 15 ? ([100, 101, 99][m % 3] as number) : m < 10 * 60 ? 102 : 98;
    const r = runStrategy(realitySession, dayCandles('AAPLUSDT', date, fade, 9 * 60, CLOSE), {
      params: { ...params, stopAtRangeLow: false },
    });
    expect(r.intents.map((i) => i.tag)).toEqual(['breakout', 'flatten']);
  });

  it('lets the venue session veto an entry (e.g. a halt the built-in calendar does not know)', () => {
    const halted: SessionState = {
      session: 'closed',
      nextChange: 0,
      daylightType: 'standard',
      etDate: '2026-01-05',
    };
    const r = runStrategy(realitySession, dayCandles('AAPLUSDT', '2026-01-05', breakoutDay), {
      params,
      session: () => halted,
    });
    expect(r.intents).toEqual([]);
  });

  it("remembers a day's entry across a restart through the persistent state", () => {
    const date = '2026-01-08';
    const candles = dayCandles('AAPLUSDT', date, breakoutDay, 9 * 60, CLOSE);
    const cut = candles.findIndex((c) => c.openTime === etToUtc(date, 11, 0));
    const state = new MemoryStrategyState();
    const portfolio = new MemoryPortfolio();
    const first = runStrategy(realitySession, candles.slice(0, cut), { params, state, portfolio });
    expect(first.intents.map((i) => i.tag)).toEqual(['breakout']);
    // A fresh run (a restarted daemon) on the rest of the day: no second entry, still the flatten.
    const second = runStrategy(realitySession, candles.slice(cut), { params, state, portfolio });
    expect(second.intents.map((i) => i.tag)).toEqual(['flatten']);
    expect(JSON.parse(state.toJSON() ?? '{}')).toMatchObject({
      AAPLUSDT: { day: date, high: 101, low: 99, entered: true },
    });
  });

  it('sells a position left from a missed flatten at the first regular candle of the next day', () => {
    const portfolio = new MemoryPortfolio();
    portfolio.setPosition('AAPLUSDT', '4', '100');
    const logger = new MemoryLogger();
    const r = runStrategy(
      realitySession,
      dayCandles('AAPLUSDT', '2026-01-09', () => 100),
      { params, portfolio, logger },
    );
    expect(r.intents.map((i) => i.tag)).toEqual(['carry-over']);
    expect(r.emittedAt[0]).toBe(etToUtc('2026-01-09', 9, 31));
    expect(logger.lines.map((l) => l.message)).toEqual(['reality-session found a position at the open']);
  });

  it('refuses to run when no candle would close inside the flatten window', () => {
    const c = dayCandles('AAPLUSDT', '2026-01-05', () => 100, OPEN, OPEN + 15)
      .filter((_, i) => i % 15 === 0)
      .map((x) => ({ ...x, interval: '15m' as const }));
    expect(() => runStrategy(realitySession, c, { params: { flattenMinutes: 10 } })).toThrow(
      /flattenMinutes 10 is shorter than the 15m candle interval: set flattenMinutes >= 15/,
    );
  });

  it('is flat at every close and emits only in the regular session, for any prices, days and parameters', () => {
    let traded = 0;
    const days = ['2026-01-05', '2026-03-06', '2026-03-09', '2026-07-02', '2026-11-02', '2026-11-27'];
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -0.02, max: 0.02, noNaN: true }), { minLength: 64, maxLength: 64 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        (steps, rangeMinutes, flattenMinutes, stopAtRangeLow) => {
          // A random walk (one step per 15 minutes of the day, interpolated) over several days in a row.
          const walk = (m: number): number => {
            let p = 100;
            const k = Math.floor(m / 15);
            for (let i = 0; i < k; i++) p *= 1 + (steps[i % steps.length] as number);
            return p * (1 + ((steps[k % steps.length] as number) * (m % 15)) / 15);
          };
          const candles = days.flatMap((d) => dayCandles('TSLAUSDT', d, walk, OPEN - 30, CLOSE + 30));
          const portfolio = new MemoryPortfolio();
          // 16:00 ET, or 13:00 on the early close of 2026-11-27.
          const closeOf = (d: string) => usRegularSession(d)?.close as number;
          const closes = new Set(days.map(closeOf));
          let flatAtEveryClose = true;
          const r = runStrategy(realitySession, candles, {
            params: { rangeMinutes, flattenMinutes, quoteAmount: '100', stopAtRangeLow },
            portfolio,
          });
          if (r.intents.length > 0) traded++;
          for (const t of r.emittedAt) expect(inRegular(t)).toBe(true);
          r.intents.forEach((i, n) => {
            const t = r.emittedAt[n] as number;
            if (i.side === 'buy') {
              const date = days.find((d) => t > etToUtc(d, 0, 0) && t < etToUtc(d, 23, 59)) as string;
              expect(t).toBeLessThan(closeOf(date) - flattenMinutes * MIN);
              expect(t).toBeGreaterThanOrEqual(etToUtc(date, 9, 30) + rangeMinutes * MIN);
            }
          });
          // Replaying the fills (at the close of the emitting candle, as the harness did) up to each
          // regular close shows a flat book there.
          const closeAt = new Map(candles.map((c) => [c.openTime + MIN, c.close]));
          const book = new MemoryPortfolio();
          let n = 0;
          for (const close of [...closes].sort()) {
            while (n < r.intents.length && (r.emittedAt[n] as number) < close) {
              book.fill(
                r.intents[n] as (typeof r.intents)[number],
                new Decimal(closeAt.get(r.emittedAt[n] as number) as number),
              );
              n++;
            }
            if (!book.position('TSLAUSDT').quantity.isZero()) flatAtEveryClose = false;
          }
          expect(flatAtEveryClose).toBe(true);
          expect(portfolio.position('TSLAUSDT').quantity.isZero()).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
    expect(traded).toBeGreaterThan(10); // the property is not vacuous
  });
});
