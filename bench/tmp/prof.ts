import { runBacktest } from '../../src/backtest/engine.js';
import { syntheticSource } from '../../src/backtest/synthetic.js';
import type { CandleBatch } from '../../src/backtest/format.js';
import { RiskLimitsSchema } from '../../src/risk/index.js';
import { loadStrategy } from '../../src/strategy/loader.js';
const risk = RiskLimitsSchema.parse({ allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'], maxDataAgeMs: 604_800_000 });
const strategy = await loadStrategy('ma-crossover');
const src = syntheticSource({ seed: 7, count: 1_000_000 });
const batches: CandleBatch[] = []; for await (const b of src.batches()) batches.push(b);
const mem = { meta: src.meta, async *batches() { yield* batches; } };
for (let k = 0; k < 3; k++) {
  const t = performance.now();
  const r = await runBacktest({ source: mem, dataset: 'x', strategy, params: { fast: 50, slow: 200, quoteAmount: '1000' }, risk, chart: false });
  console.log(k, (performance.now() - t).toFixed(0), r.fills.length);
}
