// Metrics against values computed by hand on small series.
import { describe, expect, it } from 'vitest';
import { computeMetrics, drawdown } from '../../../src/backtest/metrics.js';
import type { BacktestTrade, EquityPoint } from '../../../src/backtest/result.js';

const DAY = 86_400_000;
const curve = (values: number[], exposed: boolean[] = values.map(() => true)): EquityPoint[] =>
  values.map((equity, i) => ({ ts: i * DAY, equity, exposed: exposed[i] as boolean }));
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
    const m = computeMetrics(100, curve([110, 99, 108.9], [true, false, true]), [], 0);
    expect(m.totalReturn).toBeCloseTo(0.089, 10);
    expect(m.sharpe).toBeCloseTo(5.5171, 3);
    expect(m.sortino).toBeCloseTo(11.0341, 3);
    expect(m.exposure).toBeCloseTo(2 / 3, 12);
    // drawdown 110 -> 99 = 10%
    expect(m.maxDrawdown).toBeCloseTo(0.1, 12);
  });

  it('CAGR and Calmar over a year', () => {
    // 100 -> 121 over two years (731 days): CAGR = 1.21^(365.25/730.5 ... ) computed from the span
    const pts: EquityPoint[] = [
      { ts: 0, equity: 100, exposed: true },
      { ts: 365.25 * DAY, equity: 90, exposed: true },
      { ts: 730.5 * DAY, equity: 121, exposed: true },
    ];
    const m = computeMetrics(100, pts, [], 0);
    expect(m.cagr).toBeCloseTo(0.1, 10); // sqrt(1.21) - 1
    expect(m.maxDrawdown).toBeCloseTo(0.1, 10);
    expect(m.calmar).toBeCloseTo(1, 10);
  });

  it('win rate, profit factor and expectancy from round trips', () => {
    // wins 30 + 10 = 40, losses 20 -> PF 2; expectancy (30 + 10 - 20)/3 = 6.6667; win rate 2/3
    const m = computeMetrics(100, curve([100]), [trade('30'), trade('-20'), trade('10')], 1.5);
    expect(m.profitFactor).toBeCloseTo(2, 12);
    expect(m.expectancy).toBeCloseTo(20 / 3, 12);
    expect(m.winRate).toBeCloseTo(2 / 3, 12);
    expect(m.trades).toBe(3);
    expect(m.bySymbol.X).toEqual({ trades: 3, pnl: 20, winRate: 2 / 3 });
  });
});
