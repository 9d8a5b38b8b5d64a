// The warm-up measured, not guessed: the indicators a strategy builds from 'tradebot' tell a probe how many
// inputs they need to be exact (`samplesNeeded`), and the runner asks, when a symbol's declared or derived
// warm-up ends, which of them have not had that many. The probe is set only while the runner hands the
// strategy a candle of a warm-up (or builds its state): nothing is looked at once the warm-up is over.

/**
 * What an indicator's memory of the start of its data may weigh in its value once it counts as settled:
 * 0.1%. An EMA seeded from its first price, or Wilder's average (RSI, ATR) seeded from a first window, keeps
 * that start's weight as (1 - alpha)^k after k more inputs; a window (SMA, Bollinger bands) forgets it whole.
 */
export const SETTLE_TOLERANCE = 1e-3;

/** Inputs after which a start of weight 1 decays by `decay` an input to `SETTLE_TOLERANCE` or less. */
export const inputsToForget = (decay: number): number =>
  decay <= 0 ? 0 : Math.ceil(Math.log(SETTLE_TOLERANCE) / Math.log(decay));

/** An indicator the probe watches: its name, the inputs it has seen and those it needs to be exact. */
export interface ProbedIndicator {
  /** e.g. `EMA(50)`. */
  readonly indicatorName: string;
  /** Inputs seen (a `replace` is not one more). */
  readonly samples: number;
  /** Inputs it needs before its value depends on the start of the data by at most `SETTLE_TOLERANCE`. */
  readonly samplesNeeded: number;
}

/** An indicator whose warm-up ended before it had the inputs it needs. */
export interface UnsettledIndicator {
  readonly name: string;
  /** Symbol whose candles it was built for (undefined: built before any candle, e.g. in `init`). */
  readonly symbol: string | undefined;
  readonly had: number;
  readonly needs: number;
}

/** What the probe found when a warm-up ended short, with the number of candles to declare. */
export interface WarmUpShortfall {
  /** `startupCandles` that would have given each indicator the inputs it needs. */
  readonly declare: number;
  readonly indicators: readonly UnsettledIndicator[];
}

/** The indicators of one run, each with the symbol whose warm-up candle was being handed over when it was built. */
export class WarmUpProbe {
  private readonly watched: { ind: ProbedIndicator; symbol: string | undefined }[] = [];
  /** Symbol of the candle being handed to the strategy (undefined while its state is built). */
  symbol: string | undefined = undefined;

  add(ind: ProbedIndicator): void {
    this.watched.push({ ind, symbol: this.symbol });
  }

  /**
   * The indicators fed during the warm-up of `symbol` (or, with `all`, those built before any candle too)
   * that have fewer inputs than they need, and the warm-up that would have been enough: `declared` plus
   * the largest shortfall (an indicator is fed once per candle of its interval).
   */
  shortfall(declared: number, symbol: string, all: boolean): WarmUpShortfall | undefined {
    const out: UnsettledIndicator[] = [];
    for (const { ind, symbol: s } of this.watched) {
      if (!(s === symbol || (all && s === undefined))) continue;
      if (ind.samples === 0 || ind.samples >= ind.samplesNeeded) continue;
      out.push({ name: ind.indicatorName, symbol: s, had: ind.samples, needs: ind.samplesNeeded });
    }
    if (out.length === 0) return undefined;
    const declare = declared + Math.max(...out.map((u) => u.needs - u.had));
    return { declare, indicators: out };
  }
}

let active: WarmUpProbe | undefined;

/** The probe of the run whose strategy code runs now, if any (read by an indicator's constructor). */
export const activeWarmUpProbe = (): WarmUpProbe | undefined => active;

/**
 * Runs `fn` (synchronous: the strategy's state built, a warm-up candle handed over) with `probe` active for
 * `symbol`, so indicators built inside register with it; the previous probe is restored after.
 */
export function probing<T>(probe: WarmUpProbe, symbol: string | undefined, fn: () => T): T {
  const before = active;
  active = probe;
  probe.symbol = symbol;
  try {
    return fn();
  } finally {
    active = before;
  }
}

/** One sentence for a shortfall: which indicators, their inputs, and the number to declare. */
export function shortfallSentence(w: WarmUpShortfall, warmUp: { candles: number; source: string }): string {
  const list = w.indicators
    .map(
      (u) =>
        `${u.name}${u.symbol === undefined ? '' : ` on ${u.symbol}`} had ${u.had} of the ${u.needs} inputs it needs`,
    )
    .join(', ');
  return `warm-up too short: ${warmUp.candles} candles (${warmUp.source}), but ${list} when it ended; declare startupCandles: ${w.declare}`;
}
