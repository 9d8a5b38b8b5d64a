import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { intentQty } from '../../../src/strategy/intent.js';
import {
  IntentError,
  assertIntent,
  buyMarket,
  buyToCover,
  limit,
  sellMarket,
  sellShort,
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

  it('open a short with a MARGIN market sell and cover it with a MARGIN limit buy of the same quantity', () => {
    const open = sellShort('AAPLUSDT', '2', 'short', 'death cross');
    expect(open).toMatchObject({ side: 'sell', type: 'market', category: 'MARGIN' });
    const cover = buyToCover('AAPLUSDT', '2', '191.5', 'cover', 'golden cross');
    expect(cover).toMatchObject({ side: 'buy', type: 'limit', category: 'MARGIN' });
    expect([intentQty(open).toFixed(), intentQty(cover).toFixed()]).toEqual(['2', '2']);
    expect(() => buyToCover('AAPLUSDT', '2', 190 as unknown as Decimal, 'c', 'r')).toThrow(/price must be/);
  });

  it('refuse a JS number, zero or a negative where money goes, naming the field', () => {
    expect(() => buyMarket('X', 100 as unknown as Decimal, 't', 'r')).toThrow(
      /quoteAmount must be a Decimal or a decimal string .*got the number 100: pass '100' or new Decimal\(100\)/,
    );
    expect(() => sellMarket('X', new Decimal(0), 't', 'r')).toThrow(/quantity must be above zero, got 0/);
    expect(() => sellMarket('X', '-2', 't', 'r')).toThrow(/quantity must be above zero, got -2/);
    expect(() => limit('X', 'buy', '1', 'abc', 't', 'r')).toThrow(
      /price must be a Decimal or a decimal string such as '100' or '0.25', got the string "abc"/,
    );
    expect(() => limit('X', 'buy', new Decimal(1), new Decimal(-3), 't', 'r')).toThrow(/price must be/);
    expect(() => buyMarket('X', new Decimal(1), '', 'r')).toThrow(/tag must be a non-empty string/);
  });

  it('take money as a decimal string: buyMarket(symbol, "100", ...) is buyMarket(symbol, new Decimal(100), ...)', () => {
    expect(buyMarket('AAPLUSDT', '100', 'entry', 'why')).toEqual(
      buyMarket('AAPLUSDT', new Decimal('100'), 'entry', 'why'),
    );
    const l = limit('AAPLUSDT', 'sell', '0.25', '187.125', 'tp', 'why');
    expect(l.quantity).toBeInstanceOf(Decimal);
    expect([l.quantity.toFixed(), l.price.toFixed()]).toEqual(['0.25', '187.125']);
    expect(sellMarket('AAPLUSDT', ' 2 ', 'exit', 'why').quantity.toFixed()).toBe('2');
  });

  it('assertIntent refuses money that is not a Decimal in a hand-built intent, saying how to build it', () => {
    const base = { symbol: 'X', category: 'SPOT', type: 'market', side: 'buy', tag: 't', reason: 'r' };
    expect(() => assertIntent({ ...base, quoteAmount: '100' })).toThrow(
      /quoteAmount of an order intent must be a Decimal, got the string "100": build the intent with buyMarket/,
    );
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
    expect(() => toDecimal(Number.NaN)).toThrow(/the number NaN .*it is not finite/);
  });

  it('toDecimal takes a decimal string and a Decimal, and names what is wrong with anything else', () => {
    expect(toDecimal('100').toFixed()).toBe('100');
    expect(toDecimal('187.125', 2).toFixed()).toBe('187.12');
    expect(toDecimal(new Decimal('1.5')).toFixed()).toBe('1.5');
    expect(() => toDecimal('1,5')).toThrow(/the string "1,5" .*write a decimal number such as "100"/);
    expect(() => toDecimal(null as unknown as string)).toThrow(/cannot convert null to a Decimal/);
    expect(() => toDecimal(1, 1.5)).toThrow(/dp must be a whole number/);
  });
});
