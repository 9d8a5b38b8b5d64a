// The samplers on a synthetic objective with a known optimum: a test double of the backtest behind the same
// evaluate interface the command uses (searchLoop), no timing.
import { describe, expect, it } from 'vitest';
import {
  randomSampler,
  searchLoop,
  tpeSampler,
  type Sample,
  type Sampler,
} from '../../../src/research/sampler.js';
import { parseSearchSpace } from '../../../src/strategy/search-space.js';

const space = parseSearchSpace(
  { fast: 'int(2,100)', 'exits.stopLoss': 'log(0.001,0.5)', mode: 'cat(a,b,c,d)' },
  'test',
);

/** Profit of a made-up strategy: 100 at fast=37, stopLoss=0.03, mode=c, falling smoothly away from it. */
const OPTIMUM = 100;
const profit = (s: Sample) => {
  const x = ((s.fast as number) - 37) / 20;
  const y = Math.log((s['exits.stopLoss'] as number) / 0.03) / 1.2;
  return OPTIMUM * Math.exp(-x * x - y * y) * (s.mode === 'c' ? 1 : 0.8);
};

const BUDGET = 300;

/** Trials until one is within 5% of the optimum (the budget when none is). */
async function trialsToReach(sampler: Sampler): Promise<number> {
  const h = await searchLoop({
    sampler,
    budget: BUDGET,
    batch: 1,
    evaluate: async (xs) => xs.map((s) => -profit(s)),
  });
  const k = h.findIndex((o) => -o.loss >= 0.95 * OPTIMUM);
  return k === -1 ? BUDGET : k + 1;
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('samplers', () => {
  it('TPE reaches within 5% of the optimum in fewer trials than random search, over 10 seeds', async () => {
    const tpe: number[] = [];
    const rnd: number[] = [];
    for (const seed of SEEDS) {
      tpe.push(await trialsToReach(tpeSampler(space, seed)));
      rnd.push(await trialsToReach(randomSampler(space, seed)));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(
      `trials to within 5% of the optimum, mean of 10 seeds: TPE ${mean(tpe)} (${tpe.join(' ')}), random ${mean(rnd)} (${rnd.join(' ')})`,
    );
    expect(mean(tpe)).toBeLessThan(mean(rnd));
  });

  it('gives the same points for the same seed, and other points for another', async () => {
    const run = (seed: number) =>
      searchLoop({
        sampler: tpeSampler(space, seed),
        budget: 30,
        batch: 4,
        evaluate: async (xs) => xs.map((s) => -profit(s)),
      });
    expect(await run(7)).toEqual(await run(7));
    expect(await run(7)).not.toEqual(await run(8));
  });

  it('keeps every point inside its dimension', async () => {
    const h = await searchLoop({
      sampler: tpeSampler(space, 3),
      budget: 60,
      batch: 3,
      evaluate: async (xs) => xs.map((s) => -profit(s)),
    });
    for (const { sample: s } of h) {
      expect(Number.isInteger(s.fast)).toBe(true);
      expect(s.fast as number).toBeGreaterThanOrEqual(2);
      expect(s.fast as number).toBeLessThanOrEqual(100);
      expect(s['exits.stopLoss'] as number).toBeGreaterThanOrEqual(0.001);
      expect(s['exits.stopLoss'] as number).toBeLessThanOrEqual(0.5);
      expect(['a', 'b', 'c', 'd']).toContain(s.mode);
    }
  });
});
