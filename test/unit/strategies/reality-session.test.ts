// reality-session through the one pipeline (a backtest on scripted one-minute days): the opening range,
// the breakout, the range stop, no late entry, and flat at every close by the built-in session-end exit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import type { CandleSource } from '../../../src/data/format.js';
import type { BacktestFill } from '../../../src/backtest/result.js';
import { etToUtc, usRegularSession } from '../../../src/market/sessions.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import realitySession from '../../../strategies/reality-session.js';
import { INSTRUMENT } from '../../integration/backtest/fixtures/exit-cases.js';
import { barsSource, type TimedBar } from '../../helpers/candle-series.js';

const MIN = 60_000;
const OPEN = 9 * 60 + 30;
const CLOSE = 16 * 60;
const RISK = RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 3_600_000 });
const EVERY_SESSION = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 3_600_000,
});
const NOT_REALITY = { ...INSTRUMENT, isReality: 'no' };

/** One-minute candles of ET dates from `fromMin` to `toMin` (minutes of the ET day), closes from `price`. */
function days(
  dates: readonly string[],
  price: (m: number) => number,
  fromMin = 4 * 60,
  toMin = 20 * 60,
  instrument = INSTRUMENT,
): CandleSource {
  const rows: TimedBar[] = [];
  for (const date of dates) {
    const t0 = etToUtc(date, 0, 0);
    let prev = price(fromMin);
    for (let m = fromMin; m < toMin; m++) {
      const close = price(m);
      rows.push([t0 + m * MIN, prev, Math.max(prev, close), Math.min(prev, close), close]);
      prev = close;
    }
  }
  return barsSource(rows, instrument);
}

const run = (source: CandleSource, params: Record<string, unknown> = {}, risk = RISK) =>
  runBacktest({
    source,
    dataset: 'reality-session',
    strategy: realitySession,
    params: { rangeMinutes: 15, quoteAmount: '500', ...params },
    risk,
    capital: '10000',
    feeRate: '0',
  });

/** Wild pre-market, a 99-101 opening range, a breakout at 10:00 ET, then a wild after-hours. */
const breakoutDay = (m: number): number => {
  if (m < OPEN) return m < OPEN - 1 ? 90 + ((m * 7) % 40) : 100;
  if (m < OPEN + 15) return [100, 101, 99][m % 3] as number;
  if (m < 10 * 60) return 100;
  if (m < CLOSE) return 102 + (m % 5);
  return 150 - (m % 30);
};

describe('reality-session', () => {
  // The strategy's own exits: { sessionEnd: ['regular'] }: out before after-hours, also under a risk that
  // allows every session (the default of a backtest file), which a `sessionEnd: true` exit would hold through
  // (and the position would ride the wild after-hours), and on a pair that is not a Reality token.
  it.each([
    ['under a risk of the regular session only', RISK, INSTRUMENT],
    ['under a risk that allows every session (the default of a backtest file)', EVERY_SESSION, INSTRUMENT],
    ['on a pair that is not a Reality token (a synthetic stand-in for a stock)', EVERY_SESSION, NOT_REALITY],
  ])(
    'buys the breakout of the opening range and is flat before the 16:00 ET close (session-end exit), %s',
    async (_case, risk, instrument) => {
      const date = '2026-01-05';
      const r = await run(days(['2026-01-02', date], breakoutDay, 4 * 60, 20 * 60, instrument), {}, risk);
      const today = r.fills.filter((f) => f.ts > etToUtc(date, 0, 0));
      expect(today.map((f) => `${f.side} ${f.tag}`)).toEqual(['buy breakout', 'sell session_end']);
      // Decided at 10:01 (the 10:00 candle's close), filled at the 10:01 open; out in the 15:59 candle.
      expect(today.map((f) => f.ts)).toEqual([etToUtc(date, 10, 1), etToUtc(date, 15, 59)]);
    },
  );

  it('sells at the range low after an entry and does not enter twice in a day', async () => {
    const fade = (m: number): number => {
      if (m < OPEN + 15) return [100, 101, 99][m % 3] as number;
      if (m < 10 * 60) return 102;
      if (m < 11 * 60) return 98;
      return 103;
    };
    const r = await run(days(['2026-01-07'], fade, 9 * 60, CLOSE));
    expect(r.fills.map((f) => `${f.side} ${f.tag}`)).toEqual(['buy breakout', 'sell range-stop']);
  });

  it('never enters in the last noEntryMinutes of the session', async () => {
    const late = (m: number): number =>
      m < OPEN + 15 ? ([100, 101, 99][m % 3] as number) : m < 15 * 60 + 52 ? 100 : 110;
    expect((await run(days(['2026-01-06'], late))).fills).toEqual([]);
  });

  /**
   * Runs a 15-minute random walk (one step per quarter hour, `steps` repeated) over six dates (a Monday, a
   * Friday before a DST change, the Monday after, a day before a holiday, a Monday after the fall change,
   * the half day after Thanksgiving) and checks that every fill is inside a regular session and the
   * position is flat at each close. Answers the fills.
   */
  const flatAtEveryClose = async (
    steps: readonly number[],
    rangeMinutes: number,
    stopAtRangeLow: boolean,
  ): Promise<readonly BacktestFill[]> => {
    const dates = ['2026-01-05', '2026-03-06', '2026-03-09', '2026-07-02', '2026-11-02', '2026-11-27'];
    const walk = (m: number): number => {
      let p = 100;
      const k = Math.floor(m / 15);
      for (let i = 0; i < k; i++) p *= 1 + (steps[i % steps.length] as number);
      return p * (1 + ((steps[k % steps.length] as number) * (m % 15)) / 15);
    };
    const r = await run(days(dates, walk, OPEN - 30, CLOSE + 30), { rangeMinutes, stopAtRangeLow });
    for (const date of dates) {
      const session = usRegularSession(date);
      if (session === undefined) continue;
      let held = 0;
      for (const f of r.fills) {
        expect(f.ts >= session.open || f.ts < etToUtc(date, 0, 0) || f.ts >= session.close).toBe(true);
        if (f.ts < session.close) held += f.side === 'buy' ? Number(f.size) : -Number(f.size);
      }
      expect(Math.abs(held)).toBeLessThan(1e-9); // flat at the close (16:00, or 13:00 on 2026-11-27)
    }
    return r.fills;
  };

  it('is flat at every close on a steady climb that breaks out every day (the property below is not vacuous)', async () => {
    // Up 0.5% every quarter hour: each day's range is broken right after it forms, and the position is
    // still open at the close, so the session-end exit must take it out on all six dates.
    const fills = await flatAtEveryClose([0.005], 15, false);
    expect(fills.map((f) => `${f.side} ${f.tag}`)).toEqual(
      Array.from({ length: 6 }, () => ['buy breakout', 'sell session_end']).flat(),
    );
  });

  it('is flat at every close and trades only in the regular session, for any prices, days and parameters', async () => {
    let traded = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.double({ min: -0.02, max: 0.02, noNaN: true }), { minLength: 64, maxLength: 64 }),
        fc.integer({ min: 1, max: 60 }),
        fc.boolean(),
        async (steps, rangeMinutes, stopAtRangeLow) => {
          if ((await flatAtEveryClose(steps, rangeMinutes, stopAtRangeLow)).length > 0) traded++;
        },
      ),
      { numRuns: 15 },
    );
    // About half of the random walks trade; none trading (p < 1e-4) would mean the generator broke.
    expect(traded).toBeGreaterThan(0);
  }, 60_000);
});
