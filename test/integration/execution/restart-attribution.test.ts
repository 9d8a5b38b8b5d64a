// A limit order resting across a restart: its fill (five fields, no ids) arrives after the daemon came
// back, and is still attributed to it, because the pipeline rebuilds its open orders from the journal.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import type { OrderIntent } from '../../../src/strategy/index.js';
import { startLiveVenue, type LiveBotSpec } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { idle } from './fixtures/strategies.js';

const CREDS = { apiKey: 'rs-key', apiSecret: 'rs-secret', passphrase: 'rs-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const spec: LiveBotSpec = {
  name: 'rest',
  strategy: idle,
  risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 3_600_000 }),
  fillPollMs: 60_000,
};

describe('a resting limit order across a restart', () => {
  it('gets its fill booked after the restart, though the fill names no order', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 3, speed: 1, startTime: START },
      runtime: { cadences: { tickersMs: 500 }, staleAfterMs: 3_600_000 },
    });
    const { sim } = venue;

    const first = await venue.createLiveBot(spec);
    first.bot.start();
    const t = first.bot.trader;
    await waitFor(
      () =>
        t.market.rules('AAPLUSDT') !== undefined &&
        t.market.hasQuote('AAPLUSDT') &&
        t.market.session() !== undefined,
      { timeoutMs: 10_000, what: "the bot's rules, quote and session" },
    );
    const bid = t.market.snapshot('AAPLUSDT')?.bid ?? new Decimal(0);
    const precision = t.market.rules('AAPLUSDT')?.pricePrecision ?? 2;
    // At the bid: it rests (it does not cross the ask) and fills when the market trades down to it.
    const price = bid.toDecimalPlaces(precision, Decimal.ROUND_DOWN);
    const limit = {
      type: 'limit',
      side: 'buy',
      symbol: 'AAPLUSDT',
      category: 'SPOT',
      quantity: new Decimal('1'),
      price,
      tag: 'rest',
      reason: 'test',
      bot: 'rest',
    } as OrderIntent;
    await t.submit(limit, 0);
    const [order] = venue.store.orders.list({ bot: 'rest', state: 'acked' });
    expect(order).toBeDefined();
    expect(venue.store.fills.list()).toEqual([]);
    await venue.restart();

    // Restarted: the market moves on until the resting order fills.
    const second = await venue.createLiveBot(spec);
    const trader = second.bot.trader;
    for (let i = 0; i < 2000 && venue.store.fills.list().length === 0; i++) {
      sim.engine.clock.advance(15_000);
      await trader.syncFills();
    }
    const atVenue = sim.engine.fills(CREDS.apiKey).filter((f) => f.clientOid === order?.clientOid);
    expect(atVenue.length).toBeGreaterThan(0);
    const booked = venue.store.fills.list({ bot: 'rest' });
    expect(booked.map((f) => f.execId).sort()).toEqual(atVenue.map((f) => f.execId).sort());
    for (const f of booked) expect(f.clientOid).toBe(order?.clientOid);
    await venue.close();
  }, 60_000);
});
