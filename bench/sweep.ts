// Sweep throughput scaling with cores: the same grid on 1 worker and on all cores, in the same run.
//   npx tsx bench/sweep.ts [--candles 1000000]
import { availableParallelism } from 'node:os';
import { runSweep } from '../src/backtest/sweep.js';

const i = process.argv.indexOf('--candles');
const N = i > 0 ? Number(process.argv[i + 1]) : 1_000_000;
const base = {
  dataset: `synthetic-1m:7:${N}`,
  strategy: 'ma-crossover',
  params: { quoteAmount: '1000' },
  capital: '100000',
  feeRate: '0.001',
  slippageBps: 2,
  risk: { allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'] as ('pre_market' | 'regular' | 'after_hours' | 'overnight')[], maxDataAgeMs: 604_800_000 },
};
const grid = { fast: ['20', '50'], slow: ['150', '200'] };
const cores = availableParallelism();
const time = async (workers: number) => {
  const t0 = performance.now();
  const rows = await runSweep({ base, grid, workers });
  const ms = performance.now() - t0;
  if (rows.some((r) => r.error)) throw new Error(rows.find((r) => r.error)?.error);
  return { ms, runs: rows.length };
};
await time(cores); // warm-up (worker start-up, module loading)
const one = await time(1);
const all = await time(cores);
const cps = (r: { ms: number; runs: number }) => ((r.runs * N) / r.ms) * 1000;
console.log(`grid of ${one.runs} runs x ${N.toLocaleString('en-US')} candles`);
console.log(`1 worker:  ${one.ms.toFixed(0)} ms, ${cps(one).toLocaleString('en-US', { maximumFractionDigits: 0 })} candles/s`);
console.log(`${cores} workers: ${all.ms.toFixed(0)} ms, ${cps(all).toLocaleString('en-US', { maximumFractionDigits: 0 })} candles/s`);
console.log(`scaling ${cores} workers / 1 worker: ${(one.ms / all.ms).toFixed(2)}x`);
