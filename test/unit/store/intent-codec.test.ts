// The journal's intent text: decimals as plain decimal strings, whatever their size, and read back exactly.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { decodeIntent, encodeIntent } from '../../../src/store/intent-codec.js';
import type { OrderIntent } from '../../../src/strategy/intent.js';

const limit = (quantity: string, price: string): OrderIntent =>
  ({
    symbol: 'BTCUSDT',
    category: 'SPOT',
    tag: 'entry',
    reason: 'test',
    type: 'limit',
    side: 'buy',
    quantity: new Decimal(quantity),
    price: new Decimal(price),
  }) as OrderIntent;

describe('intent codec', () => {
  it.each([
    ['0.5', '65000.25'],
    ['1e-45', '1e+45'], // beyond decimal.js's exponent thresholds: toJSON would say 1e-45
    ['0.000000000000000000000000000000000000000000012345', '123456789012345678901234567890123456789012345'],
  ])('writes %s at %s as plain decimal strings and reads them back exactly', (q, p) => {
    const text = encodeIntent(limit(q, p));
    const raw = JSON.parse(text) as { quantity: string; price: string };
    expect(raw.quantity).toMatch(/^\d+(\.\d+)?$/);
    expect(raw.price).toMatch(/^\d+(\.\d+)?$/);
    const back = decodeIntent(text) as OrderIntent & { quantity: Decimal; price: Decimal };
    expect(back.quantity.eq(q)).toBe(true);
    expect(back.price.eq(p)).toBe(true);
  });
});
