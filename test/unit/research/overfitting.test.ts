// The overfitting verdict against an independent computation written here from the papers' formulas (no code
// of the product's statistics is used for the expected figures): the deflated Sharpe ratio (Bailey and López
// de Prado 2014) and the probability of backtest overfitting by CSCV (Bailey, Borwein, López de Prado and Zhu).
import { describe, expect, it } from 'vitest';
import { deflatedSharpe, overfittingVerdict, pboCscv, sharpeOf } from '../../../src/research/overfitting.js';

/** A seeded stream of standard normal draws (LCG + Box-Muller), independent of the product's generators. */
function normals(seed: number): () => number {
  let s = seed;
  const u = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s + 0.5) / 2147483648;
  };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

const series = (seed: number, n: number, mean: number, sd: number) => {
  const z = normals(seed);
  return Array.from({ length: n }, () => mean + sd * z());
};

// --- the independent computation ---
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(xs.reduce((a, x) => a + (x - avg(xs)) ** 2, 0) / (xs.length - 1));
const sr = (xs: number[]) => avg(xs) / sd(xs);
/** Standard normal CDF by Simpson's rule on the density from 0 to |z|. */
function cdf(z: number): number {
  const n = 2000;
  const h = Math.abs(z) / n;
  const f = (x: number) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  let s = f(0) + f(Math.abs(z));
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(i * h);
  const half = (s * h) / 3;
  return z >= 0 ? 0.5 + half : 0.5 - half;
}
/** Its inverse by bisection. */
function inv(p: number): number {
  let lo = -10;
  let hi = 10;
  for (let i = 0; i < 100; i++) {
    const m = (lo + hi) / 2;
    if (cdf(m) < p) lo = m;
    else hi = m;
  }
  return (lo + hi) / 2;
}
/** Adjusted Fisher-Pearson skewness and the unbiased kurtosis (plus 3: not excess). */
function moments(x: number[]): { g3: number; g4: number } {
  const n = x.length;
  const m = avg(x);
  const m2 = x.reduce((a, v) => a + (v - m) ** 2, 0);
  const m3 = x.reduce((a, v) => a + (v - m) ** 3, 0);
  const m4 = x.reduce((a, v) => a + (v - m) ** 4, 0);
  const s = Math.sqrt(m2 / (n - 1));
  const g3 = (n * m3) / ((n - 1) * (n - 2) * s ** 3);
  const excess = ((n - 1) / ((n - 2) * (n - 3))) * ((n * (n + 1) * m4) / (m2 * m2) - 3 * (n - 1));
  return { g3, g4: excess + 3 };
}
function expectedDsr(trials: number[][], w: number): number {
  const srs = trials.map(sr);
  const v = sd(srs) ** 2;
  const N = trials.length;
  const g = 0.5772156649015329;
  const sr0 = Math.sqrt(v) * ((1 - g) * inv(1 - 1 / N) + g * inv(1 - 1 / (N * Math.E)));
  const x = trials[w] as number[];
  const { g3, g4 } = moments(x);
  const s = sr(x);
  return cdf(((s - sr0) * Math.sqrt(x.length - 1)) / Math.sqrt(1 - g3 * s + ((g4 - 1) / 4) * s * s));
}
/** CSCV by brute force: every half of S blocks, the series cut and joined again, the Sharpe of each. */
function expectedPbo(trials: number[][], S: number): number {
  const T = trials[0]?.length ?? 0;
  const len = Math.floor(T / S);
  const halves: number[][] = [];
  const walk = (from: number, picked: number[]) => {
    if (picked.length === S / 2) return void halves.push(picked);
    for (let b = from; b < S; b++) walk(b + 1, [...picked, b]);
  };
  walk(0, []);
  let overfit = 0;
  for (const J of halves) {
    const Jc = [...Array(S).keys()].filter((b) => !J.includes(b));
    const cut = (x: number[], bs: number[]) => bs.flatMap((b) => x.slice(b * len, (b + 1) * len));
    const is = trials.map((x) => sr(cut(x, J)));
    const oos = trials.map((x) => sr(cut(x, Jc)));
    const star = is.indexOf(Math.max(...is));
    const rank = 1 + oos.filter((v) => v < (oos[star] as number)).length;
    const w = rank / (trials.length + 1);
    if (Math.log(w / (1 - w)) <= 0) overfit++;
  }
  return overfit / halves.length;
}

describe('the overfitting verdict', () => {
  // 30 strategies of pure noise: no skill, 600 returns each.
  const noise = Array.from({ length: 30 }, (_, i) => series(100 + i, 600, 0, 0.01));
  // 10 strategies of noise and one with a real edge planted (mean 0.3 sd per period).
  const edge = [
    ...Array.from({ length: 10 }, (_, i) => series(200 + i, 600, 0, 0.01)),
    series(999, 600, 0.003, 0.01),
  ];

  it('on pure noise: PBO near 0.5 or above and a deflated Sharpe ratio that is not significant', () => {
    const winner = noise.map(sr).indexOf(Math.max(...noise.map(sr)));
    const p = pboCscv(noise, 8);
    const want = expectedPbo(noise, 8);
    const d = deflatedSharpe(noise[winner] as number[], noise.map(sharpeOf));
    console.log(
      `noise fixture: PBO ${p?.pbo} (independent ${want}), DSR ${d.dsr} (independent ${expectedDsr(noise, winner)})`,
    );
    expect(p?.splits).toBe(70);
    expect(p?.pbo).toBeCloseTo(want, 10);
    expect(want).toBeGreaterThanOrEqual(0.4);
    expect(d.dsr).toBeCloseTo(expectedDsr(noise, winner), 5);
    expect(d.significant).toBe(false);
    expect(overfittingVerdict(noise, winner).sentence).toMatch(/^The winner is likely overfit: PBO/);
  });

  it('with an edge planted: a low PBO and a significant deflated Sharpe ratio', () => {
    const winner = 10;
    expect(edge.map(sr).indexOf(Math.max(...edge.map(sr)))).toBe(winner);
    const p = pboCscv(edge, 8);
    const want = expectedPbo(edge, 8);
    const d = deflatedSharpe(edge[winner] as number[], edge.map(sharpeOf));
    console.log(
      `edge fixture: PBO ${p?.pbo} (independent ${want}), DSR ${d.dsr} (independent ${expectedDsr(edge, winner)})`,
    );
    expect(p?.pbo).toBeCloseTo(want, 10);
    expect(want).toBeLessThan(0.1);
    expect(d.dsr).toBeCloseTo(expectedDsr(edge, winner), 5);
    expect(d.significant).toBe(true);
    expect(overfittingVerdict(edge, winner).overfit).toBe('unlikely');
  });

  it('uses every split of 16 blocks by default', () => {
    expect(pboCscv(noise)?.splits).toBe(12870);
  });
});
