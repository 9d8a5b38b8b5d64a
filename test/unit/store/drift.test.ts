// The drift monitor's tables: decided candles in the order decided, and the kept reports, each bot's newest
// readable in brief (/readyz), by id (the dashboard's cache) and whole (`tradebot drift --report`).
import { describe, expect, it } from 'vitest';
import { openStore, StoreError, type DecidedCandle } from '../../../src/store/index.js';

const T = Date.UTC(2026, 10, 23, 15);
const candle = (k: number, phase: DecidedCandle['phase']): DecidedCandle => ({
  bot: 'b',
  symbol: 'AAPLUSDT',
  interval: '1m',
  openTime: T + k * 60_000,
  open: '190',
  high: '191',
  low: '189.5',
  close: '190.25',
  volume: '12.5',
  decidedTs: T + (k + 1) * 60_000 + 2000,
  phase,
});

describe('the drift journal', () => {
  it('keeps decided candles as text, in the order decided, and refuses an unknown phase', () => {
    const s = openStore(':memory:', { clock: { now: () => T } });
    s.decided.record(candle(0, 'warm_up'));
    s.decided.record(candle(1, 'live'));
    s.decided.record(candle(0, 'replay'));
    expect(s.decided.list('b').map((r) => [r.openTime - T, r.phase, r.close])).toEqual([
      [0, 'warm_up', '190.25'],
      [60_000, 'live', '190.25'],
      [0, 'replay', '190.25'],
    ]);
    expect(s.decided.list('b', T + 2 * 60_000 + 2000, T + 2 * 60_000 + 2001)).toHaveLength(1);
    expect(() => s.decided.record({ ...candle(2, 'live'), phase: 'later' as 'live' })).toThrow(StoreError);
    s.close();
  });

  it("answers each bot's newest report: whole, in brief, and by id", () => {
    const s = openStore(':memory:', { clock: { now: () => T } });
    expect(s.drift.latestId('a')).toBeUndefined();
    const base = { from: T, to: T + 3_600_000, ts: T + 3_600_000 };
    s.drift.record({ ...base, bot: 'a', differences: 2, unexplained: 1, report: { n: 1 } });
    const id = s.drift.record({ ...base, bot: 'a', differences: 0, unexplained: 0, report: { n: 2 } });
    s.drift.record({ ...base, bot: 'b', differences: 5, unexplained: 3, report: { n: 3 } });
    expect([...s.drift.latestByBot().values()].map((r) => [r.bot, r.report])).toEqual([
      ['a', { n: 2 }],
      ['b', { n: 3 }],
    ]);
    expect(s.drift.latestBrief().map((r) => [r.bot, r.unexplained])).toEqual([
      ['a', 0],
      ['b', 3],
    ]);
    expect(s.drift.latestId('a')).toBe(id);
    expect(s.drift.byId(id)?.report).toEqual({ n: 2 });
    expect(s.drift.list('a').map((r) => r.unexplained)).toEqual([1, 0]);
    s.close();
  });
});
