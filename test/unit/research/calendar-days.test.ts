// The daily and monthly grouping of a curve: the same days and months as asking the zone at every point,
// across DST changes, a month's turn and a zone with a 45-minute offset.
import { describe, expect, it } from 'vitest';
import { dailyIndices, dayOf, monthOf, monthlyReturns } from '../../../src/research/metrics.js';
import type { EquityCurvePoint } from '../../../src/backtest/result.js';

const MIN = 60_000;

/** A point every `step` ms from `from` to `to`, with an equity that rises and falls so each month's return differs. */
function points(from: number, to: number, step: number): EquityCurvePoint[] {
  const out: EquityCurvePoint[] = [];
  for (let ts = from, i = 0; ts <= to; ts += step, i++) out.push({ ts, equity: 1000 + ((i * 7919) % 613) });
  return out;
}

/** The days' last indices asked of the zone point by point (the definition). */
function dailyByDefinition(curve: readonly EquityCurvePoint[], zone: string): number[] {
  const out: number[] = [];
  for (let i = 1; i < curve.length; i++)
    if (dayOf((curve[i] as EquityCurvePoint).ts, zone) !== dayOf((curve[i - 1] as EquityCurvePoint).ts, zone))
      out.push(i - 1);
  if (curve.length > 0) out.push(curve.length - 1);
  return out;
}

/** Each month's last equity over the previous month's last (the first over 1000), the zone asked at every point. */
function monthlyByDefinition(
  curve: readonly EquityCurvePoint[],
  zone: string,
): { month: string; return: number }[] {
  const last = new Map<string, number>();
  for (const p of curve) last.set(monthOf(p.ts - 1, zone), p.equity);
  let prev = 1000;
  return [...last].map(([month, e]) => {
    const r = { month, return: e / prev - 1 };
    prev = e;
    return r;
  });
}

const ZONES = ['UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu'];

describe('calendar days and months of a curve', () => {
  for (const zone of ZONES) {
    it(`groups 7-minute closes by the days and months of ${zone}, DST changes included`, () => {
      // 2024-03-01 to 2024-04-15 and 2024-10-20 to 2024-11-10 (UTC): both of each zone's changes that year.
      for (const [from, to] of [
        [Date.UTC(2024, 2, 1), Date.UTC(2024, 3, 15)],
        [Date.UTC(2024, 9, 20), Date.UTC(2024, 10, 10)],
      ] as const) {
        const curve = points(from + 17 * MIN + 250, to, 7 * MIN);
        expect(dailyIndices(curve, zone)).toEqual(dailyByDefinition(curve, zone));
        expect(monthlyReturns(1000, curve, zone)).toEqual(monthlyByDefinition(curve, zone));
      }
    });
  }
});
