// A backtest runs at the bot's interval (issue 30): a 5m strategy on 1m data runs on 5m candles resampled by the
// live feeds' resampler and says so; data that cannot make the interval is refused with a sentence; synthetic
// datasets take an interval.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CandleInterval } from '../../../src/api/index.js';
import { runBacktest } from '../../../src/backtest/engine.js';
import { jobFromConfig } from '../../../src/backtest/run-config.js';
import { BacktestConfigSchema } from '../../../src/config/backtest-schema.js';
import { openDataset } from '../../../src/data/datasets.js';
import { CandleFileError, candlesOf } from '../../../src/data/format.js';
import type { Candle } from '../../../src/market/candle.js';
import { Decimal } from '../../../src/market/decimal.js';
import { formatSummary } from '../../../src/research/metrics.js';
import { runJob } from '../../../src/research/run-job.js';
import { lookahead } from '../../../src/research/lookahead.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { StrategyDefinitionError } from '../../../src/strategy/contract.js';
import { buyMarket, defineStrategy, sellMarket } from '../../../src/strategy/index.js';

const ALL = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
const M = 60_000;

/** Records every candle it is handed; buys on its 3rd base candle and sells on its 6th (a trade to look at). */
const recording = (seen: Candle[], intervals: CandleInterval[], informative: CandleInterval[] = []) =>
  defineStrategy({
    name: 'recording',
    description: 'Records the candles it sees.',
    params: z.object({}),
    intervals,
    informative,
    init: () => ({ base: 0 }),
    onCandle(c, ctx, emit, state) {
      seen.push(c);
      if (!informative.includes(c.interval)) {
        const n = ++state.base;
        if (n === 3) emit(buyMarket(c.symbol, new Decimal(100), 'in', 'third candle'));
        const held = ctx.portfolio.position(c.symbol).quantity;
        if (n === 6 && held.gt(0)) emit(sellMarket(c.symbol, held, 'out', 'sixth candle'));
      }
    },
  });

const run = (
  dataset: string,
  strategy: ReturnType<typeof recording>,
  interval?: CandleInterval,
): ReturnType<typeof runBacktest> =>
  runBacktest({ source: openDataset(dataset), dataset, strategy, interval, risk: ALL });

describe('a backtest at the bot interval', () => {
  it('runs a strategy that declares only 5m on 1m data at 5m, resampled, and says so in meta and the summary', async () => {
    const seen: Candle[] = [];
    const r = await run('synthetic-1m:3:1000', recording(seen, ['5m']));
    expect(r.meta.interval).toBe('5m');
    expect(r.meta.resampledFrom).toBe('1m');
    // 1,000 one-minute candles from a 5-minute boundary: 200 five-minute candles, each seen once.
    expect(r.meta.candles).toBe(200);
    expect(seen).toHaveLength(200);
    expect(new Set(seen.map((c) => c.interval))).toEqual(new Set(['5m']));
    expect(seen.every((c, i) => i === 0 || c.openTime - (seen[i - 1] as Candle).openTime === 5 * M)).toBe(
      true,
    );
    // Orders fill at a 5m candle's open: the trade's times are on the 5-minute grid.
    expect(r.trades).toHaveLength(1);
    for (const f of r.fills) expect(f.ts % (5 * M)).toBe(0);
    expect(formatSummary(r)).toMatch(/interval +5m \(resampled from 1m\)/);
  });

  it('builds each 5m candle from its five 1m candles (open, high, low, close, volume)', async () => {
    const seen: Candle[] = [];
    await run('synthetic-1m:3:10', recording(seen, ['5m']));
    const ones: Candle[] = [];
    for await (const c of candlesOf(openDataset('synthetic-1m:3:10'))) ones.push(c);
    const first = ones.slice(0, 5);
    expect(seen[0]).toMatchObject({
      interval: '5m',
      openTime: first[0]?.openTime,
      open: first[0]?.open,
      high: Math.max(...first.map((c) => c.high)),
      low: Math.min(...first.map((c) => c.low)),
      close: first[4]?.close,
    });
    expect(seen[0]?.volume).toBeCloseTo(
      first.reduce((s, c) => s + c.volume, 0),
      9,
    );
  });

  it('takes the interval asked for (a backtest file interval) over the data: the strategy sees 5m candles', async () => {
    const at1m: Candle[] = [];
    const at5m: Candle[] = [];
    const asIs = await run('synthetic-1m:3:1000', recording(at1m, ['1m', '5m']));
    const asked = await run('synthetic-1m:3:1000', recording(at5m, ['1m', '5m']), '5m');
    expect(asIs.meta).toMatchObject({ interval: '1m', candles: 1000 });
    expect(asIs.meta.resampledFrom).toBeUndefined();
    expect(at1m).toHaveLength(1000);
    expect(asked.meta).toMatchObject({ interval: '5m', resampledFrom: '1m', candles: 200 });
    expect(at5m).toHaveLength(200);
  });

  it("builds informative candles from the run's candles, as a live bot from its interval's", async () => {
    const seen: Candle[] = [];
    const r = await run('synthetic-1m:3:600', recording(seen, ['5m'], ['1H']));
    expect(r.meta).toMatchObject({ interval: '5m', resampledFrom: '1m', informative: ['1H'] });
    const hours = seen.filter((c) => c.interval === '1H');
    expect(hours).toHaveLength(10);
    // Each hour is handed over with the 5m candle that closes it, before it, never earlier.
    for (const h of hours) {
      const i = seen.indexOf(h);
      expect(seen[i + 1]).toMatchObject({ interval: '5m', openTime: h.openTime + 55 * M });
    }
  });

  it('refuses data that cannot make the interval: 5m from 3m candles, 1m from 5m candles, with the fix', async () => {
    await expect(run('synthetic-3m:3:500', recording([], ['5m']))).rejects.toThrow(CandleFileError);
    await expect(run('synthetic-3m:3:500', recording([], ['5m']))).rejects.toThrow(
      "dataset synthetic-3m:3:500 holds 3m candles and the run's interval is 5m: 5m is not a whole number of 3m candles; give 5m data or data that divides it (1m)",
    );
    await expect(run('synthetic-5m:3:500', recording([], ['1m', '15m']), '1m')).rejects.toThrow(
      "dataset synthetic-5m:3:500 holds 5m candles and the run's interval is 1m: 1m candles cannot be made from longer 5m ones; give 1m data, or set interval to one this data makes that the strategy declares (15m)",
    );
  });

  it('refuses an interval the strategy does not declare, as it would be refused live', async () => {
    await expect(run('synthetic-1m:3:500', recording([], ['5m']), '1m')).rejects.toThrow(
      StrategyDefinitionError,
    );
    await expect(run('synthetic-1m:3:500', recording([], ['5m', '15m']), '1m')).rejects.toThrow(
      `strategy "recording" declares the intervals 5m, 15m, and the run's interval is 1m: set interval to one of them`,
    );
  });
});

