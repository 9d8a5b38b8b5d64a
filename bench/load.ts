// Backtest end to end from a file: opening the dataset, reading it and the whole run (SMA 50/200 through
// stream, strategy, risk gate, fill model, portfolio), from a CSV the first time (parse, validate, write the
// columnar cache), from the cache, the same for a CSV another tool wrote (a header row, no tradebot metadata: the
// instrument given), from Feather and Parquet files, and from memory (the baseline: batches already loaded), in
// one process after one warm-up run, so the ratios compare like with like.
//   npx tsx bench/load.ts [--candles 1000000] [--repeat 5]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCandles } from '../src/data/convert.js';
import { openDataset } from '../src/data/datasets.js';
import { runBacktest } from '../src/backtest/engine.js';
import type { CandleBatch, CandleSource } from '../src/data/format.js';
import { syntheticSource } from '../src/data/synthetic.js';
import { RiskLimitsSchema } from '../src/risk/index.js';
import { loadStrategy } from '../src/strategy/loader.js';
import { numberFlag } from './lib/flags.js';
import { collectGarbage } from './lib/gc.js';

const N = numberFlag('candles', 1_000_000);
const REPEAT = numberFlag('repeat', 5);
const PARAMS = { fast: 50, slow: 200, quoteAmount: '1000' };
const risk = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
const strategy = await loadStrategy('ma-crossover');
const dir = mkdtempSync(join(tmpdir(), 'tradebot-load-'));
const cache = join(dir, 'cache');
const foreignCache = join(dir, 'foreign-cache');
const fmt = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });

try {
  const csv = join(dir, 'synthetic.csv');
  await writeCandles(csv, syntheticSource({ seed: 7, count: N }));
  const feather = join(dir, 'synthetic.feather');
  const parquet = join(dir, 'synthetic.parquet');
  await writeCandles(feather, openDataset(csv, { cacheDir: undefined }));
  await writeCandles(parquet, openDataset(csv, { cacheDir: undefined }));
  // The same candles as another tool writes them: a header row, no metadata line.
  const foreign = join(dir, 'foreign.csv');
  const text = readFileSync(csv, 'utf8');
  writeFileSync(foreign, text.slice(text.indexOf('\n') + 1));
  const instrument = openDataset(csv, { cacheDir: undefined }).meta.instrument;

  // The in-memory baseline: every batch loaded before the clock starts.
  const batches: CandleBatch[] = [];
  const loaded = openDataset(feather);
  for await (const b of loaded.batches()) batches.push(b);
  const memory: CandleSource = {
    meta: loaded.meta,
    batches: async function* () {
      yield* batches;
    },
  };

  let hash: string | undefined;
  /** ms from opening the dataset to the result. */
  const endToEnd = async (open: () => CandleSource) => {
    collectGarbage(); // each timed run starts on a collected heap (see bench/lib/gc.ts)
    const t0 = performance.now();
    const r = await runBacktest({
      source: open(),
      dataset: 'bench',
      strategy,
      params: PARAMS,
      risk,
      capital: '100000',
      slippageBps: 2,
      chart: true,
    });
    const ms = performance.now() - t0;
    hash ??= r.meta.tradeHash;
    if (r.meta.tradeHash !== hash || r.meta.candles !== N)
      throw new Error('a format traded differently: the readers disagree');
    return ms;
  };
  // Modes take turns within each repetition, so a busy machine slows each of them alike.
  // [name, open, the cache folder emptied before it (a cold read)]
  const modes: [string, () => CandleSource, string?][] = [
    ['CSV, cold (parse + validate + write cache)', () => openDataset(csv, { cacheDir: cache }), cache],
    ['CSV, warm (remembered SHA-256 + cached columns)', () => openDataset(csv, { cacheDir: cache })],
    [
      "another tool's CSV, cold (parse + validate + write cache)",
      () => openDataset(foreign, { instrument, cacheDir: foreignCache }),
      foreignCache,
    ],
    [
      "another tool's CSV, warm (remembered SHA-256 + cached columns)",
      () => openDataset(foreign, { instrument, cacheDir: foreignCache }),
    ],
    ['Feather file (direct Arrow read)', () => openDataset(feather)],
    ['Parquet file (hyparquet)', () => openDataset(parquet)],
    ['in memory (baseline)', () => memory],
  ];
  const times = modes.map((): number[] => []);
  await endToEnd(() => memory); // JIT warm-up, not reported
  for (let k = 0; k < REPEAT; k++) {
    for (const [i, [, open, cold]] of modes.entries()) {
      if (cold !== undefined) rmSync(cold, { recursive: true, force: true });
      times[i]?.push(await endToEnd(open));
    }
  }
  const median = (t: number[]) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)] as number;
  const rows = modes.map(([name], i): [string, number] => [name, median(times[i] ?? [])]);
  const memMs = rows[rows.length - 1]?.[1] ?? Number.NaN;
  console.log(
    `end to end, ${fmt(N)} candles, SMA 50/200, median of ${REPEAT} turns; same trade hash ${hash?.slice(0, 16)}`,
  );
  for (const [name, ms] of rows)
    console.log(
      `${name.padEnd(64)} ${fmt(ms).padStart(6)} ms  ${fmt((N / ms) * 1000).padStart(10)} candles/s  ${(memMs / ms).toFixed(2)} of in-memory`,
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
