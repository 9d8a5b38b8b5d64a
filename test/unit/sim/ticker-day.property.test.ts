// The 24 h statistics of a ticker come from cached hourly bars and a per-minute cache of the day. For
// any range and instant they equal what the minutes give one by one (the uncached reading), to the
// last unit: volumes and turnovers are whole units, so no grouping changes a sum.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimEngine, formatUnits } from '../../../src/sim/index.js';
import type { Bar } from '../../../src/sim/market-model.js';

const START = Date.UTC(2026, 10, 23, 15);
const MIN = 60_000;
const DAY = 86_400_000;
const engine = () => new SimEngine({ seed: 11, startTime: START });
const aapl = () => {
  const e = engine();
  const inst = e.instruments.find((i) => i.wire.symbol === 'AAPLUSDT' && i.wire.category === 'SPOT');
  if (!inst) throw new Error('AAPLUSDT missing');
  return e.market.of(inst);
};

/** The bar of [from, to) read minute by minute (each read is under two hours: no cache involved). */
function byMinutes(m: ReturnType<typeof aapl>, from: number, to: number): Bar | undefined {
  let acc: Bar | undefined;
  for (let t = Math.floor(from / MIN) * MIN; t < to; t += MIN) {
    const x = m.aggregate(t, Math.min(t + MIN, to));
    if (!x) continue;
    acc = acc
      ? { o: acc.o, h: Math.max(acc.h, x.h), l: Math.min(acc.l, x.l), c: x.c, v: acc.v + x.v, t: acc.t + x.t }
      : { ...x };
  }
  return acc;
}

describe('24 h statistics from cached bars', () => {
  it('aggregate over any range equals the minutes one by one', () => {
    const m = aapl();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * DAY }), fc.integer({ min: 1, max: DAY }), (offset, len) => {
        const from = START - DAY + offset;
        expect(m.aggregate(from, from + len)).toEqual(byMinutes(m, from, from + len));
      }),
      { numRuns: 30 },
    );
  });

  it("a ticker's 24 h fields equal the minutes of the last 24 h, cache warm or cold", () => {
    const warm = aapl();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 * DAY }),
        fc.integer({ min: 0, max: MIN - 1 }),
        (offset, earlier) => {
          const now = START + offset;
          // Warm the per-minute cache earlier in the same minute.
          warm.ticker(Math.max(Math.floor(now / MIN) * MIN, now - earlier));
          const t = warm.ticker(now);
          const bar = byMinutes(aapl(), now - DAY, now) as Bar;
          expect(t.volume24h).toBe(formatUnits(bar.v, warm.qp));
          expect(t.turnover24h).toBe(formatUnits(bar.t, warm.tp));
          expect(t.openPrice24h).toBe(formatUnits(bar.o, warm.pp));
        },
      ),
      { numRuns: 15 },
    );
  });
});
