// Every headline figure of result.json recomputed independently (issue 41), from result.json's equity (a point
// at every candle's close) and trades, written out plainly here and not with the product's metrics: the bundled
// strategies on the S&P 500 daily series and on a synthetic 1m series, each run as `tradebot backtest` makes
// result.json (the buy-and-hold benchmark, the exchange's zone for daily returns).
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import { openDataset } from '../../../src/data/datasets.js';
import { Decimal } from '../../../src/market/decimal.js';
import { metricsOf } from '../../../src/research/metrics.js';
import { exchangeTimeZone } from '../../../src/research/report.js';
import { resultJson } from '../../../src/research/result-json.js';
import { analyseRuns } from '../../../src/research/run-job.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { loadStrategy } from '../../../src/strategy/loader.js';

const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
const DAY = 86_400_000;
const YEAR = 365.25 * DAY;
const INTERVAL: Record<string, number> = { '1m': 60_000, '1D': DAY };

interface Json {
  meta: { from: number; to: number; interval: string; capital: string; candles: number };
  finalEquity: string;
  fees: string;
  metrics: Record<string, number | string>;
  inMarket: { steps: number; held: number };
  equityPoints: { closes: number; stored: number };
  equity: { ts: number; equity: string }[];
  trades: { entryTime: number; exitTime: number; pnl: string; fees: string }[];
  openPositions: { entryTime: number; unrealisedPnl: string }[];
  fills: { fee: string }[];
}

/** result.json of a run, as `tradebot backtest` writes it. */
async function resultOf(
  strategyName: string,
  dataset: string,
  params: Record<string, unknown>,
): Promise<Json> {
  const strategy = await loadStrategy(strategyName);
  const r = await runBacktest({
    source: openDataset(dataset),
    dataset,
    strategy,
    params,
    risk: RISK,
    capital: '10000',
    feeRate: '0.001',
    slippageBps: 2,
  });
  const again = openDataset(dataset);
  const { zone } = exchangeTimeZone(again.meta.instrument);
  const analysis = await analyseRuns(again, r);
  const m = metricsOf(r, { benchmark: analysis.benchmark, timeZone: zone });
  return JSON.parse(JSON.stringify(resultJson(r, m, 8))) as Json;
}

/** The figures, computed here from nothing but result.json's equity, trades and meta. */
function recompute(j: Json, zone: string) {
  const capital = Number(j.meta.capital);
  const points = j.equity.map((p) => ({ ts: p.ts, e: Number(p.equity) }));
  const final = points[points.length - 1]?.e ?? capital;
  // Max drawdown: the running peak of every close, the capital at the first open included.
  let peak = capital;
  let peakTs = j.meta.from;
  let maxDd = 0;
  let longest = 0;
  for (const p of points) {
    if (p.e >= peak) {
      longest = Math.max(longest, p.ts - peakTs);
      peak = p.e;
      peakTs = p.ts;
    } else maxDd = Math.max(maxDd, (peak - p.e) / peak);
  }
  const last = points[points.length - 1];
  if (last !== undefined && last.e < peak) longest = Math.max(longest, last.ts - peakTs);
  // The span: first open to last close.
  const span = j.meta.to + (INTERVAL[j.meta.interval] as number) - j.meta.from;
  const years = span / YEAR;
  const cagr = (final / capital) ** (1 / years) - 1;
  // Daily returns: the last close of each day in the exchange's zone (a close at 00:00 ends the day before).
  const dayOf = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const byDay = new Map<string, number>();
  for (const p of points) byDay.set(dayOf.format(p.ts - 1), p.e);
  const closes = [capital, ...byDay.values()];
  const rets = closes.slice(1).map((c, i) => c / (closes[i] as number) - 1);
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  const sd = Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1));
  const down = Math.sqrt(rets.reduce((a, r) => a + Math.min(0, r) ** 2, 0) / rets.length);
  const perYear = rets.length / years;
  // Trades: money in Decimal.
  const pnls = j.trades.map((t) => new Decimal(t.pnl));
  const wins = pnls.filter((p) => p.gt(0));
  const gross = wins.reduce((a, b) => a.plus(b), new Decimal(0));
  const loss = pnls.filter((p) => p.lt(0)).reduce((a, b) => a.minus(b), new Decimal(0));
  const net = pnls.reduce((a, b) => a.plus(b), new Decimal(0));
  // Exposure: the closes at which a trade (or a position still open) was held.
  const spans = [
    ...j.trades.map((t) => [t.entryTime, t.exitTime] as const),
    ...j.openPositions.map((p) => [p.entryTime, Infinity] as const),
  ];
  const held = points.filter((p) => spans.some(([a, b]) => a < p.ts && p.ts <= b)).length;
  const unrealised = j.openPositions.reduce((a, p) => a.plus(p.unrealisedPnl), new Decimal(0));
  return {
    totalReturn: final / capital - 1,
    cagr,
    maxDrawdown: maxDd,
    maxDrawdownDurationMs: maxDd === 0 ? 0 : longest,
    sharpe: (mean / sd) * Math.sqrt(perYear),
    sortino: (mean / down) * Math.sqrt(perYear),
    calmar: cagr / maxDd,
    winRate: wins.length / j.trades.length,
    profitFactor: gross.div(loss).toNumber(),
    expectancy: net.div(j.trades.length).toDecimalPlaces(8).toFixed(),
    exposure: held / points.length,
    trades: j.trades.length,
    fees: j.fills.reduce((a, f) => a.plus(f.fee), new Decimal(0)).toFixed(),
    finalEquity: new Decimal(j.meta.capital).plus(net).plus(unrealised).toFixed(),
  };
}

const RUNS: [string, Record<string, unknown>][] = [
  ['ma-crossover', { fast: 20, slow: 100, quoteAmount: '5000' }],
  ['rsi-mean-reversion', {}],
  ['bollinger-reversion', {}],
];
const DATASETS: [string, string][] = [
  ['sp500-daily', 'America/New_York'],
  ['synthetic-1m:11:20000', 'UTC'],
];

describe('every headline figure of result.json equals an independent recomputation', () => {
  for (const [dataset, zone] of DATASETS)
    for (const [strategy, params] of RUNS)
      it(`${strategy} on ${dataset}`, async () => {
        const j = await resultOf(strategy, dataset, params);
        // The whole curve is stored: a point at every candle's close.
        expect(j.equity).toHaveLength(j.meta.candles);
        expect(j.equityPoints).toEqual(
          expect.objectContaining({ closes: j.meta.candles, stored: j.meta.candles }),
        );
        expect(j.trades.length).toBeGreaterThan(2);
        const x = recompute(j, zone);
        const m = j.metrics;
        for (const k of [
          'totalReturn',
          'cagr',
          'maxDrawdown',
          'sharpe',
          'sortino',
          'calmar',
          'winRate',
          'profitFactor',
          'exposure',
        ] as const)
          expect(m[k], k).toBeCloseTo(x[k], 6);
        expect(m.maxDrawdownDurationMs).toBe(x.maxDrawdownDurationMs);
        expect(m.trades).toBe(x.trades);
        expect(m.expectancy).toBe(x.expectancy);
        expect(new Decimal(m.fees as string).toFixed()).toBe(x.fees);
        expect(j.fees).toBe(x.fees);
        expect(j.finalEquity).toBe(x.finalEquity);
        expect(m.finalEquity).toBe(x.finalEquity);
        // Exposure is also what the replay counted per step.
        expect(j.inMarket.held / j.inMarket.steps).toBeCloseTo(x.exposure, 12);
      });
});
