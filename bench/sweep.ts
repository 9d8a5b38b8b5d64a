// Sweep throughput scaling with cores: the same grid on a pool of 1 worker and on a pool of all cores, in
// the same run. Pool start-up (workers loading the code, the dataset loaded once into shared memory) is
// timed apart from the grid, because it is paid once per sweep, not per run.
// Then the same grid through a BullMQ queue on a local redis-server, with as many queue workers as cores (each
// on a one-thread SweepPool, as `tradebot worker` runs), to show the queue's overhead per job.
//   npx tsx bench/sweep.ts [--candles 1000000] [--runs 8] [--run2-only]
// --run2-only prints the first part only: a sweep's first runs one by one in one thread, run 2 / run 1.
import { availableParallelism } from 'node:os';
import type { BacktestJob } from '../src/backtest/run-config.js';
import { QueueRunner, startSweepWorker } from '../src/research/sweep-queue.js';
import { runJob } from '../src/research/run-job.js';
import { SweepPool } from '../src/research/sweep.js';
import { openDataset } from '../src/data/datasets.js';
import { shareCandles, sharedCandleSource } from '../src/data/shared-candles.js';
// The tests' redis-server launcher (free loopback port, no persistence): one helper, not a second copy.
import { redisMissing, startRedis } from '../test/helpers/redis.js';
import { numberFlag } from './lib/flags.js';

const N = numberFlag('candles', 1_000_000);
const RUNS = numberFlag('runs', 8);
const dataset = `synthetic-1m:7:${N}`;
const base: BacktestJob = {
  dataset,
  strategy: 'ma-crossover',
  params: { quoteAmount: '1000' },
  capital: '100000',
  feeRate: '0.001',
  slippageBps: 2,
  risk: { allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'], maxDataAgeMs: 604_800_000 },
};
// RUNS parameter sets of similar cost: fast 20..(20+RUNS-1), slow 200.
const jobs: BacktestJob[] = Array.from({ length: RUNS }, (_, k) => ({
  ...base,
  params: { ...base.params, fast: 20 + k, slow: 200 },
}));
const cores = availableParallelism();
const fmt = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });

// A sweep's runs one after the other in one thread, as a worker runs them (the dataset in shared memory, each
// job with its own parameters): run 2 must cost about what run 1 did, not pay again for code V8 threw away
// because run 2's objects had other shapes than run 1's (`node --trace-deopt`). The engine's own run time.
{
  const shared = await shareCandles(openDataset(dataset));
  const source = shared === undefined ? undefined : sharedCandleSource(shared);
  const ms: number[] = [];
  for (const job of jobs.slice(0, 4))
    ms.push((await runJob({ ...job, chart: false }, undefined, source)).result.timing.runMs);
  const [r1 = Number.NaN, r2 = Number.NaN, r3 = Number.NaN] = ms;
  console.log(
    `one thread, a sweep's runs in order: ${ms.map((x) => `${fmt(x)} ms`).join(', ')}; run 2 / run 1 ${(r2 / r1).toFixed(3)}, run 3 / run 2 ${(r3 / r2).toFixed(3)}`,
  );
}
if (process.argv.includes('--run2-only')) process.exit(0);

const measure = async (workers: number) => {
  const t0 = performance.now();
  const pool = await SweepPool.open({ dataset, workers });
  await pool.run(jobs.slice(0, workers)); // each worker's first run warms its JIT
  const startMs = performance.now() - t0;
  try {
    const t1 = performance.now();
    const out = await pool.run(jobs);
    const ms = performance.now() - t1;
    const failed = out.find((o) => !o.ok);
    if (failed) throw new Error(failed.error);
    return { workers, startMs, ms, shared: pool.shared !== undefined, hashes: out.map((o) => o.tradeHash) };
  } finally {
    await pool.close();
  }
};

const one = await measure(1);
const all = await measure(cores);
if (one.hashes.join() !== all.hashes.join())
  throw new Error('the same jobs traded differently on 1 and on all workers');
console.log(
  `grid of ${RUNS} runs x ${N.toLocaleString('en-US')} candles, dataset ${one.shared ? 'in shared memory' : 'streamed by each job'}`,
);
for (const r of [one, all]) {
  console.log(
    `${String(r.workers).padStart(2)} worker(s): pool start-up and warm-up ${fmt(r.startMs)} ms; grid ${fmt(r.ms)} ms, ${fmt(((RUNS * N) / r.ms) * 1000)} candles/s`,
  );
}
console.log(`scaling ${cores} workers / 1 worker: ${(one.ms / all.ms).toFixed(2)}x (same trade hashes)`);

if (redisMissing) console.log(`queue: ${redisMissing}`);
else {
  const redis = await startRedis();
  try {
    const ws = await Promise.all(Array.from({ length: cores }, () => startSweepWorker({ url: redis.url })));
    const runner = await QueueRunner.open({ url: redis.url, dataset });
    try {
      await runner.run(jobs.slice(0, cores)); // each worker's pool opens and warms up
      const t1 = performance.now();
      const out = await runner.run(jobs);
      const ms = performance.now() - t1;
      if (out.map((o) => o.tradeHash).join() !== all.hashes.join())
        throw new Error('the queue traded differently from the local pool');
      console.log(
        `${String(cores).padStart(2)} queue worker(s) on redis: grid ${fmt(ms)} ms, ${fmt(((RUNS * N) / ms) * 1000)} candles/s; ${(all.ms / ms).toFixed(2)}x the local pool, overhead ${fmt((ms - all.ms) / RUNS)} ms per job (same trade hashes)`,
      );
    } finally {
      await runner.close();
      await Promise.all(ws.map((w) => w.close()));
    }
  } finally {
    await redis.stop();
  }
}
