// Streaming indicators that trading-signals lacks in O(1) form. Its SMA re-sums the whole window on every
// update (O(period)): at 50/200 that alone costs more than the backtester's per-candle budget. The API
// mirrors trading-signals (`update(price, replace)` returns the result or null until the window is full),
// so a strategy switches by changing its import.

/**
 * Simple moving average in O(1) per update: a ring buffer and a running sum kept with Neumaier
 * compensation, so a run of millions of updates stays as accurate as summing the window afresh.
 *
 * @example
 * const sma = new RollingSMA(50);
 * for (const c of closes) {
 *   const avg = sma.update(c); // null until 50 prices were seen
 * }
 */
export class RollingSMA {
  readonly interval: number;
  private readonly window: Float64Array;
  /** Index the next price is written to. */
  private head = 0;
  private count = 0;
  private sum = 0;
  /** Neumaier's compensation: the low-order bits that `sum` lost. */
  private comp = 0;
  /** The last average; meaningful once the window is full. A number field, never null: a double kept in place. */
  private value = 0;

  constructor(interval: number) {
    if (!Number.isSafeInteger(interval) || interval < 1) {
      throw new RangeError(`RollingSMA interval must be a whole number of at least 1, got ${interval}`);
    }
    this.interval = interval;
    this.window = new Float64Array(interval);
  }

  /**
   * Adds a price (or, with `replace`, replaces the last one: a candle that is still forming) and returns
   * the average of the last `interval` prices, or null while fewer were seen.
   */
  update(price: number, replace = false): number | null {
    if (!Number.isFinite(price)) throw new RangeError(`RollingSMA.update needs a finite price, got ${price}`);
    const n = this.interval;
    if (replace && this.count > 0) {
      const last = this.head === 0 ? n - 1 : this.head - 1;
      this.add(price);
      this.add(-(this.window[last] as number));
      this.window[last] = price;
    } else {
      if (this.count === n) this.add(-(this.window[this.head] as number));
      else this.count++;
      this.add(price);
      this.window[this.head] = price;
      this.head = this.head + 1 === n ? 0 : this.head + 1;
    }
    if (this.count !== n) return null;
    this.value = (this.sum + this.comp) / n;
    return this.value;
  }

  /** The last average, or null while the window is not full. */
  getResult(): number | null {
    return this.count === this.interval ? this.value : null;
  }

  /** Whether the window is full. */
  get isStable(): boolean {
    return this.count === this.interval;
  }

  private add(x: number): void {
    const t = this.sum + x;
    // Neumaier: whichever operand is larger in magnitude keeps its bits; recover what the other lost.
    this.comp += Math.abs(this.sum) >= Math.abs(x) ? this.sum - t + x : x - t + this.sum;
    this.sum = t;
  }
}
