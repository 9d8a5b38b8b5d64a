import { runBacktest } from '/work/main/src/backtest/engine.js';
import { syntheticSource } from '/work/main/src/backtest/synthetic.js';
import { RiskLimitsSchema } from '/work/main/src/risk/index.js';
import { loadStrategy } from '/work/main/src/strategy/loader.js';
const risk = RiskLimitsSchema.parse({ allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'], maxDataAgeMs: 604_800_000 });
const strategy = await loadStrategy('ma-crossover');
const src = syntheticSource({ seed: 7, count: 1_000_000 });
const batches = []; for await (const b of src.batches()) batches.push(b);
const mem = { meta: src.meta, async *batches() { yield* batches; } };
for (let k = 0; k < 2; k++) {
const t = performance.now();
const r = await runBacktest({ source: mem, dataset: 'x', strategy, params: { fast: 50, slow: 200, quoteAmount: '1000' }, risk, chart: false });
console.log(k, performance.now() - t, r.fills.length, r.meta.tradeHash.slice(0, 16));
}
