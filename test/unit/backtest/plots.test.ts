// ctx.plot: a strategy's own series, checked at the call, kept per symbol and candle by the backtest (one
// point per chart bar), carried by result.json as arrays of times and decimal strings; a live context drops them.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import { openDataset } from '../../../src/data/datasets.js';
import { candlesOf } from '../../../src/data/format.js';
import type { Candle } from '../../../src/market/candle.js';
import { Decimal } from '../../../src/market/decimal.js';
import { metricsOf } from '../../../src/research/metrics.js';
import { resultJson } from '../../../src/research/result-json.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { defineStrategy } from '../../../src/strategy/contract.js';
import { SMA } from '../../../src/strategy/indicators.js';
import { toDecimal } from '../../../src/strategy/intent-builders.js';
import { z } from 'zod';
import { PlotError, checkPlot } from '../../../src/strategy/plot.js';
import { createTestContext, runStrategy } from '../../../src/strategy/testing.js';

const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});

/** Plots its SMA over the price (null while it warms up) and the candle's range in a panel of its own. */
const plotting = defineStrategy({
  name: 'plotting',
  description: 'Plots an SMA and the range; never trades.',
  params: z.object({ period: z.number().int().min(2).default(5).describe('SMA period') }),
  intervals: ['1m'],
  init: (ctx) => new SMA(ctx.params.period),
  onCandle(c, ctx, _emit, sma) {
    const v = sma.update(c.close);
    ctx.plot('sma', v === null ? null : toDecimal(v), { pane: 'price' });
    ctx.plot('range', toDecimal(c.high - c.low).toFixed());
  },
});

const run = (dataset: string) =>
  runBacktest({ source: openDataset(dataset), dataset, strategy: plotting, params: {}, risk: RISK });

