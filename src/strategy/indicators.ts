// The indicators a strategy gets from 'tradebot': trading-signals' number-based ones behind one wrapper
// that answers null until the indicator is stable (some of the library's answer a number from the first
// input: its EMA, DEMA, RMA), and streaming ones the library lacks in O(1) form. Its SMA re-sums the whole
// window on every update (O(period)): at 50/200 that alone costs more than the backtester's per-candle
// budget. The API mirrors trading-signals (`update(price, replace)` returns the result or null until the
// indicator is stable), so a strategy switches by changing its import.
import * as TS from 'trading-signals';
import { activeWarmUpProbe, inputsToForget, type ProbedIndicator } from './warm-up-probe.js';

/** What the wrapper needs of a trading-signals indicator (every one of them has it). */
interface SignalsIndicator {
  update(input: never, replace: boolean): unknown;
  getResult(): unknown;
  getResultOrThrow(): unknown;
  getRequiredInputs(): number;
  readonly isStable: boolean;
}

/** The input an indicator's `update` takes. */
export type IndicatorInput<T> = T extends { update(input: infer I, replace: boolean): unknown } ? I : never;
/** The result an indicator's `update` answers once stable (a number, or an object such as the bands). */
export type IndicatorResult<T> = T extends { update(input: never, replace: boolean): infer R }
  ? NonNullable<R>
  : never;

/**
 * A trading-signals indicator that answers null until it is stable: `update`, `add`, `replace`, `updates`
 * and `getResult` give null (never a number from too few inputs, never an object with nulls inside),
 * `getResultOrThrow` throws trading-signals' NotEnoughDataError, and `isStable` says when that ends.
 */
export type NullUntilStable<T> = Omit<
  T,
  'update' | 'add' | 'replace' | 'updates' | 'getResult' | 'getResultOrThrow' | 'isStable'
> & {
  update(input: IndicatorInput<T>, replace?: boolean): IndicatorResult<T> | null;
  add(input: IndicatorInput<T>): IndicatorResult<T> | null;
  replace(input: IndicatorInput<T>): IndicatorResult<T> | null;
  updates(inputs: readonly IndicatorInput<T>[], replace?: boolean): (IndicatorResult<T> | null)[];
  getResult(): IndicatorResult<T> | null;
  getResultOrThrow(): IndicatorResult<T>;
  /** Whether the indicator and every indicator it is built of (MACD's averages) have seen enough inputs. */
  readonly isStable: boolean;
} & ProbedIndicator;

/** Constructor arguments, where an indicator argument (MACD's averages) may also be a wrapped one. */
type WrappedArgs<A extends unknown[]> = {
  [K in keyof A]: A[K] extends SignalsIndicator ? A[K] | NullUntilStable<A[K]> : A[K];
};

/** Whether `a` is a trading-signals `Base` (or a wrapped one). */
const isA = (a: unknown, Base: abstract new (...args: never[]) => unknown): a is { interval: number } =>
  a instanceof Base && typeof (a as { interval?: unknown }).interval === 'number';

/** Inputs an EMA of `n` needs to forget its seed (its first price, weight (1 - 2/(n+1))^(k-1)) to 0.1%. */
const emaSettles = (n: number): number => Math.max(n, 1 + inputsToForget(1 - 2 / (n + 1)));

/**
 * Inputs `ind` needs before its value depends on the start of the data by at most 0.1% (SETTLE_TOLERANCE):
 * an EMA its seed forgotten, Wilder's RSI and ATR their first window's average forgotten, MACD its three
 * averages (the signal's fed from the long one's `interval`-th input); a window (SMA, bands) once full.
 * `smoothing` is RSI's and ATR's optional second argument (Wilder's WSMA by default).
 */
function samplesNeededOf(ind: SignalsIndicator, smoothing: unknown): number {
  const required = ind.getRequiredInputs();
  const wilder = smoothing === undefined || smoothing === TS.WSMA || smoothing === TS.RMA;
  if (isA(ind, TS.EMA)) return emaSettles(ind.interval);
  // trading-signals' bands answer from the price after the window fills (price 21 of a 20-window).
  if (isA(ind, TS.BollingerBands)) return ind.interval + 1;
  if (isA(ind, TS.RSI))
    return wilder ? ind.interval + 1 + inputsToForget(1 - 1 / ind.interval) : ind.interval + 1;
  if (isA(ind, TS.ATR)) return wilder ? ind.interval + inputsToForget(1 - 1 / ind.interval) : ind.interval;
  if (ind instanceof TS.MACD) {
    const { short, long, signal } = ind as unknown as Record<'short' | 'long' | 'signal', unknown>;
    const settles = (a: unknown): number =>
      isA(a, TS.EMA) ? emaSettles(a.interval) : (a as SignalsIndicator).getRequiredInputs();
    const longN = (long as SignalsIndicator).getRequiredInputs();
    return Math.max(required, settles(short), settles(long), longN - 1 + settles(signal));
  }
  return required;
}

