import { runBacktest } from '../../src/backtest/engine.js';
import { syntheticSource } from '../../src/backtest/synthetic.js';
import type { CandleBatch } from '../../src/backtest/format.js';
import { RiskLimitsSchema } from '../../src/risk/index.js';
import { loadStrategy } from '../../src/strategy/loader.js';
const risk = RiskLimitsSchema.parse({ allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'], maxDataAgeMs: 604_800_000 });
const strategy = await loadStrategy('ma-crossover');
const src = syntheticSource({ seed: 7, count: 300_000 });
const batches: CandleBatch[] = []; for await (const b of src.batches()) batches.push(b);
const mem = { meta: src.meta, async *batches() { yield* batches; } };
for (let k = 0; k < 4; k++) {
  const t = performance.now();
  const r = await runBacktest({ source: mem, dataset: 'x', strategy, params: { fast: 2, slow: 4, quoteAmount: '1000' }, risk, chart: false });
  const ms = performance.now() - t;
  console.log(`run ${k}: ${ms.toFixed(0)} ms, ${r.fills.length} fills, ${((ms * 1000) / r.fills.length).toFixed(1)} us per fill`);
}
