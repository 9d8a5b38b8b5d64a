// The report's second pass over the candles: the buy-and-hold benchmark at each equity sample.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import { analyseRun } from '../../../src/research/run-job.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { defineStrategy } from '../../../src/strategy/index.js';
import { closesSeries } from '../../helpers/candle-series.js';

const MONDAY_1000_ET = Date.UTC(2026, 10, 23, 15, 0);
const idle = defineStrategy({
  name: 'idle',
  description: 'test',
  params: z.object({}),
  intervals: ['1m'],
  onCandle: () => undefined,
});

describe('the benchmark of a run', () => {
  it('values buy and hold at each sample with the close of the candle the sample closed, not the next one', async () => {
    // Candles on the minute grid (as every recorded file is): a sample is taken at its candle's close, which
    // is the next candle's open time.
    const closes = [100, 110, 99, 120, 90, 105];
    const source = closesSeries(MONDAY_1000_ET, closes);
    const r = await runBacktest({
      source,
      dataset: 't',
      strategy: idle,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'] }),
      capital: '1000',
      equityEvery: 1,
    });
    const { benchmark } = await analyseRun(source, r);
    expect(r.equity.length).toBeGreaterThanOrEqual(closes.length);
    // The first candle opens at 100: buy and hold is worth 10 x each close.
    const expected = r.equity.map((s) => {
      const candle = Math.min(closes.length, (s.ts - MONDAY_1000_ET) / 60_000) - 1;
      return 10 * (closes[candle] as number);
    });
    expect(benchmark).toEqual(expected);
  });
});