/** `EMA(50)`, `MACD(EMA(12), EMA(26), EMA(9))`: the class and its number arguments, for a warning. */
function indicatorName(name: string, args: readonly unknown[]): string {
  const arg = (a: unknown): string =>
    typeof a === 'number'
      ? String(a)
      : isIndicator(a)
        ? `${a.constructor.name}(${(a as { interval?: number }).interval ?? ''})`
        : typeof a === 'function'
          ? a.name
          : '';
  return `${name}(${args
    .map(arg)
    .filter((x) => x !== '')
    .join(', ')})`;
}

const isIndicator = (v: unknown): v is SignalsIndicator =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as SignalsIndicator).update === 'function' &&
  typeof (v as SignalsIndicator).isStable === 'boolean';

/**
 * Wraps a trading-signals indicator class so that its results are null until it is stable (see
 * `NullUntilStable`). One wrapper for all of them: any other trading-signals indicator gets the same
 * contract with `nullUntilStable(WMA)`.
 *
 * @example
 * const WMA = nullUntilStable(TS.WMA);
 * const wma = new WMA(20);
 * if (wma.update(c.close) === null) return; // still warming up
 */
export function nullUntilStable<A extends unknown[], T extends SignalsIndicator>(
  Base: new (...args: A) => T,
): new (...args: WrappedArgs<A>) => NullUntilStable<T> {
  const Signals = Base as unknown as new (...args: unknown[]) => SignalsIndicator;
  class Stable extends Signals {
    /** Indicators this one is built of (MACD's short, long and signal averages): stable only with them. */
    private readonly parts: readonly SignalsIndicator[];
    /** Inputs seen (a `replace` is not one more). */
    samples = 0;
    /** Inputs it needs before its value depends on the start of the data by at most 0.1%. */
    readonly samplesNeeded: number;
    readonly indicatorName: string;
    constructor(...args: unknown[]) {
      super(...args);
      this.parts = Object.values(this).filter(isIndicator);
      this.samplesNeeded = samplesNeededOf(this, args[1]);
      this.indicatorName = indicatorName(Base.name, args);
      activeWarmUpProbe()?.add(this);
    }
    // trading-signals' EMA answers isStable by calling getResultOrThrow: the override below must not ask
    // isStable back (it would recurse), so each asks the library's own method and then the parts.
    override get isStable(): boolean {
      return super.isStable && this.partsStable();
    }
    override update(input: never, replace = false): unknown {
      if (!replace) this.samples++;
      const r = super.update(input, replace);
      return this.isStable ? r : null;
    }
    override getResult(): unknown {
      return this.isStable ? super.getResult() : null;
    }
    override getResultOrThrow(): unknown {
      const r = super.getResultOrThrow();
      if (!this.partsStable()) throw new TS.NotEnoughDataError(this.getRequiredInputs());
      return r;
    }
    private partsStable(): boolean {
      for (const p of this.parts) if (!p.isStable) return false;
      return true;
    }
  }
  Object.defineProperty(Stable, 'name', { value: Base.name });
  return Stable as unknown as new (...args: WrappedArgs<A>) => NullUntilStable<T>;
}

/** Exponential moving average; null until `interval` prices were seen (trading-signals' answers from the first). */
export const EMA = nullUntilStable(TS.EMA);
export type EMA = NullUntilStable<TS.EMA>;
/** Simple moving average (O(period) per update: prefer `RollingSMA`); null until the window is full. */
export const SMA = nullUntilStable(TS.SMA);
export type SMA = NullUntilStable<TS.SMA>;
/** Relative strength index (Wilder); null until `interval + 1` prices were seen. */
export const RSI = nullUntilStable(TS.RSI);
export type RSI = NullUntilStable<TS.RSI>;
/** Average true range of `{ high, low, close }` candles; null until `interval` candles were seen. */
export const ATR = nullUntilStable(TS.ATR);
export type ATR = NullUntilStable<TS.ATR>;
/**
 * Bollinger bands `{ lower, middle, upper }`; null (not an object) until `interval + 1` prices were seen:
 * trading-signals' bands answer from the price after the window fills (price 21 of a 20-window).
 */
export const BollingerBands = nullUntilStable(TS.BollingerBands);
export type BollingerBands = NullUntilStable<TS.BollingerBands>;
/**
 * MACD `{ macd, signal, histogram }` of three averages, e.g. `new MACD(new EMA(12), new EMA(26), new EMA(9))`;
 * null until its signal average is stable too (26 + 9 - 1 prices), never an object with a null signal.
 */
export const MACD = nullUntilStable(TS.MACD);
export type MACD = NullUntilStable<TS.MACD>;

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
export class RollingSMA implements ProbedIndicator {
  readonly interval: number;
  /** Prices seen (a `replace` is not one more). */
  samples = 0;
  /** A window forgets what came before it: `interval` prices. */
  readonly samplesNeeded: number;
  readonly indicatorName: string;
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
    this.samplesNeeded = interval;
    this.indicatorName = `RollingSMA(${interval})`;
    activeWarmUpProbe()?.add(this);
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
      this.samples++;
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
