// The recursive check (freqtrade's recursive-analysis): is the strategy's declared warm-up long enough? The
// same start is replayed with N candles of history before it (N its warm-up, `startupCandles`), then 2N and 4N;
// every signal from the start on (its intents, and the values it exposes) must be the same in all three. An
// indicator that still moves with more history (an EMA that needs several times its period), or an intent
// that depends on it, means the warm-up is too short: the first trades of a backtest and of a live bot's
// start would differ from those of a bot that had run for longer.
import { INTERVAL_MS, type CandleInterval } from '../api/index.js';
import { runBacktest } from '../backtest/engine.js';
import { mergeByTime } from '../data/merge-sources.js';
import type { CandleSource } from '../data/format.js';
import { parseStrategyParams } from '../strategy/params.js';
import type { WarmUp } from '../strategy/warm-up.js';
import type { LookaheadOptions } from './lookahead.js';

/** History lengths tried when a strategy declares no warm-up (0 candles): 0 against these. */
const NO_WARM_UP_HISTORY = 100;

/** One signal that differs between the histories, on the first candle it does. */
export interface RecursiveFinding {
  readonly name: string;
  readonly symbol: string;
  readonly openTime: number;
  /** Its value with each history, in the order of `RecursiveReport.histories` (undefined: not produced). */
  readonly values: readonly (number | string | undefined)[];
  /** For numbers: the largest relative difference to the longest history's value. */
  readonly apart?: number | undefined;
}

export interface RecursiveReport {
  readonly warmUp: WarmUp;
  /** Candles of history before the start (of the base interval): N, 2N and 4N. */
  readonly histories: readonly number[];
  /** Open time of the first candle compared (undefined: the data is too short for the check). */
  readonly start: number | undefined;
  /** Candles (time steps) the data needs, and has, for the check. */
  readonly needs: number;
  readonly has: number;
  /** Signals of the longest history compared. */
  readonly signals: number;
  /** The first difference of each signal name, earliest first. */
  readonly findings: readonly RecursiveFinding[];
}

export interface RecursiveOptions extends LookaheadOptions {
  /** Numbers closer than this (relative) are the same: floating point, not warm-up (default 1e-4). */
  readonly tolerance?: number | undefined;
}

/** Base candles a warm-up of `n` candles spans: informative intervals count in candles of their own. */
function historyCandles(n: number, base: CandleInterval, informative: readonly CandleInterval[]): number {
  const ratio = Math.max(1, ...informative.map((i) => Math.ceil(INTERVAL_MS[i] / INTERVAL_MS[base])));
  return n * ratio;
}

const sourcesOf = (o: LookaheadOptions): readonly CandleSource[] =>
  Array.isArray(o.source) ? o.source : [o.source as CandleSource];

/** Distinct open times of the run's candles in [from, to]. */
async function times(o: LookaheadOptions): Promise<number[]> {
  const out: number[] = [];
  for await (const b of mergeByTime(sourcesOf(o)))
    for (let i = 0; i < b.length; i++) {
      const t = b.openTime[i] as number;
      if (t >= (o.from ?? -Infinity) && t <= (o.to ?? Infinity) && t !== out[out.length - 1]) out.push(t);
    }
  return out;
}

/** The signals of candles from `start` on of one replay whose strategy starts at `from`, keyed per candle. */
async function signalsFrom(
  o: LookaheadOptions,
  from: number,
  start: number,
): Promise<Map<string, { name: string; symbol: string; openTime: number; v: number | string }>> {
  const out = new Map<string, { name: string; symbol: string; openTime: number; v: number | string }>();
  const seen = new Map<string, number>();
  await runBacktest({
    ...o,
    from,
    // Nothing trades before the start in any of the runs: the state at the start is the same in all.
    tradeFrom: start + 1,
    chart: false,
    onProgress: undefined,
    onSignal: (s) => {
      if (s.openTime < start) return;
      const k = `${s.symbol}\0${s.openTime}\0${s.name}`;
      const n = (seen.get(k) ?? 0) + 1;
      seen.set(k, n);
      out.set(`${k}\0${n}`, { name: s.name, symbol: s.symbol, openTime: s.openTime, v: s.value });
    },
  });
  return out;
}

const relative = (a: number, b: number): number =>
  a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);

/**
 * Replays the run's start with N, 2N and 4N candles of history before it (N the strategy's warm-up with the
 * run's parameters) and reports the signals from the start on that are not the same in all three.
 */
export async function recursiveCheck(o: RecursiveOptions): Promise<RecursiveReport> {
  const warmUp = o.strategy.warmUp(parseStrategyParams(o.strategy, o.params ?? {}));
  const base = o.strategy.intervals[0] as CandleInterval;
  const n = historyCandles(warmUp.candles, base, o.strategy.informative);
  const histories = n > 0 ? [n, 2 * n, 4 * n] : [0, NO_WARM_UP_HISTORY, 2 * NO_WARM_UP_HISTORY];
  const longest = histories[2] as number;
  const steps = await times(o);
  // The start is the candle after the longest history, the last candle of the shortest one's warm-up.
  const startAt = Math.max(0, longest - 1);
  const empty = { warmUp, histories, needs: longest + 1, has: steps.length, signals: 0, findings: [] };
  if (steps.length <= longest) return { ...empty, start: undefined };
  const start = steps[startAt] as number;
  const runs = [];
  for (const h of histories) {
    runs.push(await signalsFrom(o, steps[startAt - h + (h > 0 ? 1 : 0)] ?? start, start));
    o.onProgress?.(runs.length, histories.length);
  }
  const reference = runs[2] as Awaited<ReturnType<typeof signalsFrom>>;
  const tolerance = o.tolerance ?? 1e-4;
  const first = new Map<string, RecursiveFinding>();
  const keys = new Set(runs.flatMap((r) => [...r.keys()]));
  for (const k of keys) {
    const at = runs.map((r) => r.get(k));
    const s = at.find((x) => x !== undefined);
    if (s === undefined) continue;
    const values = at.map((x) => x?.v);
    const ref = values[2];
    const apart = values.map((v) =>
      typeof v === 'number' && typeof ref === 'number' ? relative(v, ref) : v === ref ? 0 : Infinity,
    );
    const worst = Math.max(...apart);
    if (!(worst > tolerance)) continue;
    const had = first.get(s.name);
    if (had === undefined || s.openTime < had.openTime)
      first.set(s.name, {
        name: s.name,
        symbol: s.symbol,
        openTime: s.openTime,
        values,
        ...(Number.isFinite(worst) ? { apart: worst } : {}),
      });
  }
  return {
    ...empty,
    start,
    signals: reference.size,
    findings: [...first.values()].sort((a, b) => a.openTime - b.openTime || a.name.localeCompare(b.name)),
  };
}
