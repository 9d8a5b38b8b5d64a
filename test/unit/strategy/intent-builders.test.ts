import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { intentQty } from '../../../src/strategy/intent.js';
import {
  IntentError,
  assertIntent,
  buyMarket,
  limit,
  sellMarket,
  toDecimal,
} from '../../../src/strategy/intent-builders.js';

describe('intent builders', () => {
  it('build decimal-sized intents of each kind', () => {
    const b = buyMarket('AAPLUSDT', new Decimal('100'), 'entry', 'why');
    expect(b).toEqual({
      symbol: 'AAPLUSDT',
      category: 'SPOT',
      side: 'buy',
      type: 'market',
      quoteAmount: new Decimal('100'),
      tag: 'entry',
      reason: 'why',
    });
    expect(intentQty(b).toFixed()).toBe('100');
    const s = sellMarket('AAPLUSDT', new Decimal('0.5'), 'exit', 'why', 'MARGIN');
    expect(s).toMatchObject({ side: 'sell', type: 'market', category: 'MARGIN' });
    const l = limit('AAPLUSDT', 'buy', new Decimal('2'), new Decimal('187.25'), 'dip', 'why');
    expect(intentQty(l).toFixed()).toBe('2');
    for (const i of [b, s, l]) expect(assertIntent(i)).toBe(i);
  });

  it('refuse a JS number, zero or a negative where money goes, naming the field', () => {
    expect(() => buyMarket('X', 100 as unknown as Decimal, 't', 'r')).toThrow(
      /quoteAmount must be a Decimal .*got the JS number 100/,
    );
    expect(() => sellMarket('X', new Decimal(0), 't', 'r')).toThrow(
      /quantity must be a finite Decimal above zero, got 0/,
    );
    expect(() => limit('X', 'buy', new Decimal(1), new Decimal(-3), 't', 'r')).toThrow(/price must be/);
    expect(() => buyMarket('X', new Decimal(1), '', 'r')).toThrow(/tag must be a non-empty string/);
  });

  it('assertIntent refuses a market buy sized in base coin and a market sell sized in quote coin', () => {
    const base = { symbol: 'X', category: 'SPOT', type: 'market', tag: 't', reason: 'r' };
    expect(() => assertIntent({ ...base, side: 'buy', quantity: new Decimal(1) })).toThrow(
      /sized by quoteAmount/,
    );
    expect(() => assertIntent({ ...base, side: 'sell', quoteAmount: new Decimal(1) })).toThrow(
      /sized by quantity/,
    );
    expect(() =>
      assertIntent({ ...base, category: 'USDT-FUTURES', side: 'sell', quantity: new Decimal(1) }),
    ).toThrow(IntentError);
  });

  it('toDecimal keeps the float exactly as JS prints it, and rounds half-even when asked', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }), (x) => {
        expect(Number(toDecimal(x).toString())).toBe(x === 0 ? 0 : x);
      }),
    );
    expect(toDecimal(187.125, 2).toFixed()).toBe('187.12');
    expect(toDecimal(0.1 + 0.2).toFixed()).toBe('0.30000000000000004');
    expect(() => toDecimal(Number.NaN)).toThrow(/must be finite/);
  });
});
