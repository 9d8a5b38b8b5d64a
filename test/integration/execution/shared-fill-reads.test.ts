// The bots sharing an account and a symbol share its fills reads: their periodic polls read the symbol once
// together, and wait for none while a market order holds the symbol's turn, while each market order is still
// read after its acknowledgement, so ten bots deciding at one boundary each journal exactly their own fills
// (the simulator's record of which order made each fill is the truth).
import { describe, expect, it } from 'vitest';
import { fillRouterFor } from '../../../src/execution/runtime.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import type { Simulator } from '../../../src/sim/index.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { flipper, idle } from './fixtures/strategies.js';

const CREDS = { apiKey: 'shared-key', apiSecret: 'shared-secret', passphrase: 'shared-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const BOTS = 10;

const risk = RiskLimitsSchema.parse({
  allowedSessions: ['regular'],
  whitelisted: true,
  maxDataAgeMs: 60_000,
});

/** The reality-fills requests the simulator received so far. */
async function fillsReads(sim: Simulator): Promise<number> {
  const stats = (await (await fetch(`${sim.baseUrl}/sim/stats`)).json()) as {
    data: { received: Record<string, number> };
  };
  return stats.data.received['/api/v3/account/reality-fills'] ?? 0;
}

describe('fills reads shared by the bots of a symbol', () => {
  it("answers the bots' polls of a symbol with one read, and none within the poll period or while a market order holds the turn", async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '20000' } },
      sim: { seed: 11, speed: 1, startTime: START },
      runtime: { whitelisted: true },
    });
    const { sim, runtime, store } = venue;
    const made: Awaited<ReturnType<typeof venue.createLiveBot>>[] = [];
    for (let i = 0; i < BOTS; i++)
      made.push(await venue.createLiveBot({ name: `p${i}`, strategy: idle, risk, symbols: ['AAPLUSDT'] }));
    const router = fillRouterFor(runtime, store);
    const before = await fillsReads(sim);
    // A sync of a bot's own reads.
    await made[0]!.bot.syncFills();
    expect((await fillsReads(sim)) - before).toBe(1);
    // Every bot polls within the period (60 s) of that read: it answers them.
    await Promise.all(made.map((m) => m.bot.syncFills(60_000)));
    expect((await fillsReads(sim)) - before).toBe(1);
    // While a market order holds the symbol's turn, polls read nothing (its read is coming).
    const release = router.marketTurn('AAPLUSDT');
    expect(typeof release).toBe('function');
    await Promise.all(made.map((m) => m.bot.syncFills(1)));
    expect((await fillsReads(sim)) - before).toBe(1);
    (release as () => void)();
    // The turn free and the period (1 ms) past: every bot polls at once, one read between them.
    await Promise.all(made.map((m) => m.bot.syncFills(1)));
    expect((await fillsReads(sim)) - before).toBe(2);
    await venue.close();
  }, 60_000);

  it('books each of ten bots exactly its own fills when they all trade at the same boundaries', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '50000' } },
      sim: { seed: 12, speed: 120, startTime: START },
      runtime: { whitelisted: true, cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const { sim, runtime, store } = venue;
    const made: Awaited<ReturnType<typeof venue.createLiveBot>>[] = [];
    for (let i = 0; i < BOTS; i++)
      made.push(
        await venue.createLiveBot({
          name: `f${i}`,
          strategy: flipper,
          params: { quoteAmount: String(100 + 10 * i) },
          risk,
          symbols: ['AAPLUSDT'],
          capital: '4000',
          fillPollMs: 20,
          maxSignalAgeMs: 10 * 60_000,
        }),
      );
    for (const m of made) m.bot.start();
    const sells = (bot: string) => store.fills.list({ bot }).filter((f) => f.side === 'sell').length;
    await waitFor(() => made.every((_, i) => sells(`f${i}`) >= 2), {
      timeoutMs: 45_000,
      what: 'two sells of each of the ten bots',
    });
    for (const m of made) await m.bot.stop();
    for (const m of made) await m.bot.syncFills();

    const truth = sim.engine.fills(CREDS.apiKey, 'AAPLUSDT');
    let orders = 0;
    for (let i = 0; i < BOTS; i++) {
      const bot = `f${i}`;
      const oids = new Set(store.orders.list({ bot }).map((o) => o.clientOid));
      orders += oids.size;
      const atVenue = truth
        .filter((f) => f.clientOid !== undefined && oids.has(f.clientOid))
        .map((f) => `${f.execId}:${f.clientOid}`)
        .sort();
      expect(atVenue.length).toBeGreaterThan(0);
      // Exactly the fills of the bot's own orders, each tied to the order that made it.
      const journaled = store.fills
        .list({ bot })
        .map((f) => `${f.execId}:${f.clientOid}`)
        .sort();
      expect(journaled).toEqual(atVenue);
    }
    // Every booking had one order it could belong to; none went to the deployment or disagrees with the venue.
    const a = fillRouterFor(runtime, store).accounting;
    expect(a.fills).toBe(truth.length);
    expect(a.exact).toBe(a.fills);
    expect(a.unbooked + a.mismatches + a.ambiguous + a.split).toBe(0);
    expect(orders).toBeGreaterThanOrEqual(3 * BOTS);
    await venue.close();
  }, 90_000);
});
