// The lookahead check (freqtrade's lookahead-analysis): the run is replayed with its data cut off at
// many points, and every signal the strategy produced for a candle up to the cut (its intents, and the
// indicator values it exposes with `ctx.expose`) must be the same as in the full run. A value that
// changes, or appears only in the full run, was computed from candles that had not closed yet.
// A cut keeps the open of the candle after it (as a candle that never moved from its open): the strategy
// decides on the cut's candle at that open in both runs, so fills at that instant are the same.
import { runBacktest, type BacktestOptions, type StrategySignal } from '../backtest/engine.js';
import { atRunInterval } from '../backtest/run-interval.js';
import { mergeByTime } from '../data/merge-sources.js';
import { newBatch, type CandleSource } from '../data/format.js';

export interface LookaheadOptions extends Omit<BacktestOptions, 'onSignal' | 'chart' | 'onProgress'> {
  /** How many cut points, spread evenly over the data (default 20); as many more at the candles with intents. */
  readonly cuts?: number | undefined;
  /** Called after each replay with the replays done and their total. */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/** One signal whose value depends on candles after the cut. */
export interface LookaheadFinding {
  readonly name: string;
  readonly symbol: string;
  /** Open time of the candle the signal belongs to. */
  readonly openTime: number;
  /** The data ended after the candle that opens at this time. */
  readonly cut: number;
  /** Its value with all the data, and with the data cut (undefined: not produced). */
  readonly full: number | string | undefined;
  readonly truncated: number | string | undefined;
}

export interface LookaheadReport {
  /** Time steps of the data (distinct open times: each symbol's candle of one time is one step). */
  readonly steps: number;
  /** Candles of the data, every symbol's (2 symbols of 8,928 candles each are 17,856). */
  readonly candles: number;
  /** Symbols of the data. */
  readonly symbols: number;
  /** Open times of the last candle of each replay. */
  readonly cuts: readonly number[];
  /** Signals of the full run. */
  readonly signals: number;
  /** Names of the signals seen (`intent` and the exposed indicators). */
  readonly names: readonly string[];
  /** The first finding of each signal name, earliest candle first. */
  readonly findings: readonly LookaheadFinding[];
}

/** Signals of one run by symbol, candle and name (a name produced twice on one candle is numbered). */
type SignalMap = Map<string, { s: StrategySignal; v: number | string }>;

/** `src` up to the candle that opens at `cut`, then the next candle reduced to its open. */
function cutSource(src: CandleSource, cut: number): CandleSource {
  return {
    meta: src.meta,
    async *batches() {
      for await (const b of src.batches()) {
        let n = 0;
        while (n < b.length && (b.openTime[n] as number) <= cut) n++;
        if (n === b.length) {
          yield b;
          continue;
        }
        const out = newBatch(n + 1);
        for (const col of COLUMNS) out[col].set(b[col].subarray(0, n + 1));
        const open = b.open[n] as number;
        out.high[n] = out.low[n] = out.close[n] = open;
        out.volume[n] = out.turnover[n] = 0;
        out.length = n + 1;
        yield out;
        return;
      }
    },
  };
}

const COLUMNS = ['openTime', 'open', 'high', 'low', 'close', 'volume', 'turnover'] as const;

const sourcesOf = (o: LookaheadOptions): readonly CandleSource[] =>
  Array.isArray(o.source) ? o.source : [o.source as CandleSource];

async function replay(o: LookaheadOptions, cut: number | undefined): Promise<SignalMap> {
  const out: SignalMap = new Map();
  let lastCandle = '';
  let seen = new Map<string, number>();
  await runBacktest({
    ...o,
    source: cut === undefined ? o.source : sourcesOf(o).map((src) => cutSource(src, cut)),
    chart: false,
    onProgress: undefined,
    onSignal: (s) => {
      const candle = `${s.symbol}\0${s.openTime}`;
      if (candle !== lastCandle) {
        lastCandle = candle;
        seen = new Map();
      }
      if (cut !== undefined && s.openTime > cut) return;
      const k = (seen.get(s.name) ?? 0) + 1;
      seen.set(s.name, k);
      out.set(`${candle}\0${s.name}\0${k}`, { s, v: s.value });
    },
  });
  return out;
}

/** Distinct candle open times of the run's data in [from, to], in order, and its candles (every symbol's). */
async function stepTimes(o: LookaheadOptions): Promise<{ times: number[]; candles: number }> {
  const sources = sourcesOf(o);
  const from = o.from ?? -Infinity;
  const to = o.to ?? Infinity;
  const times: number[] = [];
  let candles = 0;
  for await (const b of mergeByTime(sources)) {
    for (let i = 0; i < b.length; i++) {
      const t = b.openTime[i] as number;
      if (!(t >= from && t <= to)) continue;
      candles++;
      if (t !== times[times.length - 1]) times.push(t);
    }
  }
  return { times, candles };
}

/** Up to `n` elements of `xs`, evenly spread, the last one included. */
const spread = <T>(xs: readonly T[], n: number): T[] => {
  if (xs.length <= n) return [...xs];
  return Array.from({ length: n }, (_, k) => xs[Math.floor(((k + 1) * xs.length) / n) - 1] as T);
};

/**
 * Replays the backtest once in full and once per cut point with the data ending at the cut, and reports
 * every signal of a candle up to the cut whose value differs from the full run's.
 */
export async function lookahead(given: LookaheadOptions): Promise<LookaheadReport> {
  // Cut the candles the run is at: data resampled to the run's interval first (a 5m run on 1m data cuts 5m candles).
  const o = { ...given, source: atRunInterval(given, sourcesOf(given)).sources };
  const { times, candles } = await stepTimes(o);
  const n = o.cuts ?? 20;
  const full = await replay(o, undefined);
  // Cuts: evenly over the data (not at its very end: that is the full run), and at candles with intents.
  const intentTimes = [
    ...new Set([...full.values()].filter((x) => x.s.name === 'intent').map((x) => x.s.openTime)),
  ].sort((a, b) => a - b);
  const cuts = [
    ...new Set([
      ...spread(times.slice(0, -1), n),
      ...spread(
        intentTimes.filter((t) => t !== times.at(-1)),
        n,
      ),
    ]),
  ].sort((a, b) => a - b);
  const first = new Map<string, LookaheadFinding>();
  const note = (f: LookaheadFinding): void => {
    const had = first.get(f.name);
    if (had === undefined || f.openTime < had.openTime) first.set(f.name, f);
  };
  let done = 1;
  o.onProgress?.(done, cuts.length + 1);
  for (const cut of cuts) {
    const part = await replay(o, cut);
    for (const [k, x] of part) {
      const f = full.get(k);
      if (f === undefined || f.v !== x.v)
        note({ name: x.s.name, symbol: x.s.symbol, openTime: x.s.openTime, cut, full: f?.v, truncated: x.v });
    }
    for (const [k, f] of full) {
      if (f.s.openTime <= cut && !part.has(k))
        note({
          name: f.s.name,
          symbol: f.s.symbol,
          openTime: f.s.openTime,
          cut,
          full: f.v,
          truncated: undefined,
        });
    }
    o.onProgress?.(++done, cuts.length + 1);
  }
  return {
    steps: times.length,
    candles,
    symbols: sourcesOf(o).length,
    cuts,
    signals: full.size,
    names: [...new Set([...full.values()].map((x) => x.s.name))].sort(),
    findings: [...first.values()].sort((a, b) => a.openTime - b.openTime || a.name.localeCompare(b.name)),
  };
}
