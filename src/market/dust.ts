// Dust: a position the venue will not take an order for, because its size on the instrument's grid is below
// the minimum tradable quantity (minOrderQty) or rounds to zero at the quantity precision. Like freqtrade's
// remainder of `amount_to_precision`, it is not a trade: the trade it is left from closes, strategies and
// exits see the symbol as flat, and the dust is shown apart. Dust that grows above the minimum (a new buy
// on top of it) is an ordinary position again, so the next exit sells it too.
import type { Decimal } from './decimal.js';
import type { InstrumentRules } from './instrument-rules.js';
import { normaliseQuantity } from './precision.js';

/**
 * Whether `quantity` (signed; a short's size counts) is dust on `rules`: not zero, and its size rounded down to
 * the instrument's grid is zero or below minOrderQty. Without rules nothing is dust (the venue's limits are
 * unknown, so no position is hidden).
 */
export function isDust(rules: InstrumentRules | undefined, quantity: Decimal): boolean {
  if (quantity.isZero() || rules === undefined) return false;
  const size = quantity.abs();
  const min = rules.minOrderQty;
  // Most positions are well above the minimum and on the grid: no rounding needed to say so.
  if (min !== undefined && size.lt(min)) return true;
  const tradable = normaliseQuantity(rules, size);
  return tradable.isZero() || (min !== undefined && tradable.lt(min));
}
