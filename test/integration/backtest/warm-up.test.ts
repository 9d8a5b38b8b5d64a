// The backtest trades nothing during a strategy's warm-up: intents emitted before the strategy has seen its
// `startupCandles` (of each interval it reads, per symbol) are not sent to the gate, and are counted in the
// result, result.json and the summary. A strategy that emits on every candle shows where the line is.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import { formatSummary, metricsOf } from '../../../src/research/metrics.js';
import { resultJson } from '../../../src/research/result-json.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, defineStrategy } from '../../../src/strategy/index.js';
import type { StartupCandles } from '../../../src/strategy/warm-up.js';
import { closesSeries } from '../../helpers/candle-series.js';

const MIN = 60_000;
const MONDAY_1000_ET = Date.UTC(2026, 10, 23, 15, 0); // on a 5m boundary
const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
const closes = Array.from({ length: 30 }, (_, i) => 100 + (i % 7));

/** Buys 10 quote coin at every base candle it decides on; a warm-up only the pipeline enforces. */
const eager = (o: {
  startupCandles?: StartupCandles<{ period: number }>;
  informative?: readonly ('5m' | '15m')[];
}) =>
  defineStrategy({
    name: 'eager',
    description: 'Buys on every candle, warmed up or not.',
    params: z.object({ period: z.number().int().default(3).describe('a period it never reads') }),
    intervals: ['1m'],
    ...(o.informative ? { informative: o.informative } : {}),
    ...(o.startupCandles !== undefined ? { startupCandles: o.startupCandles } : {}),
    onCandle(c, _ctx, emit) {
      if (c.interval === '1m') emit(buyMarket(c.symbol, new Decimal('10'), 'buy', 'every candle'));
    },
  });

const run = (strategy: ReturnType<typeof eager>, params: Record<string, unknown> = {}) =>
  runBacktest({
    source: closesSeries(MONDAY_1000_ET, closes),
    dataset: 'warm-up',
    strategy,
    params,
    risk: RISK,
    capital: '10000',
    feeRate: '0',
  });

/** The 1-based index of the candle a fill's order was decided on (it fills at the next candle's open). */
const decidedOn = (ts: number) => (ts - MONDAY_1000_ET) / MIN;

describe('the backtest warm-up', () => {
  it('sends no intent decided before the strategy has seen startupCandles candles, and counts them', async () => {
    const r = await run(eager({ startupCandles: 5 }));
    expect(r.fills.length).toBeGreaterThan(0);
    // Decided on candle 5 (the fifth the strategy saw), filled at candle 6's open: nothing earlier.
    expect(decidedOn(r.fills[0]?.ts as number)).toBe(5);
    expect(r.warmUp).toEqual({ candles: 5, source: 'declared', intents: 4 });
    // Only what was sent reached the gate: 4 intents fewer than candles decided.
    expect(r.intents).toHaveLength(closes.length - 4);
  });

  it('reads a function of the parameters, and derives the default from a ...period parameter', async () => {
    const declared = await run(eager({ startupCandles: (p) => p.period * 2 }), { period: 4 });
    expect(declared.warmUp).toEqual({ candles: 8, source: 'declared', intents: 7 });
    expect(decidedOn(declared.fills[0]?.ts as number)).toBe(8);
    const derived = await run(eager({}), { period: 6 });
    expect(derived.warmUp).toEqual({ candles: 6, source: 'derived from "period"', intents: 5 });
    expect(decidedOn(derived.fills[0]?.ts as number)).toBe(6);
  });

  it('counts the candles of each informative interval too: 2 closed 5m candles take 10 one-minute ones', async () => {
    const r = await run(eager({ startupCandles: 2, informative: ['5m'] }));
    expect(decidedOn(r.fills[0]?.ts as number)).toBe(10);
    expect(r.warmUp.intents).toBe(9);
  });

  it('says so in the summary and in result.json', async () => {
    const r = await run(eager({ startupCandles: 5 }));
    const m = metricsOf(r);
    expect(formatSummary(r, m)).toMatch(
      /\nwarm-up +5 candles per symbol and interval \(declared\); 4 intents before it not sent\n/,
    );
    expect(JSON.parse(JSON.stringify(resultJson(r, m, 2)))).toMatchObject({
      warmUp: { candles: 5, source: 'declared', intents: 4 },
    });
    const none = await run(eager({ startupCandles: 0 }));
    expect(none.warmUp.intents).toBe(0);
    expect(formatSummary(none, metricsOf(none))).toMatch(/\nwarm-up +none\n/);
  });
});
