// Every rounding rule: the result is valid for the instrument, never larger than asked (never a worse
// price), and normalising twice changes nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Instrument } from '../../../src/api/index.js';
import { Decimal } from '../../../src/market/decimal.js';
import { parseInstrument, type InstrumentRules } from '../../../src/market/instrument-rules.js';
import {
  isValidPrice,
  isValidQuantity,
  normaliseIntent,
  normalisePrice,
  normaliseQuantity,
  normaliseQuoteAmount,
} from '../../../src/market/precision.js';

const rulesArb: fc.Arbitrary<InstrumentRules> = fc
  .record({
    pp: fc.integer({ min: 0, max: 8 }),
    qp: fc.integer({ min: 0, max: 8 }),
    qtp: fc.integer({ min: 0, max: 8 }),
    pm: fc.option(fc.constantFrom('1', '5', '0.5', '0.25', '0.01', '0.05', '10'), { nil: undefined }),
    qm: fc.option(fc.constantFrom('1', '0.1', '0.5', '0.001', '100'), { nil: undefined }),
  })
  .map(({ pp, qp, qtp, pm, qm }) => {
    const wire: Instrument = {
      category: 'USDT-FUTURES',
      symbol: 'X',
      baseCoin: 'B',
      quoteCoin: 'Q',
      status: 'online',
      pricePrecision: String(pp),
      quantityPrecision: String(qp),
      quotePrecision: String(qtp),
      ...(pm && new Decimal(pm).decimalPlaces() <= pp ? { priceMultiplier: pm } : {}),
      ...(qm && new Decimal(qm).decimalPlaces() <= qp ? { quantityMultiplier: qm } : {}),
    };
    return parseInstrument(wire);
  });

const amountArb = fc
  .tuple(
    fc.integer({ min: 0, max: 10_000_000 }),
    fc.integer({ min: 0, max: 999_999_999 }),
    fc.integer({ min: 0, max: 9 }),
  )
  .map(([i, f, dp]) => new Decimal(`${i}.${String(f).padStart(9, '0')}`).toDecimalPlaces(dp + 1));

describe('price normalisation', () => {
  it('a buy price is valid, never above what was asked, and stable', () => {
    fc.assert(
      fc.property(rulesArb, amountArb, (rules, p) => {
        const n = normalisePrice(rules, 'buy', p);
        expect(isValidPrice(rules, n)).toBe(true);
        expect(n.lte(p)).toBe(true);
        expect(normalisePrice(rules, 'buy', n).eq(n)).toBe(true);
      }),
    );
  });
  it('a sell price is valid, never below what was asked, and stable', () => {
    fc.assert(
      fc.property(rulesArb, amountArb, (rules, p) => {
        const n = normalisePrice(rules, 'sell', p);
        expect(isValidPrice(rules, n)).toBe(true);
        expect(n.gte(p)).toBe(true);
        expect(normalisePrice(rules, 'sell', n).eq(n)).toBe(true);
      }),
    );
  });
});

describe('size normalisation', () => {
  it('a quantity is valid, never larger than asked, and stable', () => {
    fc.assert(
      fc.property(rulesArb, amountArb, (rules, q) => {
        const n = normaliseQuantity(rules, q);
        expect(isValidQuantity(rules, n)).toBe(true);
        expect(n.lte(q)).toBe(true);
        expect(normaliseQuantity(rules, n).eq(n)).toBe(true);
      }),
    );
  });
  it('a market-buy quote amount fits quotePrecision, never larger, stable', () => {
    fc.assert(
      fc.property(rulesArb, amountArb, (rules, a) => {
        const n = normaliseQuoteAmount(rules, a);
        expect(n.decimalPlaces()).toBeLessThanOrEqual(rules.quotePrecision);
        expect(n.lte(a)).toBe(true);
        expect(normaliseQuoteAmount(rules, n).eq(n)).toBe(true);
      }),
    );
  });
  it('normalising a whole intent twice changes nothing', () => {
    fc.assert(
      fc.property(
        rulesArb,
        amountArb,
        amountArb,
        fc.constantFrom('buy', 'sell') as fc.Arbitrary<'buy' | 'sell'>,
        (rules, q, p, side) => {
          const once = normaliseIntent(rules, {
            type: 'limit',
            symbol: 'X',
            category: 'SPOT',
            side,
            quantity: q,
            price: p,
            tag: 't',
            reason: 'r',
          });
          const twice = normaliseIntent(rules, once);
          expect(twice.quantity.eq(once.quantity) && twice.price.eq(once.price)).toBe(true);
        },
      ),
    );
  });
});

describe('examples', () => {
  const rules = parseInstrument({
    category: 'SPOT',
    symbol: 'AAPLUSDT',
    baseCoin: 'AAPL',
    quoteCoin: 'USDT',
    status: 'online',
    pricePrecision: '2',
    quantityPrecision: '4',
  });
  it('rounds a buy limit down and a sell limit up to the cent', () => {
    expect(normalisePrice(rules, 'buy', new Decimal('190.129')).toFixed()).toBe('190.12');
    expect(normalisePrice(rules, 'sell', new Decimal('190.121')).toFixed()).toBe('190.13');
  });
  it('respects a price multiplier', () => {
    const fut = parseInstrument({
      category: 'USDT-FUTURES',
      symbol: 'BTCUSDT',
      baseCoin: 'BTC',
      quoteCoin: 'USDT',
      status: 'online',
      pricePrecision: '1',
      quantityPrecision: '3',
      priceMultiplier: '0.5',
    });
    expect(normalisePrice(fut, 'buy', new Decimal('100.9')).toFixed()).toBe('100.5');
    expect(normalisePrice(fut, 'sell', new Decimal('100.1')).toFixed()).toBe('100.5');
  });
});
