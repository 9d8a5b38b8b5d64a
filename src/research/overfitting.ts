// The overfitting verdict of a sweep or a search: how likely it is that its winner is an artefact of trying
// many variants on one history.
// - Deflated Sharpe ratio: Bailey and López de Prado, "The Deflated Sharpe Ratio: Correcting for Selection
//   Bias, Backtest Overfitting and Non-Normality", Journal of Portfolio Management 40(5), 2014. The winner's
//   Sharpe ratio is tested against SR0, the expected maximum Sharpe ratio of N trials with no skill:
//     SR0 = sqrt(V[SR]) * ((1 - γ) Z⁻¹(1 - 1/N) + γ Z⁻¹(1 - 1/(N e))), γ the Euler-Mascheroni constant,
//     DSR = Z((SR - SR0) sqrt(T - 1) / sqrt(1 - γ3 SR + (γ4 - 1)/4 SR²)),
//   with SR the winner's per-period Sharpe ratio, γ3 the skewness and γ4 the kurtosis (not excess) of its
//   returns, T their number, Z the standard normal CDF. DSR is the probability that the true Sharpe ratio is
//   above 0 after the selection: at 0.95 or above the winner is significant.
// - Probability of backtest overfitting by combinatorially symmetric cross-validation: Bailey, Borwein, López
//   de Prado and Zhu, "The Probability of Backtest Overfitting", Journal of Computational Finance 20(4), 2017
//   (working paper 2015). The T x N matrix of the trials' returns is cut into S equal blocks of rows (the rows
//   past S x floor(T/S) are left out); for every choice of S/2 blocks as in-sample (C(S, S/2) splits), the
//   in-sample best trial's rank among the N out of sample (1 the worst) gives ω = rank/(N + 1) and
//   λ = ln(ω / (1 - ω)); PBO is the share of splits with λ ≤ 0. The performance measure is the Sharpe ratio.
// Periodic returns: each trial's equity is reduced to at most MAX_PERIODS equal periods (compounded), so a
// long run of one-minute candles stays a few thousand numbers per trial.
import { errorFunction, probit, sampleKurtosis, sampleSkewness } from 'simple-statistics';
import type { EquityCurvePoint } from '../backtest/result.js';
import { formatPercent } from '../market/decimal.js';

export const MAX_PERIODS = 2000;
const EULER_GAMMA = 0.5772156649015329;
/** The DSR at or above which the winner's Sharpe ratio is significant. */
export const DSR_SIGNIFICANT = 0.95;

const Phi = (z: number) => 0.5 * (1 + errorFunction(z / Math.SQRT2));

/** Z⁻¹: simple-statistics' probit (good to about 1e-3) refined by Newton's method on Phi (good to 1e-7). */
function inverseNormal(p: number): number {
  let z = probit(p);
  for (let i = 0; i < 3; i++) z -= (Phi(z) - p) / (Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI));
  return z;
}

/**
 * The returns of an equity curve from `capital`, over at most `MAX_PERIODS` equal periods: the curve's samples
 * taken every ceil(n / MAX_PERIODS), each return compounded over the samples it spans.
 */
export function periodReturns(capital: number, equity: readonly EquityCurvePoint[]): number[] {
  const values = [capital, ...equity.map((p) => p.equity)];
  const every = Math.max(1, Math.ceil((values.length - 1) / MAX_PERIODS));
  const out: number[] = [];
  for (let i = every; i < values.length; i += every)
    out.push((values[i] as number) / (values[i - every] as number) - 1);
  return out;
}

/** Per-period Sharpe ratio (mean over sample standard deviation; 0 when the returns do not vary). */
export function sharpeOf(xs: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / n;
  const v = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1);
  return v > 0 ? m / Math.sqrt(v) : 0;
}

export interface DeflatedSharpe {
  /** Trials the winner was chosen from. */
  readonly trials: number;
  /** The winner's per-period Sharpe ratio. */
  readonly sharpe: number;
  /** The expected maximum per-period Sharpe ratio of `trials` trials without skill. */
  readonly expectedMaxSharpe: number;
  /** Variance of the trials' per-period Sharpe ratios. */
  readonly sharpeVariance: number;
  readonly skewness: number;
  /** Kurtosis, not excess (3 for normal returns). */
  readonly kurtosis: number;
  /** Returns the winner's Sharpe ratio is measured on. */
  readonly periods: number;
  /** Probability that the winner's true Sharpe ratio is above 0 after selection among `trials`. */
  readonly dsr: number;
  readonly significant: boolean;
}

