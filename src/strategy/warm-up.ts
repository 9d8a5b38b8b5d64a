// A strategy's warm-up: how many candles of each interval it reads it must see before its signals may
// trade (`startupCandles`, freqtrade's startup_candle_count), declared or derived from its parameters, and
// the count the backtester and the live bot keep per symbol to know when it is over.
import type { CandleInterval } from '../api/index.js';
import type { Candle } from '../market/candle.js';

/**
 * A declared warm-up: a number of candles, or a function of the parsed parameters, e.g.
 * `startupCandles: (p) => p.slow`. It counts candles of each interval the strategy reads: its base interval
 * and each informative one.
 */
export type StartupCandles<P> = number | ((params: P) => number);

/** A strategy's warm-up for one set of parameters, and where it comes from (for the summary and the logs). */
export interface WarmUp {
  /** Candles of each interval the strategy reads (base and informative) it must see before it may trade. */
  readonly candles: number;
  /** `declared` (startupCandles), `derived from "slow"` (the default rule), or `none`. */
  readonly source: string;
}

/** Parameter names the default warm-up reads: a period, a slow average, a length. */
const PERIOD_NAME = /(?:period|Period|slow|Slow|length|Length)$/;

/**
 * The warm-up of a strategy that declares none: its largest whole-number parameter whose name ends in
 * `period`, `Period`, `slow`, `Slow`, `length` or `Length` (`period`, `rsiPeriod`, `slow`, `bbLength`), or none.
 */
export function derivedWarmUp(params: unknown): WarmUp {
  let best: [string, number] | undefined;
  if (typeof params === 'object' && params !== null)
    for (const [name, v] of Object.entries(params)) {
      if (!PERIOD_NAME.test(name) || typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) continue;
      if (best === undefined || v > best[1]) best = [name, v];
    }
  return best === undefined
    ? { candles: 0, source: 'none' }
    : { candles: best[1], source: `derived from "${best[0]}"` };
}

/** The largest warm-up declared: a million candles (almost two years of 1m), checked before anything is allocated. */
export const MAX_STARTUP_CANDLES = 1_000_000;

/** What is wrong with a number of warm-up candles, or undefined when it is one. */
export function startupCandlesProblem(n: unknown): string | undefined {
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= MAX_STARTUP_CANDLES)
    return undefined;
  return `must be a whole number of candles from 0 to ${MAX_STARTUP_CANDLES.toLocaleString('en-US')}, got ${typeof n === 'number' ? String(n) : (JSON.stringify(n) ?? typeof n)}`;
}

/**
 * Counts the candles a strategy has seen of one symbol until its warm-up is over: `candles` of each of
 * `intervals` (the base interval and the informative ones). Once complete it costs one field read a candle.
 */
export class WarmUpCounter {
  /** Whether the strategy has seen the warm-up's candles of every interval. */
  complete: boolean;
  private readonly intervals: readonly CandleInterval[];
  private readonly left: number[];

  constructor(candles: number, intervals: readonly CandleInterval[]) {
    this.intervals = [...new Set(intervals)];
    this.left = this.intervals.map(() => candles);
    this.complete = candles <= 0;
  }

  /** Counts a candle handed to the strategy (call it before the strategy decides on the candle). */
  see(c: Candle): void {
    if (this.complete) return;
    const k = this.intervals.indexOf(c.interval);
    if (k < 0) return;
    const left = (this.left[k] as number) - 1;
    this.left[k] = left;
    if (left <= 0) this.complete = this.left.every((n) => n <= 0);
  }
}
