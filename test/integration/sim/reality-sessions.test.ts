// A Reality pair trades in the US sessions the venue offers (pre_market, regular, after_hours and
// overnight) and nowhere else: on a weekend and after an early close it has no public fills, no
// volume and flat candles, and it reopens from the price it stopped at. A crypto pair trades on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireCandle } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { etToUtc } from '../../../src/market/sessions.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';

const MIN = 60_000;
// Monday 2026-11-30 10:00 ET: after the Thanksgiving weekend.
const NOW = etToUtc('2026-11-30', 10, 0);

describe('Reality pairs outside their sessions', () => {
  let sim: Simulator;
  let client: RestClient;
  beforeAll(async () => {
    const clock = new VirtualClock(NOW);
    sim = await startSimulator({ seed: 5, clock, rateLimits: false });
    // The simulator runs without limits on a frozen clock, which would hold a rate limiter forever.
    client = new RestClient({ baseUrl: sim.baseUrl, clock, rateLimit: false });
  });
  afterAll(async () => {
    client.close();
    await sim.stop();
  });

  const minutes = (symbol: string, from: number, count: number): Promise<WireCandle[]> =>
    client.historyCandles({
      category: 'SPOT',
      symbol,
      interval: '1m',
      startTime: String(from),
      endTime: String(from + (count - 1) * MIN),
      limit: String(count),
    });
  const flat = (c: WireCandle) => c[1] === c[2] && c[2] === c[3] && c[3] === c[4] && Number(c[5]) === 0;

  it('is flat with no volume on Saturday and after 13:00 ET on the day after Thanksgiving', async () => {
    const saturday = await minutes('AAPLUSDT', etToUtc('2026-11-28', 11, 0), 60);
    expect(saturday).toHaveLength(60);
    expect(saturday.every(flat)).toBe(true);
    expect(new Set(saturday.map((c) => c[4])).size).toBe(1);

    const earlyClose = await minutes('AAPLUSDT', etToUtc('2026-11-27', 12, 30), 60);
    const open = earlyClose.filter((c) => Number(c[0]) < etToUtc('2026-11-27', 13, 0));
    const closed = earlyClose.filter((c) => Number(c[0]) >= etToUtc('2026-11-27', 13, 0));
    expect(open.some((c) => !flat(c))).toBe(true);
    expect(closed.length).toBe(30);
    expect(closed.every(flat)).toBe(true);
    // The closed market keeps the last traded price: the first flat minute is the last close.
    expect(closed[0]?.[4]).toBe(open[open.length - 1]?.[4]);
    // ... and the weekend keeps it too.
    expect(saturday[0]?.[4]).toBe(closed[0]?.[4]);

    const crypto = await minutes('BTCUSDT', etToUtc('2026-11-28', 11, 0), 60);
    expect(crypto.some((c) => !flat(c))).toBe(true);
  });

  it('has public fills and volume in the regular session', async () => {
    const fills = await client.fills({ category: 'SPOT', symbol: 'AAPLUSDT', limit: '20' });
    expect(fills.length).toBe(20);
    const monday = await minutes('AAPLUSDT', NOW - 30 * MIN, 30);
    expect(monday.every((c) => Number(c[5]) > 0)).toBe(true);
  });

  it('has no public fills on a Saturday', async () => {
    const clock = new VirtualClock(etToUtc('2026-11-28', 12, 0));
    const weekend = await startSimulator({ seed: 5, clock, rateLimits: false });
    const c = new RestClient({ baseUrl: weekend.baseUrl, clock, rateLimit: false });
    try {
      expect(await c.fills({ category: 'SPOT', symbol: 'AAPLUSDT', limit: '20' })).toEqual([]);
      expect((await c.fills({ category: 'SPOT', symbol: 'BTCUSDT', limit: '20' })).length).toBe(20);
      const [t] = await c.tickers({ category: 'SPOT', symbol: 'AAPLUSDT' });
      expect(Number(t?.volume24h)).toBeGreaterThan(0); // Friday morning is inside the 24 hours
    } finally {
      c.close();
      await weekend.stop();
    }
  });
});