describe('the run configuration', () => {
  it("carries a backtest file's interval to every run of a job: a backtest, a sweep's, walk-forward's", async () => {
    const cfg = BacktestConfigSchema.parse({
      dataset: 'synthetic-1m:3:3000',
      strategy: 'ma-crossover',
      params: { fast: 5, slow: 20, quoteAmount: '1000' },
      interval: '5m',
      risk: { allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'] },
    });
    const { result } = await runJob(jobFromConfig(cfg));
    expect(result.meta).toMatchObject({ interval: '5m', resampledFrom: '1m', candles: 600 });
  });
});

describe('the lookahead check', () => {
  it('replays and cuts the candles the run is at: a 5m strategy on 1m data is checked on its 5m candles', async () => {
    const dataset = 'synthetic-1m:3:1000';
    const report = await lookahead({
      source: openDataset(dataset),
      dataset,
      strategy: recording([], ['5m']),
      risk: ALL,
      cuts: 4,
    });
    expect(report.steps).toBe(200);
    expect(report.cuts.every((t) => t % (5 * M) === 0)).toBe(true);
    expect(report.findings).toEqual([]);
  });
});

describe('synthetic datasets', () => {
  it('take an interval: synthetic-5m:3:100 is 100 candles 5 minutes apart, and 1m is as it was', async () => {
    const src = openDataset('synthetic-5m:3:100');
    expect(src.meta.interval).toBe('5m');
    const times: number[] = [];
    for await (const c of candlesOf(src)) times.push(c.openTime);
    expect(times).toHaveLength(100);
    expect(times.every((t, i) => t === Date.UTC(2025, 0, 6) + i * 5 * M)).toBe(true);
    // The one-minute series is byte for byte what it was before synthetic datasets took an interval.
    const hash = createHash('sha256');
    for await (const c of candlesOf(openDataset('synthetic-1m:3:5000')))
      hash.update(`${c.openTime},${c.open},${c.high},${c.low},${c.close},${c.volume},${c.turnover}\n`);
    expect(hash.digest('hex').slice(0, 12)).toBe('5d48892b2a7d');
  });

  it('refuse an interval that is none, with the list', () => {
    expect(() => openDataset('synthetic-2m:3:100')).toThrow(
      /dataset synthetic-2m:3:100: write synthetic-<interval>:<seed>:<count> with an interval of 1m, 3m, 5m/,
    );
  });
});
