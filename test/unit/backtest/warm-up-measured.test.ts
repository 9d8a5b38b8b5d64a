// The warm-up measured, not guessed: the indicators from 'tradebot' say how many inputs they need to be
// exact, and a backtest whose declared or derived warm-up ends before they had them says so, with the
// number to declare, before the strategy's first trade.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import { openDataset } from '../../../src/data/datasets.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { ATR, BollingerBands, EMA, MACD, RSI, RollingSMA, SMA } from '../../../src/strategy/indicators.js';
import { buyMarket, defineStrategy, sellMarket } from '../../../src/strategy/index.js';

const ALL = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});

describe('samplesNeeded: inputs before an indicator no longer remembers the start of its data (0.1%)', () => {
  it('is the window for SMA and Bollinger bands, more than the period for a seeded EMA or Wilder RSI/ATR', () => {
    expect(new SMA(20).samplesNeeded).toBe(20);
    expect(new RollingSMA(20).samplesNeeded).toBe(20);
    // trading-signals' bands answer from price 21 of a 20-window: that is what they need.
    const bands = new BollingerBands(20, 2);
    expect(bands.samplesNeeded).toBe(21);
    expect(Array.from({ length: 21 }, (_, k) => bands.update(k + 1)).findIndex((r) => r !== null)).toBe(20);
    // EMA(50): the seed's weight (1 - 2/51)^(k-1) is at most 0.1% from k = 174.
    expect(new EMA(50).samplesNeeded).toBe(174);
    expect(Math.pow(1 - 2 / 51, 173)).toBeLessThanOrEqual(1e-3);
    expect(Math.pow(1 - 2 / 51, 172)).toBeGreaterThan(1e-3);
    // RSI(14): the first window's average, of weight (13/14)^m after m more changes, from 15 + 94.
    expect(new RSI(14).samplesNeeded).toBe(15 + 94);
    expect(new ATR(14).samplesNeeded).toBe(14 + 94);
    const macd = new MACD(new EMA(12), new EMA(26), new EMA(9));
    expect(macd.samplesNeeded).toBe(Math.max(new EMA(26).samplesNeeded, 25 + new EMA(9).samplesNeeded));
    expect(new EMA(50).indicatorName).toBe('EMA(50)');
  });

  it('counts inputs, not replacements', () => {
    const ema = new EMA(3);
    ema.update(1);
    ema.update(2);
    ema.update(3, true);
    expect(ema.samples).toBe(2);
  });

  it('measures what the value needs: with samplesNeeded inputs the seed moves it less than 0.1%', () => {
    // Two EMAs of the same prices but opposite seeds agree to 0.1% of the seed's gap once settled.
    const a = new EMA(50);
    const b = new EMA(50);
    a.update(0);
    b.update(1000);
    for (let k = 1; k < a.samplesNeeded; k++) {
      a.update(100);
      b.update(100);
    }
    expect(Math.abs((a.getResult() as number) - (b.getResult() as number))).toBeLessThanOrEqual(1000 * 1e-3);
  });
});

// The strategy: an RSI on the base interval and a 1H EMA(50) named `hourEma`, no startupCandles: the
// derived warm-up is 14 candles (from "rsiPeriod"), far short of what the hour's EMA needs.
const hourEmaStrategy = (startupCandles?: number) =>
  defineStrategy({
    ...(startupCandles === undefined ? {} : { startupCandles }),
    name: 'hour-ema',
    description:
      'Buys when the 5m RSI is low and the close is over the hourly EMA; sells when the RSI is high.',
    params: z.object({
      rsiPeriod: z.number().int().min(2).default(14).describe('RSI period'),
      hourEma: z.number().int().min(2).default(50).describe('hourly EMA period'),
    }),
    intervals: ['5m'],
    informative: ['1H'],
    init: (ctx) => ({
      rsi: new RSI(ctx.params.rsiPeriod),
      ema: new EMA(ctx.params.hourEma),
      trend: null as number | null,
    }),
    onCandle(c, ctx, emit, st) {
      if (c.interval === '1H') {
        st.trend = st.ema.update(c.close);
        return;
      }
      const rsi = st.rsi.update(c.close);
      if (rsi === null || st.trend === null) return;
      const held = ctx.portfolio.position(c.symbol).quantity;
      if (rsi < 40 && c.close > st.trend && held.isZero())
        emit(buyMarket(c.symbol, new Decimal('100'), 'in', 'rsi low over the hour trend'));
      if (rsi > 60 && held.gt(0)) emit(sellMarket(c.symbol, held, 'out', 'rsi high'));
    },
  });
const hourEma = hourEmaStrategy();
const declared174 = hourEmaStrategy(174);

describe('a backtest measures the warm-up the indicators needed', () => {
  it('says a derived warm-up of 14 is short for a 1H EMA(50), with the number to declare, before its first trade', async () => {
    const said: string[] = [];
    const tradesWhenSaid: number[] = [];
    let fills = 0;
    const r = await runBacktest({
      source: openDataset('synthetic-1m:7:20000'),
      dataset: 'synthetic-1m:7:20000',
      strategy: hourEma,
      interval: '5m',
      risk: ALL,
      capital: '10000',
      onEvent: (e) => {
        if (e.type === 'fill') fills++;
      },
      onWarmUpShort: (_s, sentence) => {
        said.push(sentence);
        tradesWhenSaid.push(fills);
      },
    });
    expect(r.warmUp).toMatchObject({ candles: 14, source: 'derived from "rsiPeriod"' });
    expect(said).toEqual([
      'warm-up too short: 14 candles (derived from "rsiPeriod"), but EMA(50) had 14 of the 174 inputs it needs when it ended; declare startupCandles: 174',
    ]);
    expect(tradesWhenSaid).toEqual([0]);
    expect(r.trades.length).toBeGreaterThan(0);
    expect(r.warmUp.short).toEqual({
      declare: 174,
      indicators: [{ name: 'EMA(50)', symbol: undefined, had: 14, needs: 174 }],
    });
  });

  it('says nothing when the declared warm-up is what it asked for', async () => {
    const said: string[] = [];
    const r = await runBacktest({
      source: openDataset('synthetic-1m:7:20000'),
      dataset: 'synthetic-1m:7:20000',
      strategy: declared174,
      interval: '5m',
      risk: ALL,
      capital: '10000',
      onWarmUpShort: (_s, sentence) => said.push(sentence),
    });
    expect(r.warmUp).toMatchObject({ candles: 174, source: 'declared' });
    expect(said).toEqual([]);
    expect(r.warmUp.short).toBeUndefined();
  });
});
