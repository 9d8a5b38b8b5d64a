// isReducing decides which orders a REDUCING bot, a limit_open or a limit_close instrument may send. It
// is computed without a division; this checks it against the definition (|after| < |position|, no flip)
// in exact rational arithmetic: BigInt numerators over a common denominator.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { isReducing } from '../../../src/risk/gate.js';
import type { OrderIntent } from '../../../src/strategy/intent.js';

const SCALE = 10_000n; // every generated value has at most 4 decimals
const dec = (units: bigint) => new Decimal(units.toString()).div(SCALE.toString());
const abs = (x: bigint) => (x < 0n ? -x : x);

/** The definition, in exact rationals: after = position + delta, where delta = q / px for a market buy. */
function reducesByDefinition(
  position: bigint,
  side: 'buy' | 'sell',
  amount: bigint,
  marketBuyPx?: bigint,
): boolean {
  if (position === 0n) return false;
  // Work in units of 1 / (SCALE x px) for a market buy (delta = amount / px), of 1 / SCALE otherwise.
  const den = marketBuyPx ?? 1n;
  if (den <= 0n) return false; // no price: a market buy moves nothing
  const pos = position * den;
  const delta = side === 'buy' ? amount * (marketBuyPx === undefined ? 1n : SCALE) : -amount;
  const after = pos + delta;
  return abs(after) < abs(pos) && (after === 0n || after < 0n === pos < 0n);
}

const units = fc.bigInt({ min: -5_000_000n, max: 5_000_000n });
const positive = fc.bigInt({ min: 1n, max: 5_000_000n });
const base = { symbol: 'AAPLUSDT', category: 'SPOT' as const, tag: 't', reason: 'property' };

describe('isReducing', () => {
  it('agrees with |after| < |position| without a flip, for limit and market sells and limit buys', () => {
    fc.assert(
      fc.property(
        units,
        fc.constantFrom('buy' as const, 'sell' as const),
        positive,
        fc.boolean(),
        (pos, side, qty, market) => {
          const intent: OrderIntent =
            market && side === 'sell'
              ? { ...base, type: 'market', side: 'sell', quantity: dec(qty) }
              : { ...base, type: 'limit', side, quantity: dec(qty), price: new Decimal('100') };
          expect(isReducing(intent, dec(pos), new Decimal('100'))).toBe(reducesByDefinition(pos, side, qty));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('agrees for a market buy, whose base size is quoteAmount / price, exactly at the boundary too', () => {
    fc.assert(
      fc.property(
        units,
        positive,
        fc.bigInt({ min: 1n, max: 2_000_000n }),
        fc.boolean(),
        (pos, pxUnits, quoteUnits, onBoundary) => {
          // On the boundary the buy closes the short exactly: quote = px x |position|.
          const quote = onBoundary && pos < 0n ? (pxUnits * -pos) / SCALE : quoteUnits;
          if (quote <= 0n) return;
          const intent: OrderIntent = { ...base, type: 'market', side: 'buy', quoteAmount: dec(quote) };
          expect(isReducing(intent, dec(pos), dec(pxUnits))).toBe(
            reducesByDefinition(pos, 'buy', quote, pxUnits),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never counts a flat position, or a market buy without a price, as reducing', () => {
    const buy: OrderIntent = { ...base, type: 'market', side: 'buy', quoteAmount: new Decimal('10') };
    expect(isReducing(buy, new Decimal(0), new Decimal('100'))).toBe(false);
    expect(isReducing(buy, new Decimal('-5'), new Decimal(0))).toBe(false);
  });
});
