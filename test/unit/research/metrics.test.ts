// Metrics against values computed by hand on small series.
import { describe, expect, it } from 'vitest';
import { computeMetrics, drawdown, monthlyReturns } from '../../../src/research/metrics.js';
import { Decimal } from '../../../src/market/decimal.js';
import type { BacktestTrade, EquityCurvePoint } from '../../../src/backtest/result.js';

const DAY = 86_400_000;
const curve = (values: number[]): EquityCurvePoint[] => values.map((equity, i) => ({ ts: i * DAY, equity }));
/** No time step counted (exposure 0). */
const NONE = { steps: 0, held: 0 };
const trade = (pnl: string): BacktestTrade => ({
  symbol: 'X',
  side: 'long',
  entryTime: 0,
  exitTime: 1,
  entryPrice: '1',
  exitPrice: '1',
  quantity: '1',
  pnl,
  fees: '0',
  entryTag: 'in',
  exitReason: 'out',
});

describe('metrics', () => {
  it('drawdown and its duration', () => {
    // peak 120 at day 1, trough 90 at day 3: (120-90)/120 = 0.25; recovered at day 5 (130): 4 days.
    const d = drawdown(curve([100, 120, 100, 90, 110, 130]));
    expect(d.max).toBeCloseTo(0.25, 12);
    expect(d.durationMs).toBe(4 * DAY);
  });

  it('returns, Sharpe, Sortino and exposure', () => {
    // initial 100, samples 110, 99, 108.9: returns +10%, -10%, +10%
    // mean = 0.1/3 = 0.033333; sample sd = sqrt(((0.0667)^2*2 + (0.1333)^2)/2) = 0.115470
    // daily samples -> 365.25 periods a year; Sharpe = 0.033333/0.115470*sqrt(365.25) = 5.5171
    // downside dev = sqrt(0.01/3) = 0.057735; Sortino = 0.033333/0.057735*sqrt(365.25) = 11.0341
    const m = computeMetrics('100', curve([110, 99, 108.9]), [], '0', { steps: 3, held: 2 });
    expect(m.totalReturn).toBeCloseTo(0.089, 10);
    expect(m.sharpe).toBeCloseTo(5.5171, 3);
    expect(m.sortino).toBeCloseTo(11.0341, 3);
    expect(m.exposure).toBeCloseTo(2 / 3, 12);
    // drawdown 110 -> 99 = 10%
    expect(m.maxDrawdown).toBeCloseTo(0.1, 12);
  });

  it('annualises by the samples a year holds: weekday samples of a stock are 5 in 7 days, not 7', () => {
    // Four weeks of weekday samples (Mon-Fri, 20 of them over 25 days), alternating +1% and -0.5%.
    const pts: EquityCurvePoint[] = [];
    let e = 100;
    for (let w = 0; w < 4; w++)
      for (let d = 0; d < 5; d++) {
        e *= pts.length % 2 === 0 ? 1.01 : 0.995;
        pts.push({ ts: (w * 7 + d) * DAY, equity: e });
      }
    const m = computeMetrics('100', pts, [], '0', NONE);
    const values = [100, ...pts.map((p) => p.equity)];
    const returns = values.slice(1).map((v, i) => v / (values[i] as number) - 1);
    const mu = returns.reduce((a, r) => a + r, 0) / returns.length;
    const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mu) ** 2, 0) / (returns.length - 1));
    // 19 intervals over 25 days: 19 / 25 x 365.25 = 277.6 a year (a one-day spacing would say 365.25).
    expect(m.sharpe).toBeCloseTo((mu / sd) * Math.sqrt((19 / 25) * 365.25), 9);
  });

  it('CAGR and Calmar over a year', () => {
    // 100 -> 121 over two years (731 days): CAGR = 1.21^(365.25/730.5 ... ) computed from the span
    const pts: EquityCurvePoint[] = [
      { ts: 0, equity: 100 },
      { ts: 365.25 * DAY, equity: 90 },
      { ts: 730.5 * DAY, equity: 121 },
    ];
    const m = computeMetrics('100', pts, [], '0', NONE);
    expect(m.cagr).toBeCloseTo(0.1, 10); // sqrt(1.21) - 1
    expect(m.maxDrawdown).toBeCloseTo(0.1, 10);
    expect(m.calmar).toBeCloseTo(1, 10);
  });

  it('win rate, profit factor and expectancy from round trips', () => {
    // wins 30 + 10 = 40, losses 20 -> PF 2; expectancy (30 + 10 - 20)/3 = 6.6667; win rate 2/3
    const m = computeMetrics('100', curve([100]), [trade('30'), trade('-20'), trade('10')], '1.5', NONE);
    expect(m.profitFactor).toBeCloseTo(2, 12);
    expect(m.expectancy).toBe(new Decimal(20).div(3).toDecimalPlaces(8).toFixed()); // a decimal string
    expect(m.winRate).toBeCloseTo(2 / 3, 12);
    expect(m.trades).toBe(3);
    expect(m.fees).toBe('1.5');
  });

  it('money is exact decimal strings: final equity, fees and expectancy', () => {
    // 0.1 + 0.2 in floats is 0.30000000000000004; in Decimal it is 0.3, and its mean 0.15.
    const m = computeMetrics('100', curve([100.3]), [trade('0.1'), trade('0.2')], '0.000001', NONE, {
      finalEquity: '100.3',
    });
    expect(m.finalEquity).toBe('100.3');
    expect(m.fees).toBe('0.000001');
    expect(m.expectancy).toBe('0.15');
  });

  it('buy-and-hold benchmark: its return, drawdown, excess return, beta and alpha', () => {
    // strategy 100 -> 110, 99, 108.9: returns rs = +10%, -10%, +10% (mean 1/30)
    // benchmark 100 -> 105, 94.5, 103.95: returns rb = +5%, -10%, +10% (mean 1/60)
    // deviations rs: 1/15, -2/15, 1/15; rb: 1/30, -7/60, 1/12
    // cov = 1/450 + 14/900 + 1/180 = 0.0233333; var(rb) = 1/900 + 49/3600 + 1/144 = 0.0216667
    // beta = 0.0233333 / 0.0216667 = 14/13; alpha = (1/30 - 14/13 * 1/60) * 365.25 = 365.25/65 = 5.619231
    // excess = 0.089 - 0.0395 = 0.0495; benchmark drawdown 105 -> 94.5 = 10%
    const m = computeMetrics('100', curve([110, 99, 108.9]), [], '0', NONE, {
      benchmark: [105, 94.5, 103.95],
    });
    expect(m.benchmark?.totalReturn).toBeCloseTo(0.0395, 12);
    expect(m.benchmark?.excessReturn).toBeCloseTo(0.0495, 12);
    expect(m.benchmark?.beta).toBeCloseTo(14 / 13, 10);
    expect(m.benchmark?.alpha).toBeCloseTo(365.25 / 65, 8);
    expect(m.benchmark?.maxDrawdown).toBeCloseTo(0.1, 12);
    // no benchmark when its series does not match the curve
    expect(
      computeMetrics('100', curve([110, 99]), [], '0', NONE, { benchmark: [1] }).benchmark,
    ).toBeUndefined();
  });

  it('monthly returns: each month from the previous month-end, in the exchange time zone', () => {
    // samples at 00:00 UTC on Jan 30, Jan 31, Feb 1, Feb 2: 110, 99, 108.9, 120 (initial 100)
    const pts = [110, 99, 108.9, 120].map((equity, i) => ({
      ts: Date.UTC(2024, 0, 30 + i),
      equity,
    }));
    // UTC: a sample is its candle's close, and the one at Feb 1 00:00 closes Jan 31: January ends at 108.9
    expect(monthlyReturns(100, pts, 'UTC').map((x) => [x.month, x.return])).toEqual([
      ['2024-01', expect.closeTo(0.089, 12)],
      ['2024-02', expect.closeTo(120 / 108.9 - 1, 12)],
    ]);
    // One taken a minute into February counts in February.
    const late = pts.map((p) => ({ ...p, ts: p.ts + 60_000 }));
    expect(monthlyReturns(100, late, 'UTC').map((x) => [x.month, x.return])).toEqual([
      ['2024-01', expect.closeTo(-0.01, 12)],
      ['2024-02', expect.closeTo(120 / 99 - 1, 12)],
    ]);
    // New York: Feb 1 00:00 UTC is still Jan 31 (19:00 EST), so January ends at 108.9 there too
    const ny = computeMetrics('100', pts, [], '0', NONE, { timeZone: 'America/New_York' }).monthly;
    expect(ny.map((x) => [x.month, x.return])).toEqual([
      ['2024-01', expect.closeTo(0.089, 12)],
      ['2024-02', expect.closeTo(120 / 108.9 - 1, 12)],
    ]);
  });

  it("CAGR over the run's span, first open to last close: 31 days and -1.127% are -12.50% a year", () => {
    // Daily closes at the end of each of 31 days; the run opened a day before the first close.
    const points = Array.from({ length: 31 }, (_, i) => ({
      ts: (i + 1) * DAY,
      equity: i === 30 ? 98.873 : 100,
    }));
    const m = computeMetrics('100', points, [], '0', NONE, { start: 0, spanMs: 31 * DAY });
    expect(m.cagr).toBeCloseTo(0.98873 ** (365.25 / 31) - 1, 12);
    expect(m.cagr * 100).toBeCloseTo(-12.5, 1);
    // Intraday closes: the max drawdown sees the trough between two daily closes, from the capital's peak.
    const intraday = [
      { ts: DAY / 2, equity: 94 },
      { ts: DAY, equity: 100 },
    ];
    expect(computeMetrics('100', intraday, [], '0', NONE, { start: 0, spanMs: DAY }).maxDrawdown).toBeCloseTo(
      0.06,
      12,
    );
  });
});
