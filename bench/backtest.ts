// Backtest throughput: 1,000,000 synthetic one-minute candles through the whole pipeline (stream, SMA
// crossover strategy, risk gate, fill model, portfolio), with loading from the recorded CSV format timed
// apart from the run, beside a plain-loop baseline of the same strategy in the same process, and peak RSS.
// The first run is reported on its own (it includes the JIT warming up: what one backtest costs a user),
// then the median of --repeat more runs (what a sweep's later runs cost).
//   npx tsx bench/backtest.ts [--candles 1000000] [--repeat 3] [--stream] [--exits]
// --stream runs straight from the generator without holding the series (use it for 10,000,000 candles).
// --exits runs the same strategy again with the pipeline's exits on (stop-loss, take-profit, trailing
// stop) and prints both figures: what exits cost per candle beside the run without them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBacktest } from '../src/backtest/engine.js';
import { CandleFileWriter, openCandleFile, type CandleBatch, type CandleSource } from '../src/data/format.js';
import { syntheticSource } from '../src/data/synthetic.js';
import { RiskLimitsSchema } from '../src/risk/index.js';
import { RollingSMA } from '../src/strategy/indicators.js';
import { parseExitRules } from '../src/strategy/exits.js';
import { loadStrategy } from '../src/strategy/loader.js';
import { numberFlag } from './lib/flags.js';
import { collectGarbage } from './lib/gc.js';

const N = numberFlag('candles', 1_000_000);
const STREAM = process.argv.includes('--stream');
const REPEAT = STREAM ? 0 : numberFlag('repeat', 3);
const EXITS = process.argv.includes('--exits');
const EXIT_RULES = parseExitRules(
  { stopLoss: '0.05', takeProfit: '0.1', trailingStop: { distance: '0.03', activation: '0.02' } },
  'bench exits',
);
const PARAMS = { fast: 50, slow: 200, quoteAmount: '1000' }; // the classic 50/200 crossover
const risk = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
const strategy = await loadStrategy('ma-crossover');
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const rate = (n: number, ms: number) =>
  `${((n / ms) * 1000).toLocaleString('en-US', { maximumFractionDigits: 0 })} candles/s`;

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
      w.write([
        String(b.openTime[i]),
        String(b.open[i]),
        String(b.high[i]),
        String(b.low[i]),
        String(b.close[i]),
        String(b.volume[i]),
        String(b.turnover[i]),
      ]);
    }
  }
  await w.close();
  const t0 = performance.now();
  const loaded = openCandleFile(file);
  for await (const b of loaded.batches()) batches.push(b);
  const loadMs = performance.now() - t0;
  console.log(
    `load  ${N.toLocaleString('en-US')} candles from CSV: ${loadMs.toFixed(0)} ms, ${rate(N, loadMs)}`,
  );
  rmSync(dir, { recursive: true, force: true });
  source = {
    meta: loaded.meta,
    batches: async function* () {
      yield* batches;
    },
  };
}

// Baseline: the same crossover, same indicator, as a plain loop over the columns (no stream, no gate, no
// venue, no orders): the ceiling the pipeline is measured against.
let baselineMs = Number.NaN;
if (!STREAM) {
  const t0 = performance.now();
  const fast = new RollingSMA(PARAMS.fast);
  const slow = new RollingSMA(PARAMS.slow);
  let above: boolean | undefined;
  let crosses = 0;
  for (const b of batches) {
    for (let i = 0; i < b.length; i++) {
      const c = b.close[i] as number;
      const f = fast.update(c);
      const s = slow.update(c);
      if (f === null || s === null) continue;
      const now = f > s;
      if (above !== undefined && now !== above) crosses++;
      above = now;
    }
  }
  baselineMs = performance.now() - t0;
  console.log(
    `plain loop baseline: ${baselineMs.toFixed(0)} ms, ${rate(N, baselineMs)} (${crosses} crosses)`,
  );
}

// Every timed run starts on a collected heap: the CSV written and parsed above is not the first run's garbage.
const run = (withExits = false) => (
  collectGarbage(),
  runBacktest({
    source,
    dataset: `synthetic-1m:7:${N}`,
    strategy,
    params: PARAMS,
    risk,
    capital: '100000',
    slippageBps: 2,
    chart: true,
    ...(withExits ? { exits: EXIT_RULES } : {}),
  })
);
const r = await run();
console.log(
  `run   ${N.toLocaleString('en-US')} candles through stream + strategy + risk gate + fill model + portfolio: ${r.timing.runMs.toFixed(0)} ms, ${rate(N, r.timing.runMs)}${STREAM ? ' (generation included)' : ' (first run: JIT warming up included)'}`,
);
console.log(
  `      ${r.fills.length} fills, ${r.trades.length} round trips, trade hash ${r.meta.tradeHash.slice(0, 16)}`,
);
const warm: number[] = [];
for (let k = 0; k < REPEAT; k++) {
  const again = await run();
  if (again.meta.tradeHash !== r.meta.tradeHash)
    throw new Error('a repeated run traded differently: the engine is not deterministic');
  warm.push(again.timing.runMs);
}
const warmMs = warm.sort((a, b) => a - b)[Math.floor(warm.length / 2)];
if (warmMs !== undefined)
  console.log(
    `run   warm, median of ${REPEAT} more runs: ${warmMs.toFixed(0)} ms, ${rate(N, warmMs)} (same trade hash)`,
  );
if (!STREAM) {
  console.log(
    `ratio run/baseline: first ${(baselineMs / r.timing.runMs).toFixed(3)}${warmMs === undefined ? '' : `, warm ${(baselineMs / warmMs).toFixed(3)}`} (the run's speed as a share of the plain loop's)`,
  );
}
if (EXITS) {
  // The same runs with exits on: first, then the median of the warm ones, beside the figures above.
  const x = await run(true);
  const xWarm: number[] = [];
  for (let k = 0; k < REPEAT; k++) xWarm.push((await run(true)).timing.runMs);
  const xWarmMs = xWarm.sort((a, b) => a - b)[Math.floor(xWarm.length / 2)];
  const reasons = new Map<string, number>();
  for (const f of x.fills) if (f.side === 'sell') reasons.set(f.tag, (reasons.get(f.tag) ?? 0) + 1);
  console.log(
    `exits run   ${N.toLocaleString('en-US')} candles with stop-loss 5%, take-profit 10%, trailing 3% (from +2%): first ${x.timing.runMs.toFixed(0)} ms, ${rate(N, x.timing.runMs)}${xWarmMs === undefined ? '' : `; warm ${xWarmMs.toFixed(0)} ms, ${rate(N, xWarmMs)}`}`,
  );
  console.log(
    `            ${x.fills.length} fills (${[...reasons].map(([k, v]) => `${k} ${v}`).join(', ')}), trade hash ${x.meta.tradeHash.slice(0, 16)}`,
  );
  console.log(
    `without / with exits: first ${rate(N, r.timing.runMs)} / ${rate(N, x.timing.runMs)}${warmMs === undefined || xWarmMs === undefined ? '' : `; warm ${rate(N, warmMs)} / ${rate(N, xWarmMs)}`}`,
  );
}
console.log(`peak RSS: ${mb(process.resourceUsage().maxRSS * 1024)}`);
batches = [];
