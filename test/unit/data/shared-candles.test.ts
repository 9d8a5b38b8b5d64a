// Sweeps load the dataset once into shared memory: the worker threads must see exactly the candles a
// single backtest streams, trade identically, and a dataset above the memory cap must not be shared.
import { describe, expect, it } from 'vitest';
import { openDataset } from '../../../src/data/datasets.js';
import { type BacktestJob } from '../../../src/backtest/run-config.js';
import { runJob } from '../../../src/research/run-job.js';
import {
  SHARED_BYTES_PER_CANDLE,
  shareCandles,
  sharedCandleSource,
} from '../../../src/data/shared-candles.js';
import { SweepPool, runSweep } from '../../../src/research/sweep.js';
import { candleRows } from '../../helpers/candle-series.js';

const ALL_SESSIONS = ['pre_market', 'regular', 'after_hours', 'overnight'] as const;
const job = (dataset: string, params: Record<string, unknown>): BacktestJob => ({
  dataset,
  strategy: 'ma-crossover',
  params: { quoteAmount: '1000', ...params },
  capital: '100000',
  feeRate: '0.001',
  slippageBps: 2,
  risk: { allowedSessions: [...ALL_SESSIONS], maxDataAgeMs: 604_800_000 },
});

describe('shared candles', () => {
  it('hold exactly the candles of the dataset, in order, across batch boundaries', async () => {
    const dataset = 'synthetic-1m:3:40000'; // more than two batches
    const shared = await shareCandles(openDataset(dataset));
    expect(shared?.length).toBe(40_000);
    expect(shared?.meta).toEqual(openDataset(dataset).meta);
    expect(await candleRows(sharedCandleSource(shared!))).toEqual(await candleRows(openDataset(dataset)));
  });

  it('give the same trades as streaming the dataset (same trade hash, same candle count)', async () => {
    const dataset = 'synthetic-1m:5:60000';
    const shared = await shareCandles(openDataset(dataset));
    const j = job(dataset, { fast: 10, slow: 40 });
    const streamed = await runJob(j);
    const fromShared = await runJob(j, undefined, sharedCandleSource(shared!));
    expect(streamed.result.fills.length).toBeGreaterThan(10);
    expect(fromShared.result.meta.tradeHash).toBe(streamed.result.meta.tradeHash);
    expect(fromShared.result.meta.candles).toBe(60_000);
  });

  it('are not made for a dataset above the memory cap (each job streams it instead)', async () => {
    const dataset = 'synthetic-1m:5:20000';
    expect(await shareCandles(openDataset(dataset), 19_999 * SHARED_BYTES_PER_CANDLE)).toBeUndefined();
    expect((await shareCandles(openDataset(dataset), 20_000 * SHARED_BYTES_PER_CANDLE))?.length).toBe(20_000);
  });

  it('reach the worker threads: a sweep row has the trade hash of the same job run in this thread', async () => {
    const dataset = 'synthetic-1m:9:30000';
    const rowsOut = await runSweep({
      base: job(dataset, {}),
      grid: { fast: ['8', '12'], slow: ['30'] },
      workers: 2,
    });
    expect(rowsOut.every((r) => r.error === undefined)).toBe(true);
    for (const r of rowsOut) {
      const here = await runJob(job(dataset, { fast: Number(r.params.fast), slow: Number(r.params.slow) }));
      expect(r.tradeHash).toBe(here.result.meta.tradeHash);
    }
  });

  it('a pool whose dataset is too large to share still runs every job, each streaming the dataset', async () => {
    const dataset = 'synthetic-1m:9:30000';
    const pool = await SweepPool.open({ dataset, workers: 1, sharedLimitBytes: 1 });
    try {
      expect(pool.shared).toBeUndefined();
      const [out] = await pool.run([job(dataset, { fast: 8, slow: 30 })]);
      const here = await runJob(job(dataset, { fast: 8, slow: 30 }));
      expect(out?.tradeHash).toBe(here.result.meta.tradeHash);
      // A job of another dataset would run on the wrong candles: refused, saying which.
      await expect(pool.run([job('synthetic-1m:1:100', {})])).rejects.toThrow(
        /holds synthetic-1m:9:30000, not synthetic-1m:1:100/,
      );
    } finally {
      await pool.close();
    }
  });
});
