// The simulator's company history is one fixed history per seed that grows with the clock: cursor
// pages of dividends and insider trades give the same rows as one large page, even when records are
// announced between two page requests, and a record keeps its values (its price does not follow
// today's price).
import { describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { startSimulator } from '../../../src/sim/index.js';

const START = Date.UTC(2026, 10, 23, 15, 0);
const DAY = 86_400_000;

async function open(seed: number) {
  const clock = new VirtualClock(START);
  const sim = await startSimulator({ seed, clock, rateLimits: false });
  const client = new RestClient({ baseUrl: sim.baseUrl, clock, sleep: async (ms) => clock.advance(ms) });
  return {
    clock,
    client,
    close: async () => {
      client.close();
      await sim.stop();
    },
  };
}

describe('Reality company history', () => {
  for (const name of ['dividends', 'innerTrades'] as const) {
    it(`${name}: cursor pages equal one large page, while the clock moves on between pages`, async () => {
      const { clock, client, close } = await open(11);
      try {
        const code = name === 'dividends' ? 'MSFT' : 'AAPL';
        const large = (await client.request(name, { code, limit: 100 })).list;
        expect(large.length).toBeGreaterThan(20);

        const paged: unknown[] = [];
        let cursor: string | undefined;
        while (paged.length < large.length) {
          const page = await client.request(
            name,
            cursor === undefined ? { code, limit: 7 } : { code, limit: 7, cursor },
          );
          expect(page.list.length).toBeGreaterThan(0);
          paged.push(...page.list);
          cursor = page.cursor;
          // Records announced meanwhile must not shift the pages still to come.
          clock.advance(10 * DAY);
          if (cursor === '') break;
        }
        expect(paged.slice(0, large.length)).toEqual(large);

        // Later, the listing has grown at the head and every older record is unchanged.
        clock.advance(120 * DAY);
        const later = (await client.request(name, { code, limit: 100 })).list;
        const first = JSON.stringify(large[0]);
        const at = later.findIndex((r) => JSON.stringify(r) === first);
        expect(at).toBeGreaterThan(0);
        expect(later.slice(at)).toEqual(large.slice(0, later.length - at));
      } finally {
        await close();
      }
    });
  }

  it('answers the same history for the same seed from another simulator', async () => {
    const a = await open(11);
    const b = await open(11);
    try {
      const x = await a.client.innerTrades({ code: 'NVDA', limit: 50 });
      expect(await b.client.innerTrades({ code: 'NVDA', limit: 50 })).toEqual(x);
      expect(x.list.length).toBe(50);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('dividends of a company that pays none answer its one split (seed 42: NVDA, AMZN, NFLX hung the simulator)', async () => {
    const { client, close } = await open(42);
    try {
      for (const code of ['NVDA', 'AMZN', 'NFLX']) {
        const rows = (await client.request('dividends', { code, limit: 100 })).list;
        expect(rows.map((r) => r.type)).toEqual(['stock_split']);
      }
    } finally {
      await close();
    }
  }, 20_000);
});
