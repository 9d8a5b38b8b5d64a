// A MARGIN backtest: a short borrows within the leverage set at start (the simulator's margin model,
// src/market/margin.ts, through the in-process venue), and the gate judges the borrow.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closesSeries } from '../../helpers/candle-series.js';
import { runBacktest } from '../../../src/backtest/engine.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { defineStrategy, sellShort } from '../../../src/strategy/index.js';

const ALL = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
const MONDAY_1000_ET = Date.UTC(2026, 10, 23, 15, 0);

const shortOnce = (qty: string) =>
  defineStrategy({
    name: 'short-once',
    description: 'test',
    params: z.object({}),
    intervals: ['1m'],
    init: () => ({ n: 0 }),
    onCandle(c, ctx, emit, st) {
      if (++st.n === 1) emit(sellShort(c.symbol, qty, 'short', 'first candle'));
    },
  });

const run = (qty: string, closes: number[], leverage = '3') =>
  runBacktest({
    source: closesSeries(MONDAY_1000_ET, closes),
    dataset: 't',
    strategy: shortOnce(qty),
    risk: ALL,
    capital: '1000',
    feeRate: '0.001',
    margin: { leverage: { SPX: leverage } },
  });

describe('MARGIN backtest', () => {
  it('opens a short by borrowing, within the leverage the gate allows', async () => {
    const r = await run('0.15', [5000, 5000, 5000, 5000]);
    expect(r.fills.map((f) => `${f.side} ${f.size}`)).toEqual(['sell 0.15']);
    const denied = await run('0.15', [5000, 5000, 5000, 5000], '1');
    expect(denied.fills).toEqual([]);
  });
});

describe('ma-crossover-short (strategies/)', () => {
  it('shorts on the death cross and covers on the golden cross, in a MARGIN backtest', async () => {
    const { default: strategy } = await import('../../../strategies/ma-crossover-short.js');
    const closes = [
      5000, 5000, 5000, 5000, 5100, 5200, 5300, 5200, 5000, 4800, 4600, 4800, 5000, 5300, 5500, 5600,
    ];
    const r = await runBacktest({
      source: closesSeries(MONDAY_1000_ET, closes),
      dataset: 't',
      strategy,
      params: { fast: 2, slow: 4, quantity: '0.1' },
      risk: ALL,
      capital: '1000',
      feeRate: '0.001',
      margin: { leverage: { SPX: '3' } },
    });
    expect(r.fills.map((f) => `${f.side} ${f.size} ${f.tag}`)).toEqual(['sell 0.1 short', 'buy 0.1 cover']);
  });
});
