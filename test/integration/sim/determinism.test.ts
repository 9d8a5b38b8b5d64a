// Same seed, same market: two simulators answer the same candles and the same fills.
import { describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { startSimulator } from '../../../src/sim/index.js';

const START = Date.UTC(2026, 10, 24, 16, 0);

async function session(seed: number) {
  const clock = new VirtualClock(START);
  const sim = await startSimulator({ seed, clock });
  const c = new RestClient({
    baseUrl: sim.baseUrl,
    clock,
    sleep: async (ms) => clock.advance(ms),
    credentials: { apiKey: 'sim-key', apiSecret: 'sim-secret', passphrase: 'sim-passphrase' },
  });
  const candles = await c.candles({ category: 'SPOT', symbol: 'TSLAUSDT', interval: '5m', limit: 200 });
  const futures = await c.candles({
    category: 'USDT-FUTURES',
    symbol: 'BTCUSDT',
    interval: '15m',
    type: 'mark',
    limit: 50,
  });
  await c.placeRealityOrder({
    symbol: 'TSLAUSDT',
    side: 'buy',
    orderType: 'market',
    qty: '2500',
    clientOid: 'a',
  });
  clock.advance(90_000);
  await c.placeRealityOrder({
    symbol: 'TSLAUSDT',
    side: 'sell',
    orderType: 'market',
    qty: '1',
    clientOid: 'b',
  });
  const fills = sim.engine.fills('sim-key').map((f) => JSON.stringify(f));
  c.close();
  await sim.stop();
  return { candles, futures, fills };
}

describe('determinism', () => {
  it('two simulators with the same seed answer the same candles and fills', async () => {
    const a = await session(11);
    const b = await session(11);
    expect(a.candles).toEqual(b.candles);
    expect(a.futures).toEqual(b.futures);
    expect(a.fills.length).toBeGreaterThan(1);
    expect(a.fills).toEqual(b.fills);
  });

  it('a different seed gives a different market', async () => {
    const a = await session(11);
    const c = await session(12);
    expect(a.candles).not.toEqual(c.candles);
  });
});
