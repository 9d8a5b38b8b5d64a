// A sweep stopped part way resumes from its checkpoint: finished runs are not run again, the result is the
// same as an uninterrupted sweep's, and a changed strategy or job runs again.
import {
  appendFileSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SweepCheckpoint } from '../../../src/research/checkpoint.js';
import type { BacktestJob } from '../../../src/backtest/run-config.js';
import { SweepPool, runSweep } from '../../../src/research/sweep.js';
import { type JobRunner } from '../../../src/research/job.js';
import { walkForward } from '../../../src/research/walk-forward.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: BacktestJob = {
  dataset: 'synthetic-1m:5:20000',
  strategy: 'ma-crossover',
  params: { quoteAmount: '1000' },
  capital: '100000',
  feeRate: '0.001',
  slippageBps: 2,
  risk: { allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'], maxDataAgeMs: 604_800_000 },
};
const grid = { fast: ['5', '10'], slow: ['30', '60'] };

/** A pool that counts the jobs it is given. */
async function countingPool(dataset = base.dataset): Promise<JobRunner & { ran: number }> {
  const pool = await SweepPool.open({ dataset, workers: 2 });
  const run: JobRunner['run'] = (jobs, onProgress, onOutcome) => {
    counting.ran += jobs.length;
    return pool.run(jobs, onProgress, onOutcome);
  };
  const counting = { dataset: pool.dataset, shared: pool.shared, ran: 0, run, close: () => pool.close() };
  return counting;
}

describe('the sweep checkpoint', () => {
  it('resumes: runs only what an earlier attempt did not finish, with the same rows as one uninterrupted sweep', async () => {
    const whole = await runSweep({ base, grid, workers: 2 });
    const path = join(dir, 'resume.jsonl');
    // The first attempt "stopped" after two of the four runs.
    await runSweep({
      base,
      grid: { fast: ['5'], slow: ['30', '60'] },
      workers: 2,
      checkpoint: await SweepCheckpoint.open(path, base),
    });
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
    // Killed while writing a line: that line is ignored.
    appendFileSync(path, '{"key":"abc","outc');
    const pool = await countingPool();
    const told: number[][] = [];
    try {
      const rows = await runSweep({
        base,
        grid,
        pool,
        checkpoint: await SweepCheckpoint.open(path, base),
        onResume: (resumed, total) => told.push([resumed, total]),
      });
      expect(pool.ran).toBe(2);
      expect(told).toEqual([[2, 4]]);
      expect(rows).toEqual(whole);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('resumes a walk-forward: every in-sample run of every window comes from the checkpoint the second time', async () => {
    const sp: BacktestJob = { ...base, dataset: 'sp500-daily', params: { quoteAmount: '5000' } };
    const o = {
      base: sp,
      grid: { fast: ['20', '50'], slow: ['200'] },
      inSampleMs: 730 * 86_400_000,
      outOfSampleMs: 365 * 86_400_000,
    };
    const path = join(dir, 'wf.jsonl');
    const first = await walkForward({ ...o, workers: 2, checkpoint: await SweepCheckpoint.open(path, sp) });
    const pool = await countingPool(sp.dataset);
    let resumed = 0;
    const again = await walkForward({
      ...o,
      runner: pool,
      checkpoint: await SweepCheckpoint.open(path, sp),
      onResume: (n) => (resumed += n),
    });
    expect(pool.ran).toBe(0);
    expect(resumed).toBe(2 * first.steps.length);
    expect(again).toEqual(first);
  }, 60_000);

  it('runs again what changed: a job with other costs, a strategy whose source was edited', async () => {
    const strategies = join(dir, 'strategies');
    const src = join(import.meta.dirname, '..', '..', '..', 'strategies', 'ma-crossover.ts');
    mkdirSync(strategies, { recursive: true });
    copyFileSync(src, join(strategies, 'ma-crossover.ts'));
    const own: BacktestJob = { ...base, strategyLookup: { dirs: [strategies] } };
    const job = { ...own, params: { ...own.params, fast: '5', slow: '30' } };
    const path = join(dir, 'edited.jsonl');
    const first = await SweepCheckpoint.open(path, own);
    first.add(job, { ok: true, tradeHash: 'h' });
    expect((await SweepCheckpoint.open(path, own)).get(job)).toEqual({ ok: true, tradeHash: 'h' });
    expect((await SweepCheckpoint.open(path, own)).get({ ...job, feeRate: '0.002' })).toBeUndefined();
    writeFileSync(join(strategies, 'ma-crossover.ts'), `${readFileSync(src, 'utf8')}\n// tuned\n`);
    expect((await SweepCheckpoint.open(path, own)).get(job)).toBeUndefined();
  });
});
