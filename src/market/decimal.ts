// Money is Decimal from the moment it leaves the wire until it returns to it as a string
// (DESIGN principle 4). This module is the one place that configures decimal.js.
import { SIGNED_DECIMAL_RE } from '../api/params.js';
import { Decimal } from 'decimal.js';

// 40 significant digits is far beyond any venue precision; ROUND_DOWN by default so an accidental
// rounding never inflates a quantity or an amount (risk code always rounds explicitly anyway).
export const DECIMAL_SETTINGS = {
  precision: 40,
  rounding: Decimal.ROUND_DOWN,
  toExpNeg: -40,
  toExpPos: 40,
} as const satisfies Decimal.Config;
Decimal.set(DECIMAL_SETTINGS);

// Every decimal.js operation checks `instanceof Decimal` (its constructor does, on the operand). decimal.js
// gives the constructor some 50 static methods, so V8 keeps its properties in a dictionary, and the
// optimising compiler does not fold a Symbol.hasInstance lookup on a dictionary-mode object unless that
// object is a prototype: each check was a dictionary lookup. Once the constructor has been an object's
// prototype, V8 marks it as one for good and folds the check. `npx tsx bench/decimal-ops.ts`: the order
// path's operations run 1.6-1.75x as fast with the mark. The object made here is thrown away.
Object.create(Decimal);

export { Decimal };
export type DecimalValue = Decimal;

/** Accepted spellings of a decimal value: a decimal string or a Decimal. Never a JS number. */
export type DecimalLike = string | Decimal;

/** Parses a decimal from a wire string or Decimal; throws with the field name on anything else. */
export function dec(value: DecimalLike, field = 'value'): Decimal {
  if (value instanceof Decimal) return value;
  if (typeof value !== 'string' || !SIGNED_DECIMAL_RE.test(value.trim())) {
    throw new TypeError(`${field} must be a decimal string such as "12.5", got ${JSON.stringify(value)}`);
  }
  return new Decimal(value.trim());
}

/** The wire spelling of a decimal: plain digits, never exponent notation. */
export function toWire(d: Decimal): string {
  return d.toFixed();
}

export const ZERO = new Decimal(0);
export const ONE = new Decimal(1);

/**
 * Whether `d` is above zero: what `d.gt(0)` answers (false for zero, -0 and NaN; true for +Infinity), from
 * the sign and first digit, without the Decimal of 0 that `gt(0)` builds at every call. The order path
 * asks it a dozen times per order.
 */
export function aboveZero(d: Decimal): boolean {
  return d.s === 1 && !d.isZero();
}

/** Whether `d` is below zero: what `d.lt(0)` answers, as `aboveZero` does (false for -0 and NaN). */
export function belowZero(d: Decimal): boolean {
  return d.s === -1 && !d.isZero();
}

/** 10^0 .. 10^22: the powers of ten a double holds exactly (parsed, so each is exact). */
const EXACT_POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/**
 * `d.toNumber()` (the double nearest `d`) without spelling `d` as a string and parsing it back, for a
 * decimal of at most 15-16 significant digits and a small exponent: the digits as an integer below 2^53
 * and a power of ten up to 10^22 are both exact doubles, so one multiplication or division of them is
 * rounded once, to the nearest double, as parsing is (Clinger's fast path). Anything else goes to
 * `toNumber()`. For the float comparisons that run per candle (the exits' trigger prices).
 */
export function toFloat(d: Decimal): number {
  const w = d.d; // base 1e7 words, most significant first; null for NaN and the infinities
  if (w !== null && w.length <= 3) {
    let m = w[0] as number;
    let digits = 1;
    for (let p = 10; p <= m; p *= 10) digits++;
    for (let i = 1; i < w.length; i++) {
      m = m * 1e7 + (w[i] as number);
      digits += 7;
    }
    if (m <= Number.MAX_SAFE_INTEGER) {
      const exp = d.e - digits + 1; // the value is m x 10^exp
      if (exp >= 0 && exp <= 22) return d.s * (m * (EXACT_POW10[exp] as number));
      if (exp < 0 && exp >= -22) return d.s * (m / (EXACT_POW10[-exp] as number));
    }
  }
  return d.toNumber();
}

/**
 * An amount as an operator reads it: rounded half-even to `places` ("9988.79"). Every display of money
 * rounds the same way, so a backtest report, the CLI, the status block and the logs show one figure alike.
 */
export function formatAmount(value: DecimalLike, places = 2): string {
  return new Decimal(value).toDecimalPlaces(places, Decimal.ROUND_HALF_EVEN).toFixed(places);
}

/** An amount with its coin ("9988.79 USDT"), rounded as formatAmount. */
export function formatMoney(value: DecimalLike, coin: string, places = 2): string {
  return `${formatAmount(value, places)} ${coin}`;
}

/**
 * A ratio as a percentage an operator reads ("4.36%"): `places` decimals, rounded as toFixed does; a value
 * that rounds to zero reads without a sign ("0.00%", not "-0.00%"); NaN and infinities read "—".
 */
export function formatPercent(ratio: number, places = 2): string {
  if (!Number.isFinite(ratio)) return '—';
  const s = (ratio * 100).toFixed(places);
  return `${/^-0\.?0*$/.test(s) ? s.slice(1) : s}%`;
}
