// Column conventions shared by the repositories: decimals as plain TEXT, timestamps as INTEGER ms,
// NULL for an absent optional. Values are checked on the way in so a bad write fails loudly, not later.
import { Decimal, dec, toWire, type DecimalLike } from '../market/decimal.js';

/** Thrown for a write the journal refuses (bad value, unknown key, impossible transition). */
export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/** A decimal as stored: plain digits, never exponent notation, never a JS number. */
export function decimalColumn(value: DecimalLike, field: string): string {
  let d: Decimal;
  try {
    d = dec(value, field);
  } catch (e) {
    throw new StoreError((e as Error).message);
  }
  if (!d.isFinite()) throw new StoreError(`${field} must be a finite decimal, got ${d.toString()}`);
  return toWire(d);
}

/** Reads a TEXT decimal column back. */
export function readDecimal(text: string): Decimal {
  return new Decimal(text);
}

/** A timestamp as stored: integer Unix ms. */
export function tsColumn(ts: number, field = 'ts'): number {
  if (!Number.isSafeInteger(ts) || ts < 0) {
    throw new StoreError(`${field} must be a non-negative integer of Unix milliseconds, got ${String(ts)}`);
  }
  return ts;
}

/** A required non-empty text column. */
export function textColumn(value: string, field: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new StoreError(`${field} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}