describe('ctx.plot', () => {
  it('refuses a bad name, a JS number, a non-decimal string and an unknown pane, saying the fix', () => {
    expect(checkPlot('ema(200)', '101.5', { pane: 'price' })).toEqual({
      name: 'ema(200)',
      value: '101.5',
      pane: 'price',
    });
    expect(checkPlot('rsi', new Decimal('1e-7'))).toEqual({ name: 'rsi', value: '0.0000001', pane: 'own' });
    expect(checkPlot('rsi', null)).toEqual({ name: 'rsi', value: null, pane: 'own' });
    expect(() => checkPlot('', '1')).toThrow(/the name must be 1 to 48 letters.*got ""/);
    expect(() => checkPlot('a<script>', '1')).toThrow(PlotError);
    expect(() => checkPlot('ema', 101.5)).toThrow(
      'ctx.plot("ema"): the value must be a Decimal, a decimal string or null, got the JS number 101.5: pass toDecimal(x)',
    );
    expect(() => checkPlot('ema', 'abc')).toThrow(/ctx.plot\("ema"\) value must be a decimal string/);
    expect(() => checkPlot('ema', new Decimal(Infinity))).toThrow(/must be finite/);
    expect(() => checkPlot('ema', '1', { pane: 'below' })).toThrow(
      /options.pane must be "price" \(over the candles\) or "own" \(a panel below\), got "below"/,
    );
    expect(() => checkPlot('ema', '1', 'price')).toThrow(
      /the options must be an object such as \{ pane: 'price' \}/,
    );
  });

  it('bounds a value (characters, digits, exponent) before it is parsed or kept, saying the fix', () => {
    const long = `1.${'1'.repeat(400)}`;
    expect(() => checkPlot('ema', long)).toThrow(
      /ctx.plot\("ema"\): the value is 402 characters long \(at most 100\): plot a rounded Decimal/,
    );
    expect(() => checkPlot('ema', `0.${'3'.repeat(60)}`)).toThrow(
      /has 60 significant digits .*at most 40 of each/,
    );
    expect(() => checkPlot('ema', new Decimal('1e400'))).toThrow(/exponent 400 \(at most 40 of each\)/);
    expect(checkPlot('ema', `1.${'2'.repeat(39)}`).value).toBe(`1.${'2'.repeat(39)}`);
  });

  it('bounds the series a backtest keeps per symbol: the 65th name ends the run with the place and the fix', async () => {
    const many = defineStrategy({
      name: 'many-series',
      description: 'Plots one series per candle index: unbounded names.',
      params: z.object({}),
      intervals: ['1m'],
      onCandle(c, ctx) {
        for (let i = 0; i < 70; i++) ctx.plot(`s${i}`, '1');
      },
    });
    const dataset = 'synthetic-1m:3:50';
    await expect(
      runBacktest({ source: openDataset(dataset), dataset, strategy: many, params: {}, risk: RISK }),
    ).rejects.toThrow(/ctx.plot\("s64"\): \S+ has 64 series already \(at most 64 per symbol in a backtest\)/);
  });

  it('is checked and dropped by a context with nowhere to keep it (the live bot)', () => {
    const ctx = createTestContext({ params: {} });
    expect(ctx.plot('ema', '1.5', { pane: 'price' })).toBeUndefined();
    expect(() => ctx.plot('ema', 1.5 as never)).toThrow(PlotError);
  });

  it('refuses a series moved to another pane after its first call (the first call decides)', () => {
    const ctx = createTestContext({ params: {} });
    ctx.plot('ema', '1.5', { pane: 'price' });
    ctx.plot('ema', null, { pane: 'price' });
    expect(() => ctx.plot('ema', '1.6')).toThrow(
      /ctx.plot\("ema"\): the series is drawn over the price \(its first call said so\), this call says its own panel: give every call of a name the same pane/,
    );
  });

  it('runStrategy hands back each point with its symbol and candle', async () => {
    const candles = [];
    for (const [i, close] of [10, 11, 12, 13, 14, 15].entries())
      candles.push({
        symbol: 'X',
        interval: '1m' as const,
        openTime: i * 60_000,
        open: close,
        high: close + 1,
        low: close - 1,
        close,
        volume: 1,
        turnover: close,
      });
    const r = runStrategy(plotting, candles, { params: { period: 5 } });
    const sma = r.plots.filter((p) => p.name === 'sma');
    expect(sma.map((p) => p.value)).toEqual([null, null, null, null, '12', '13']);
    expect(sma[5]).toMatchObject({ symbol: 'X', openTime: 300_000, pane: 'price' });
  });

  it('a backtest keeps every series per symbol and candle; result.json carries them as arrays of strings', async () => {
    const r = await run('synthetic-1m:3:500');
    const series = r.plots?.[r.meta.symbol];
    expect(Object.keys(series ?? {})).toEqual(['sma', 'range']);
    const sma = series?.sma;
    expect(sma?.pane).toBe('price');
    expect(series?.range?.pane).toBe('own');
    // Under the chart's limit every candle is a bar: one point per candle, at its open time.
    expect(sma?.time).toEqual(r.chart.map((b) => b.time));
    expect(sma?.time).toHaveLength(500);
    expect(sma?.value.slice(0, 4)).toEqual([null, null, null, null]);
    const last = r.chart.slice(-5).reduce((a, b) => a + b.close, 0) / 5;
    expect(Number(sma?.value[499])).toBeCloseTo(last, 6);
    expect(sma?.value.every((v) => v === null || /^-?\d+(\.\d+)?$/.test(v))).toBe(true);
    const json = JSON.parse(JSON.stringify(resultJson(r, metricsOf(r), 2))) as { plots: unknown };
    expect(json.plots).toEqual(r.plots);
  });

  it('a long run keeps one point per chart bar, the last value plotted in it', async () => {
    const r = await run('synthetic-1m:3:20000');
    const range = r.plots?.[r.meta.symbol]?.range;
    expect(r.chart.length).toBeLessThan(20000);
    expect(range?.time).toEqual(r.chart.map((b) => b.time));
    // The last bar's point is the last candle's range (the last value plotted in the bar).
    let last: Candle | undefined;
    for await (const c of candlesOf(openDataset('synthetic-1m:3:20000'))) last = c;
    expect(range?.value.at(-1)).toBe(toDecimal((last as Candle).high - (last as Candle).low).toFixed());
  });

  it('a strategy that plots nothing adds nothing to the result', async () => {
    const quiet = defineStrategy({ ...plottingSpec(), onCandle: () => undefined });
    const r = await runBacktest({
      source: openDataset('synthetic-1m:3:50'),
      dataset: 'synthetic-1m:3:50',
      strategy: quiet,
      params: {},
      risk: RISK,
    });
    expect(r.plots).toBeUndefined();
    expect(resultJson(r, metricsOf(r), 2)).not.toHaveProperty('plots');
  });
});

function plottingSpec() {
  return {
    name: 'quiet',
    description: 'Plots nothing.',
    params: z.object({}),
    intervals: ['1m' as const],
  };
}
