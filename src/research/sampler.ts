// The samplers of `tradebot hyperopt`: seeded random search, and the Tree-structured Parzen Estimator of
// Bergstra, Bardenet, Bengio and Kégl, "Algorithms for Hyper-Parameter Optimization" (NIPS 2011), section 4.
// Pure: a sampler answers the next points of the space from the trials seen so far. Each trial's draws come
// from its own stream (seed and trial index), so the same seed and the same history give the same points.
import { errorFunction } from 'simple-statistics';
import { mulberry32 } from '../data/synthetic.js';
import type { SearchSpace, SpaceDimension } from '../strategy/search-space.js';

export type SampleValue = number | string;
/** One point of the space: a value per dimension key. */
export type Sample = Readonly<Record<string, SampleValue>>;

/** A finished trial: its point and its loss (lower is better; a failed run is +Infinity). */
export interface Observation {
  readonly sample: Sample;
  readonly loss: number;
}

export const SAMPLERS = ['tpe', 'random'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface Sampler {
  readonly name: SamplerName;
  /**
   * The points of trials `first` .. `first + count - 1`, given every trial finished before `first` (a batch:
   * they are drawn together and run together, see `suggest` of the TPE for how it spreads them).
   */
  suggest(history: readonly Observation[], first: number, count: number): Sample[];
}

/** A uniform stream in [0, 1) for one trial of one seed (mulberry32 on the two mixed). */
function trialRng(seed: number, trial: number): () => number {
  let h = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(trial + 1, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  return mulberry32(h ^ (h >>> 15));
}

/** Reals keep six significant digits: what runs is what the trial records, and a decimal string is short. */
const round6 = (x: number) => Number(x.toPrecision(6));

/** A uniform draw of one dimension. */
function drawUniform(d: SpaceDimension, u: number): SampleValue {
  switch (d.kind) {
    case 'int':
      return Math.min(d.high, d.low + Math.floor(u * (d.high - d.low + 1)));
    case 'real':
      return round6(d.low + u * (d.high - d.low));
    case 'log':
      return round6(Math.exp(Math.log(d.low) + u * (Math.log(d.high) - Math.log(d.low))));
    case 'cat':
      return d.choices[Math.min(d.choices.length - 1, Math.floor(u * d.choices.length))] as string;
  }
}

function randomSample(space: SearchSpace, rng: () => number): Sample {
  const out: Record<string, SampleValue> = {};
  for (const [k, d] of Object.entries(space)) out[k] = drawUniform(d, rng());
  return out;
}

/** Seeded random search: every dimension uniform (a log dimension uniform in its logarithm). */
export function randomSampler(space: SearchSpace, seed: number): Sampler {
  return {
    name: 'random',
    suggest: (_h, first, count) =>
      Array.from({ length: count }, (_, j) => randomSample(space, trialRng(seed, first + j))),
  };
}

export interface TpeOptions {
  /** Trials drawn at random before the estimators take over (optuna's and hyperopt's n_startup). */
  readonly startup?: number | undefined;
  /** The quantile γ of the observed losses that splits good from bad (p(y < y*) = γ, section 4). */
  readonly gamma?: number | undefined;
  /** Candidates drawn from l(x), of which the one with the largest l(x)/g(x) is chosen (section 4.1). */
  readonly candidates?: number | undefined;
}

const Phi = (z: number) => 0.5 * (1 + errorFunction(z / Math.SQRT2));

/**
 * An adaptive Parzen estimator of one numeric dimension, in the dimension's own scale (the logarithm of a log
 * dimension): a truncated Gaussian per observation plus one for the prior (centre of the range, width the
 * range), each as wide as the larger gap to its neighbours, clipped to [range / min(100, 1 + n), range]
 * (section 4.2; the clipping as in the authors' hyperopt).
 */
class Parzen {
  private readonly mus: number[];
  private readonly sigmas: number[];
  private readonly masses: number[];

  constructor(
    values: readonly number[],
    private readonly lo: number,
    private readonly hi: number,
  ) {
    const range = hi - lo;
    const mus = [...values, (lo + hi) / 2].sort((a, b) => a - b);
    const n = mus.length;
    const sigmas = mus.map((m, i) => {
      const left = i > 0 ? m - (mus[i - 1] as number) : Infinity;
      const right = i < n - 1 ? (mus[i + 1] as number) - m : Infinity;
      const gap = Math.max(left === Infinity ? 0 : left, right === Infinity ? 0 : right);
      return Math.min(range, Math.max(range / Math.min(100, 1 + n), gap));
    });
    // The prior keeps the width of the whole range.
    const p = mus.indexOf((lo + hi) / 2);
    sigmas[p] = range;
    this.mus = mus;
    this.sigmas = sigmas;
    this.masses = mus.map(
      (m, i) => Phi((hi - m) / (sigmas[i] as number)) - Phi((lo - m) / (sigmas[i] as number)),
    );
  }

  /** Probability of [a, b] under the mixture (equal weights, each Gaussian truncated to [lo, hi]). */
  mass(a: number, b: number): number {
    let s = 0;
    for (let i = 0; i < this.mus.length; i++) {
      const m = this.mus[i] as number;
      const sd = this.sigmas[i] as number;
      const lo = Math.max(a, this.lo);
      const hi = Math.min(b, this.hi);
      if (hi > lo) s += (Phi((hi - m) / sd) - Phi((lo - m) / sd)) / (this.masses[i] as number);
    }
    return s / this.mus.length;
  }

  density(x: number): number {
    let s = 0;
    for (let i = 0; i < this.mus.length; i++) {
      const sd = this.sigmas[i] as number;
      const z = (x - (this.mus[i] as number)) / sd;
      s += Math.exp(-0.5 * z * z) / (sd * Math.sqrt(2 * Math.PI) * (this.masses[i] as number));
    }
    return s / this.mus.length;
  }

  /** A draw: a component at random, then its Gaussian until it falls inside [lo, hi] (Box-Muller). */
  draw(rng: () => number): number {
    const i = Math.min(this.mus.length - 1, Math.floor(rng() * this.mus.length));
    for (let k = 0; k < 100; k++) {
      const z = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
      const x = (this.mus[i] as number) + (this.sigmas[i] as number) * z;
      if (x >= this.lo && x <= this.hi) return x;
    }
    return Math.min(this.hi, Math.max(this.lo, this.mus[i] as number));
  }
}

/** l(x) or g(x) of one dimension: draw a value and score one (the log of its density or mass). */
interface Estimator {
  draw(rng: () => number): SampleValue;
  logScore(v: SampleValue): number;
}

function estimator(d: SpaceDimension, values: readonly SampleValue[]): Estimator {
  if (d.kind === 'cat') {
    // Counts with one pseudo-count per choice: the posterior of a uniform prior.
    const w = d.choices.map((c) => 1 + values.filter((v) => v === c).length);
    const total = w.reduce((a, b) => a + b, 0);
    return {
      draw(rng) {
        let u = rng() * total;
        for (let i = 0; i < w.length; i++) if ((u -= w[i] as number) < 0) return d.choices[i] as string;
        return d.choices[d.choices.length - 1] as string;
      },
      logScore: (v) => Math.log((w[d.choices.indexOf(String(v))] ?? 0) / total),
    };
  }
  if (d.kind === 'int') {
    // Whole numbers: the estimator over [low - 1/2, high + 1/2], each value scored by the mass that rounds to it.
    const p = new Parzen(values as number[], d.low - 0.5, d.high + 0.5);
    return {
      draw: (rng) => Math.min(d.high, Math.max(d.low, Math.round(p.draw(rng)))),
      logScore: (v) => Math.log(p.mass((v as number) - 0.5, (v as number) + 0.5)),
    };
  }
  const log = d.kind === 'log';
  const f = (x: number) => (log ? Math.log(x) : x);
  const p = new Parzen((values as number[]).map(f), f(d.low), f(d.high));
  return {
    draw: (rng) => {
      const x = p.draw(rng);
      return round6(Math.min(d.high, Math.max(d.low, log ? Math.exp(x) : x)));
    },
    // The Jacobian of the logarithm is the same in l and g: it cancels in l/g.
    logScore: (v) => Math.log(p.density(f(v as number))),
  };
}

/** One TPE point from `obs`: candidates from l(x), the one maximising l(x)/g(x) (equation 4 of the paper). */
function tpeSample(
  space: SearchSpace,
  obs: readonly Observation[],
  rng: () => number,
  gamma: number,
  candidates: number,
): Sample {
  const sorted = obs.map((o, i) => ({ o, i })).sort((a, b) => a.o.loss - b.o.loss || a.i - b.i);
  const nGood = Math.max(1, Math.ceil(gamma * sorted.length));
  const good = sorted.slice(0, nGood).map((x) => x.o.sample);
  const bad = sorted.slice(nGood).map((x) => x.o.sample);
  const dims = Object.entries(space).map(([k, d]) => ({
    k,
    l: estimator(
      d,
      good.map((s) => s[k] as SampleValue),
    ),
    g: estimator(
      d,
      bad.map((s) => s[k] as SampleValue),
    ),
  }));
  let best: Sample | undefined;
  let bestScore = -Infinity;
  for (let c = 0; c < candidates; c++) {
    const x: Record<string, SampleValue> = {};
    let score = 0;
    for (const { k, l, g } of dims) {
      const v = l.draw(rng);
      x[k] = v;
      score += l.logScore(v) - g.logScore(v);
    }
    if (best === undefined || score > bestScore) {
      best = x;
      bestScore = score;
    }
  }
  return best as Sample;
}

/**
 * TPE (Bergstra et al. 2011). The first `startup` trials are random; then the observed losses are split at
 * their γ-quantile y* into good and bad, one Parzen estimator l(x) is fitted per dimension on the good points
 * and g(x) on the bad ones, `candidates` points are drawn from l and the one with the largest l(x)/g(x) (the
 * largest expected improvement, equation 6) is run. A batch is drawn by the constant liar (Ginsbourger et al.
 * 2010): each point drawn joins the history with the worst loss seen, so the next one looks elsewhere. The
 * batch size is fixed by the run, not by how many workers run it: the same seed gives the same points.
 */
export function tpeSampler(space: SearchSpace, seed: number, o: TpeOptions = {}): Sampler {
  const startup = o.startup ?? 10;
  const gamma = o.gamma ?? 0.25;
  const candidates = o.candidates ?? 24;
  return {
    name: 'tpe',
    suggest(history, first, count) {
      const out: Sample[] = [];
      const finite = history.map((h) => h.loss).filter((l) => Number.isFinite(l));
      const lie = finite.length > 0 ? Math.max(...finite) : 0;
      for (let j = 0; j < count; j++) {
        const rng = trialRng(seed, first + j);
        if (first + j < startup || history.length === 0) {
          out.push(randomSample(space, rng));
          continue;
        }
        const obs = [...history, ...out.map((sample) => ({ sample, loss: lie }))];
        out.push(tpeSample(space, obs, rng, gamma, candidates));
      }
      return out;
    },
  };
}

export const samplerOf = (name: SamplerName, space: SearchSpace, seed: number, o?: TpeOptions): Sampler =>
  name === 'tpe' ? tpeSampler(space, seed, o) : randomSampler(space, seed);

/**
 * The search loop the command and the tests share: `budget` trials in batches of `batch`, each batch's points
 * from the sampler and its losses from `evaluate` (the backtests, or a test double of them).
 */
export async function searchLoop(o: {
  sampler: Sampler;
  budget: number;
  batch: number;
  evaluate: (samples: readonly Sample[], first: number) => Promise<readonly number[]>;
}): Promise<Observation[]> {
  const history: Observation[] = [];
  while (history.length < o.budget) {
    const first = history.length;
    const samples = o.sampler.suggest(history, first, Math.min(o.batch, o.budget - first));
    const losses = await o.evaluate(samples, first);
    samples.forEach((sample, i) => history.push({ sample, loss: losses[i] ?? Infinity }));
  }
  return history;
}
