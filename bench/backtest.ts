// Backtest throughput: 1,000,000 synthetic one-minute candles through the whole pipeline (stream, SMA
// crossover strategy, risk gate, fill model, portfolio), with loading from the recorded CSV format timed
// apart from the run, beside a plain-loop baseline of the same strategy in the same process, and peak RSS.
//   npx tsx bench/backtest.ts [--candles 1000000] [--stream]
// --stream runs straight from the generator without holding the series (use it for 10,000,000 candles).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMA } from 'trading-signals';
import { runBacktest } from '../src/backtest/engine.js';
import { CandleFileWriter, openCandleFile, type CandleBatch, type CandleSource } from '../src/backtest/format.js';
import { syntheticSource } from '../src/backtest/synthetic.js';
import { RiskLimitsSchema } from '../src/risk/index.js';
import { loadStrategy } from '../src/strategy/loader.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const N = arg('candles', 1_000_000);
const STREAM = process.argv.includes('--stream');
const PARAMS = { fast: 50, slow: 200, quoteAmount: '1000' }; // the classic 50/200 crossover
const risk = RiskLimitsSchema.parse({ allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'], maxDataAgeMs: 604_800_000 });
const strategy = await loadStrategy('ma-crossover');
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const rate = (n: number, ms: number) => `${((n / ms) * 1000).toLocaleString('en-US', { maximumFractionDigits: 0 })} candles/s`;

const synth = syntheticSource({ seed: 7, count: N });
let source: CandleSource = synth;
let batches: CandleBatch[] = [];
if (!STREAM) {
  // Write the series in the recorded format, then time loading it back (into memory, for the timed run).
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-bench-'));
  const file = join(dir, 'synthetic.csv');
  const w = new CandleFileWriter(file, synth.meta);
  for await (const b of synth.batches()) {
    for (let i = 0; i < b.length; i++) {
      w.write([String(b.openTime[i]), String(b.open[i]), String(b.high[i]), String(b.low[i]), String(b.close[i]), String(b.volume[i]), String(b.turnover[i])]);
    }
  }
  await w.close();
  const t0 = performance.now();
  const loaded = openCandleFile(file);
  for await (const b of loaded.batches()) batches.push(b);
  const loadMs = performance.now() - t0;
  console.log(`load  ${N.toLocaleString('en-US')} candles from CSV: ${loadMs.toFixed(0)} ms, ${rate(N, loadMs)}`);
  rmSync(dir, { recursive: true, force: true });
  source = { meta: loaded.meta, batches: async function* () { yield* batches; } };
}

// Baseline: the same crossover as a plain loop over the columns (no stream, no gate, no venue).
let baselineMs = Number.NaN;
if (!STREAM) {
  const t0 = performance.now();
  const fast = new SMA(PARAMS.fast);
  const slow = new SMA(PARAMS.slow);
  let above: boolean | undefined;
  let crosses = 0;
  for (const b of batches) {
    for (let i = 0; i < b.length; i++) {
      const c = b.close[i] as number;
      const f = fast.update(c, false);
      const s = slow.update(c, false);
      if (f === null || s === null) continue;
      const now = f > s;
      if (above !== undefined && now !== above) crosses++;
      above = now;
    }
  }
  baselineMs = performance.now() - t0;
  console.log(`plain loop baseline: ${baselineMs.toFixed(0)} ms, ${rate(N, baselineMs)} (${crosses} crosses)`);
}

const r = await runBacktest({ source, dataset: `synthetic-1m:7:${N}`, strategy, params: PARAMS, risk, capital: '100000', slippageBps: 2, chart: true });
console.log(`run   ${N.toLocaleString('en-US')} candles through stream + strategy + risk gate + fill model + portfolio: ${r.timing.runMs.toFixed(0)} ms, ${rate(N, r.timing.runMs)}${STREAM ? ' (generation included)' : ''}`);
console.log(`      ${r.fills.length} fills, ${r.trades.length} round trips, trade hash ${r.meta.tradeHash.slice(0, 16)}`);
if (!STREAM) console.log(`ratio run/baseline: ${(baselineMs / r.timing.runMs).toFixed(3)} (the run's speed as a share of the plain loop's)`);
console.log(`peak RSS: ${mb(process.resourceUsage().maxRSS * 1024)}`);
batches = [];
