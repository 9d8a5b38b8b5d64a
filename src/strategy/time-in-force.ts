// A strategy-side time in force for limit orders. The venue has no cancel endpoint (spec v3: there is
// no cancel-order path), so an order placed rests until it fills; what a strategy can bound is how long
// it keeps quoting for one signal. `TimeInForce` counts the candles of each quote and says stop after N.

/**
 * Counts candles per quote key (a symbol, or a symbol and a purpose) and answers whether the strategy may
 * still (re-)quote: true for the first `candles` candles after `start`, then false until the next start.
 *
 * @example
 * const tif = new TimeInForce(3);
 * // on a signal:                 tif.start(c.symbol)
 * // each candle after it:        if (tif.quote(c.symbol)) emit(limit(...));
 * // when filled (onFill):        tif.stop(c.symbol)
 */
export class TimeInForce {
  private readonly age = new Map<string, number>();

  constructor(readonly candles: number) {
    if (!Number.isInteger(candles) || candles < 1)
      throw new RangeError(
        `TimeInForce needs a whole number of candles of at least 1, got ${String(candles)}`,
      );
  }

  /** A new signal for `key`: its quote may run for the next `candles` candles. */
  start(key: string): void {
    this.age.set(key, 0);
  }

  /** Call once per candle: whether `key` may be quoted on this candle (counts the candle). */
  quote(key: string): boolean {
    const n = this.age.get(key);
    if (n === undefined || n >= this.candles) return false;
    this.age.set(key, n + 1);
    return true;
  }

  /** Whether `key` has a quote running (started, not expired, not stopped). */
  active(key: string): boolean {
    const n = this.age.get(key);
    return n !== undefined && n < this.candles;
  }

  /** Ends the quote of `key` (filled, or given up). */
  stop(key: string): void {
    this.age.delete(key);
  }
}
