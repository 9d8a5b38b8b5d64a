// Parameter rules as the spec states them, no stricter: set-leverage's optional leverage and its
// long/short fields pass; the 90-day history-candles range is checked with one bound as with two.
import { describe, expect, it } from 'vitest';
import { HISTORY_CANDLES_MAX_RANGE_MS, validateParams } from '../../../src/api/index.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 23, 15);

describe('spec-true parameters', () => {
  it('accepts set-leverage without leverage (spec 4.4: optional)', () => {
    expect(validateParams('setLeverage', { category: 'USDT-FUTURES', symbol: 'BTCUSDT' }).ok).toBe(true);
  });

  it('passes longLeverage/shortLeverage on in crossed mode (the spec describes, it does not refuse)', () => {
    const r = validateParams('setLeverage', {
      category: 'USDT-FUTURES',
      symbol: 'BTCUSDT',
      longLeverage: '3',
    });
    expect(r.ok).toBe(true);
  });

  it('still refuses what the spec requires: symbol for futures, coin for margin, isolated only on futures', () => {
    const fields = (p: Record<string, string>) => {
      const r = validateParams('setLeverage', p);
      return r.ok ? [] : r.issues.map((i) => i.field);
    };
    expect(fields({ category: 'USDT-FUTURES', leverage: '2' })).toEqual(['symbol']);
    expect(fields({ category: 'MARGIN', leverage: '2' })).toEqual(['coin']);
    expect(fields({ category: 'MARGIN', coin: 'BTC', marginMode: 'isolated' })).toContain('marginMode');
  });

  it('refuses a history-candles startTime more than 90 days before now when endTime is not given', () => {
    const q = { category: 'SPOT', symbol: 'BTCUSDT', interval: '1D' };
    const old = validateParams(
      'historyCandles',
      { ...q, startTime: String(NOW - HISTORY_CANDLES_MAX_RANGE_MS - DAY) },
      { now: NOW },
    );
    expect(old.ok).toBe(false);
    expect(old.ok ? '' : old.issues[0]?.rule).toMatch(/90 days.*give endTime/);
    expect(
      validateParams('historyCandles', { ...q, startTime: String(NOW - 80 * DAY) }, { now: NOW }).ok,
    ).toBe(true);
  });

  it('refuses unknown parameters, naming them', () => {
    const r = validateParams('tickers', { category: 'SPOT', symbl: 'BTCUSDT' });
    expect(r.ok ? [] : r.issues.map((i) => i.field)).toEqual(['symbl']);
  });
});
