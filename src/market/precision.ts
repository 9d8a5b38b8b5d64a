// Normalisation of prices and sizes to an instrument's rules, always rounding toward the safe side:
// never a larger quantity or amount than asked, never a worse price than asked (a buy limit rounds
// down so it never pays more, a sell limit rounds up so it never sells cheaper).
import type { OrderIntent, Side } from './intent.js';
import { Decimal, aboveZero } from './decimal.js';
import type { InstrumentRules } from './instrument-rules.js';

/** Rounds `value` to `dp` decimals and to a multiple of `step` (when given), in `mode`. */
function quantise(value: Decimal, dp: number, step: Decimal | undefined, mode: Decimal.Rounding): Decimal {
  let v = value.toDecimalPlaces(dp, mode);
  if (step !== undefined && aboveZero(step)) {
    v = v.div(step).toDecimalPlaces(0, mode).mul(step);
    // A multiple of the step may need more decimals than dp allows; step back inside both rules.
    if (v.decimalPlaces() > dp)
      v = v.toDecimalPlaces(dp, mode === Decimal.ROUND_UP ? Decimal.ROUND_UP : Decimal.ROUND_DOWN);
  }
  return v;
}

/** A limit price on the instrument's grid: a buy rounds down, a sell rounds up. */
export function normalisePrice(rules: InstrumentRules, side: Side, price: Decimal): Decimal {
  return quantise(
    price,
    rules.pricePrecision,
    rules.priceMultiplier,
    side === 'buy' ? Decimal.ROUND_DOWN : Decimal.ROUND_UP,
  );
}

/** A base quantity on the instrument's grid, rounded down. */
export function normaliseQuantity(rules: InstrumentRules, qty: Decimal): Decimal {
  return quantise(qty, rules.quantityPrecision, rules.quantityMultiplier, Decimal.ROUND_DOWN);
}

/** A market-buy quote amount to quotePrecision, rounded down. */
export function normaliseQuoteAmount(rules: InstrumentRules, amount: Decimal): Decimal {
  return amount.toDecimalPlaces(rules.quotePrecision, Decimal.ROUND_DOWN);
}

/** Whether a price lies on the instrument's grid. */
export const isValidPrice = (rules: InstrumentRules, price: Decimal): boolean =>
  price.decimalPlaces() <= rules.pricePrecision &&
  (rules.priceMultiplier === undefined || price.mod(rules.priceMultiplier).isZero());

/** Whether a quantity lies on the instrument's grid. */
export const isValidQuantity = (rules: InstrumentRules, qty: Decimal): boolean =>
  qty.decimalPlaces() <= rules.quantityPrecision &&
  (rules.quantityMultiplier === undefined || qty.mod(rules.quantityMultiplier).isZero());

/** The intent with every size and price normalised. Idempotent. */
export function normaliseIntent<I extends OrderIntent>(rules: InstrumentRules, intent: I): I {
  // Object.assign, not a spread: V8 (Node 20) copies with a spread that overrides a key ten times slower,
  // and the gate normalises every intent.
  if (intent.type === 'limit')
    return Object.assign({}, intent, {
      price: normalisePrice(rules, intent.side, intent.price),
      quantity: normaliseQuantity(rules, intent.quantity),
    });
  if ('quoteAmount' in intent)
    return Object.assign({}, intent, { quoteAmount: normaliseQuoteAmount(rules, intent.quoteAmount) });
  return Object.assign({}, intent, { quantity: normaliseQuantity(rules, intent.quantity) });
}
