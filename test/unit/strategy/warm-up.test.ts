// A strategy's warm-up: `startupCandles` declared as a number or a function of the parameters, derived from
// the parameters' names where it is not declared, refused with a sentence where it is not a count; and the
// per-symbol count of the candles a strategy has seen of each interval it reads.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CandleInterval } from '../../../src/api/index.js';
import type { Candle } from '../../../src/market/candle.js';
import { StrategyDefinitionError, defineStrategy } from '../../../src/strategy/contract.js';
import { decimalParam, parseStrategyParams } from '../../../src/strategy/params.js';
import { WarmUpCounter, derivedWarmUp } from '../../../src/strategy/warm-up.js';

const quiet = (extra: object, params: z.ZodObject = z.object({})) =>
  defineStrategy({
    name: 'quiet',
    description: 'Emits nothing.',
    params,
    intervals: ['1m'],
    onCandle: () => undefined,
    ...extra,
  });

const candle = (interval: CandleInterval): Candle => ({
  symbol: 'X',
  interval,
  openTime: 0,
  open: 1,
  high: 1,
  low: 1,
  close: 1,
  volume: 0,
  turnover: 0,
});

describe('a strategy declares its warm-up', () => {
  it('as a number of candles', () => {
    expect(quiet({ startupCandles: 50 }).warmUp({})).toEqual({ candles: 50, source: 'declared' });
  });

  it('as a function of its parsed parameters', () => {
    const s = defineStrategy({
      name: 'macd-like',
      description: 'Reads a slow average and a signal average of it.',
      params: z.object({
        slow: z.number().int().min(2).default(26).describe('slow average'),
        signal: z.number().int().min(1).default(9).describe('signal average'),
      }),
      intervals: ['1m'],
      startupCandles: (p) => p.slow + p.signal - 1,
      onCandle: () => undefined,
    });
    expect(s.warmUp(parseStrategyParams(s, {}))).toEqual({ candles: 34, source: 'declared' });
    expect(s.warmUp(parseStrategyParams(s, { slow: 200 }))).toEqual({ candles: 208, source: 'declared' });
  });

  it('refuses a declaration that is not a count, and a function answering something else, with a sentence', () => {
    expect(() => quiet({ startupCandles: -1 })).toThrow(
      /startupCandles must be a whole number of candles from 0 to 1,000,000, got -1/,
    );
    // 5e9 is refused at the declaration, with the maximum, before any warm-up is counted or backfilled.
    expect(() => quiet({ startupCandles: 5e9 })).toThrow(
      /startupCandles must be a whole number of candles from 0 to 1,000,000, got 5000000000/,
    );
    expect(() => quiet({ startupCandles: '200' })).toThrow(StrategyDefinitionError);
    const nan = quiet({ startupCandles: () => Number.NaN });
    expect(() => nan.warmUp({})).toThrow(
      /strategy "quiet": startupCandles\(params\) must be a whole number of candles from 0 to 1,000,000, got NaN/,
    );
    const failing = quiet({
      startupCandles: () => {
        throw new Error('boom');
      },
    });
    expect(() => failing.warmUp({})).toThrow(/strategy "quiet": startupCandles\(params\) failed: boom/);
  });
});

describe('where it is not declared, the warm-up is derived', () => {
  it('from the largest whole-number parameter named ...period, ...slow or ...length', () => {
    expect(derivedWarmUp({ fast: 50, slow: 200, quoteAmount: '100' })).toEqual({
      candles: 200,
      source: 'derived from "slow"',
    });
    expect(derivedWarmUp({ rsiPeriod: 14, bbLength: 20, emaSlow: 9, period: 3 })).toEqual({
      candles: 20,
      source: 'derived from "bbLength"',
    });
    // Not a whole number, or not a period by its name: not a warm-up.
    expect(derivedWarmUp({ period: 2.5, stdDevs: 300, rangeMinutes: 15 })).toEqual({
      candles: 0,
      source: 'none',
    });
  });

  it('from the parameters the strategy runs with, defaults included', () => {
    const s = quiet(
      {},
      z.object({
        period: z.number().int().default(20).describe('EMA period'),
        amount: decimalParam('5', 'quote coin'),
      }),
    );
    expect(s.warmUp(parseStrategyParams(s, {}))).toEqual({ candles: 20, source: 'derived from "period"' });
    expect(s.warmUp(parseStrategyParams(s, { period: 200 })).candles).toBe(200);
  });
});

describe('WarmUpCounter', () => {
  it('completes once the strategy has seen the warm-up of every interval it reads', () => {
    const w = new WarmUpCounter(2, ['5m', '1H']);
    w.see(candle('5m'));
    w.see(candle('5m'));
    w.see(candle('1m')); // not an interval of the strategy
    expect(w.complete).toBe(false); // no hourly candle yet
    w.see(candle('1H'));
    expect(w.complete).toBe(false);
    w.see(candle('1H'));
    expect(w.complete).toBe(true);
  });

  it('is complete from the start without a warm-up', () => {
    expect(new WarmUpCounter(0, ['1m']).complete).toBe(true);
  });
});