/** The deflated Sharpe ratio of `winner`'s returns chosen among trials of Sharpe ratios `sharpes` (per period). */
export function deflatedSharpe(winner: readonly number[], sharpes: readonly number[]): DeflatedSharpe {
  const n = sharpes.length;
  const mean = sharpes.reduce((a, b) => a + b, 0) / Math.max(1, n);
  const variance = n > 1 ? sharpes.reduce((a, s) => a + (s - mean) ** 2, 0) / (n - 1) : 0;
  const sr0 =
    n > 1
      ? Math.sqrt(variance) *
        ((1 - EULER_GAMMA) * inverseNormal(1 - 1 / n) + EULER_GAMMA * inverseNormal(1 - 1 / (n * Math.E)))
      : 0;
  const sr = sharpeOf(winner);
  const t = winner.length;
  const skewness = t >= 3 ? sampleSkewness([...winner]) : 0;
  const kurtosis = t >= 4 ? sampleKurtosis([...winner]) + 3 : 3;
  const spread = 1 - skewness * sr + ((kurtosis - 1) / 4) * sr * sr;
  const dsr =
    t > 1 && spread > 0 && Number.isFinite(skewness) && Number.isFinite(kurtosis)
      ? Phi(((sr - sr0) * Math.sqrt(t - 1)) / Math.sqrt(spread))
      : 0;
  return {
    trials: n,
    sharpe: sr,
    expectedMaxSharpe: sr0,
    sharpeVariance: variance,
    skewness: Number.isFinite(skewness) ? skewness : 0,
    kurtosis: Number.isFinite(kurtosis) ? kurtosis : 3,
    periods: t,
    dsr,
    significant: dsr >= DSR_SIGNIFICANT,
  };
}

export interface Pbo {
  /** S, the blocks the returns are cut into (even). */
  readonly blocks: number;
  /** C(S, S/2): every split tried. */
  readonly splits: number;
  /** Share of splits where the in-sample best ranks at or below the median out of sample (λ ≤ 0). */
  readonly pbo: number;
  /** Median of the splits' logits λ: below 0, the winner of one half is worse than average in the other. */
  readonly medianLogit: number;
}

/** Every way to choose k of 0..n-1, in lexicographic order. */
function* choose(n: number, k: number): Generator<number[]> {
  const c = Array.from({ length: k }, (_, i) => i);
  for (;;) {
    yield c;
    let i = k - 1;
    while (i >= 0 && (c[i] as number) === n - k + i) i--;
    if (i < 0) return;
    c[i] = (c[i] as number) + 1;
    for (let j = i + 1; j < k; j++) c[j] = (c[j - 1] as number) + 1;
  }
}

/**
 * PBO by CSCV over the trials' returns (`returns[n]` the series of trial n, all of one length), with S =
 * `blocks` (even; made smaller for a short series so that each block holds 2 returns or more). Undefined with
 * fewer than 2 trials or fewer than 4 returns.
 */
export function pboCscv(returns: readonly (readonly number[])[], blocks = 16): Pbo | undefined {
  const n = returns.length;
  const t = Math.min(...returns.map((r) => r.length));
  if (n < 2 || !(t >= 4)) return undefined;
  let s = Math.min(blocks, Math.floor(t / 2));
  s -= s % 2;
  const len = Math.floor(t / s);
  // Per trial and block: count, sum and sum of squares, so any union of blocks has its Sharpe ratio at once.
  const sum = returns.map((r) =>
    Array.from({ length: s }, (_, b) => r.slice(b * len, (b + 1) * len).reduce((a, x) => a + x, 0)),
  );
  const sq = returns.map((r) =>
    Array.from({ length: s }, (_, b) => r.slice(b * len, (b + 1) * len).reduce((a, x) => a + x * x, 0)),
  );
  const sharpeOver = (i: number, set: readonly number[]) => {
    let a = 0;
    let q = 0;
    for (const b of set) {
      a += sum[i]?.[b] as number;
      q += sq[i]?.[b] as number;
    }
    const m = set.length * len;
    const mean = a / m;
    const v = (q - m * mean * mean) / (m - 1);
    return v > 1e-300 ? mean / Math.sqrt(v) : 0;
  };
  const logits: number[] = [];
  for (const inSample of choose(s, s / 2)) {
    const out = Array.from({ length: s }, (_, b) => b).filter((b) => !inSample.includes(b));
    let best = 0;
    let bestIs = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = sharpeOver(i, inSample);
      if (v > bestIs) [best, bestIs] = [i, v];
    }
    const oos = Array.from({ length: n }, (_, i) => sharpeOver(i, out));
    const rank = 1 + oos.filter((v) => v < (oos[best] as number)).length;
    const w = rank / (n + 1);
    logits.push(Math.log(w / (1 - w)));
  }
  const sorted = [...logits].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return {
    blocks: s,
    splits: logits.length,
    pbo: logits.filter((l) => l <= 0).length / logits.length,
    medianLogit:
      sorted.length % 2 === 1
        ? (sorted[Math.floor(mid)] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2,
  };
}

/** The winner walked forward: annualised figures, so windows of different lengths compare. */
export interface WalkForwardCheck {
  readonly windows: number;
  /** Mean of the windows' in-sample runs. */
  readonly inSample: { readonly cagr: number; readonly sharpe: number };
  /** Of the stitched out-of-sample windows. */
  readonly outOfSample: { readonly cagr: number; readonly sharpe: number };
}

export interface OverfittingVerdict {
  readonly deflatedSharpe: DeflatedSharpe;
  readonly pbo: Pbo | undefined;
  readonly walkForward?: WalkForwardCheck | undefined;
  /** likely, possible or unlikely */
  readonly overfit: 'likely' | 'possible' | 'unlikely';
  readonly sentence: string;
}

/**
 * The verdict on a winner: `returns` each trial's periodic returns (see `periodReturns`), `winner` the index
 * of the chosen one, and its walk-forward when one was run.
 */
export function overfittingVerdict(
  returns: readonly (readonly number[])[],
  winner: number,
  walkForward?: WalkForwardCheck,
): OverfittingVerdict {
  const dsr = deflatedSharpe(returns[winner] ?? [], returns.map(sharpeOf));
  const pbo = pboCscv(returns);
  // Out of sample the winner kept less than half of its in-sample Sharpe ratio (or had none to keep).
  const wfBad =
    walkForward !== undefined &&
    (walkForward.outOfSample.sharpe <= 0 || walkForward.outOfSample.sharpe < walkForward.inSample.sharpe / 2);
  const overfit: OverfittingVerdict['overfit'] =
    (pbo !== undefined && pbo.pbo >= 0.5) ||
    (!dsr.significant && wfBad) ||
    (pbo === undefined && !dsr.significant)
      ? 'likely'
      : !dsr.significant || (pbo !== undefined && pbo.pbo >= 0.2) || wfBad
        ? 'possible'
        : 'unlikely';
  const pboText =
    pbo === undefined
      ? 'PBO could not be measured (too few trials or returns)'
      : `PBO ${formatPercent(pbo.pbo)} (the in-sample best was at or below the median out of sample in ${formatPercent(pbo.pbo)} of ${pbo.splits} splits)`;
  const dsrText = `deflated Sharpe ratio ${dsr.dsr.toFixed(2)}, ${dsr.significant ? 'significant' : 'not significant'} at 95% after ${dsr.trials} trials (Sharpe ${dsr.sharpe.toFixed(3)} per period against ${dsr.expectedMaxSharpe.toFixed(3)} expected from luck)`;
  const wfText =
    walkForward === undefined
      ? '; the winner was not walked forward (give --in-sample and --out-of-sample)'
      : `; walked forward over ${walkForward.windows} windows, Sharpe ${walkForward.outOfSample.sharpe.toFixed(2)} and CAGR ${formatPercent(walkForward.outOfSample.cagr)} out of sample against ${walkForward.inSample.sharpe.toFixed(2)} and ${formatPercent(walkForward.inSample.cagr)} in sample`;
  const advice =
    overfit === 'unlikely'
      ? 'Still confirm it on data the search never saw (a paper run) before trading it.'
      : 'Search fewer dimensions or narrower ranges, use more data, and widen the walk-forward before trusting it.';
  const head =
    overfit === 'likely'
      ? 'The winner is likely overfit'
      : overfit === 'possible'
        ? 'The winner may be overfit'
        : 'The winner is unlikely to be overfit';
  return {
    deflatedSharpe: dsr,
    pbo,
    ...(walkForward !== undefined ? { walkForward } : {}),
    overfit,
    sentence: `${head}: ${pboText}; ${dsrText}${wfText}. ${advice}`,
  };
}
