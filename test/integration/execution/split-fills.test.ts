// Conservation over the wire: a fill (five fields, no ids) larger than what any one open order of the bots has
// left is split across the orders it may belong to, and what none can take goes to the deployment's book, so
// every venue fill is booked exactly once and the books sum to the account. A restart books nothing twice.
import { describe, expect, it } from 'vitest';
import { venueExecId } from '../../../src/execution/fill-attribution.js';
import { fillRouterFor } from '../../../src/execution/runtime.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import type { OrderIntent } from '../../../src/strategy/index.js';
import { startLiveVenue, type LiveBotSpec } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { silentLogger } from '../../../src/strategy/testing.js';
import { idle } from './fixtures/strategies.js';

const CREDS = { apiKey: 'sp-key', apiSecret: 'sp-secret', passphrase: 'sp-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const spec = (name: string): LiveBotSpec => ({
  name,
  strategy: idle,
  risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 3_600_000 }),
  fillPollMs: 60_000,
});
const bid = (name: string, quantity: string, price: Decimal): OrderIntent => ({
  type: 'limit',
  side: 'buy',
  symbol: 'AAPLUSDT',
  category: 'SPOT',
  quantity: new Decimal(quantity),
  price,
  tag: 'bid',
  reason: 'test',
  bot: name,
});
const signed = (side: string, size: Decimal) => (side === 'buy' ? size : size.neg());

describe('a fill no one order can hold', () => {
  it('is split across the orders it may belong to, the rest booked to the deployment; a restart books nothing twice', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '20000' } },
      sim: { seed: 3, speed: 1, startTime: START },
      runtime: { cadences: { tickersMs: 500 }, staleAfterMs: 3_600_000 },
    });
    const { sim } = venue;
    const a = (await venue.createLiveBot(spec('a'))).bot;
    const b = (await venue.createLiveBot(spec('b'))).bot;
    a.start();
    b.start();
    const t = a.trader;
    await waitFor(() => t.market.rules('AAPLUSDT') !== undefined && t.market.hasQuote('AAPLUSDT'), {
      timeoutMs: 10_000,
      what: "the bots' rules and quote",
    });
    // The baseline is taken at the first read: the account's order placed by hand after it is bookable.
    await t.syncFills();
    const precision = t.market.rules('AAPLUSDT')?.pricePrecision ?? 2;
    const price = (t.market.snapshot('AAPLUSDT')?.bid ?? new Decimal(0)).toDecimalPlaces(
      precision,
      Decimal.ROUND_DOWN,
    );
    // Three orders resting at one price, filled at one instant: the hand's 3 first (placed first), then the
    // bots' 2 and 1. Without ids, the hand's fill of 3 fits neither bot's order whole.
    await venue.runtime.client.placeRealityOrder({
      category: 'SPOT',
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'limit',
      qty: '3',
      price: price.toFixed(),
      clientOid: 'by-hand',
    });
    await a.trader.submit(bid('a', '2', price), 0);
    await b.trader.submit(bid('b', '1', price), 0);
    for (let i = 0; i < 2000 && sim.engine.fills(CREDS.apiKey).length < 3; i++)
      sim.engine.clock.advance(15_000);
    const atVenue = sim.engine.fills(CREDS.apiKey);
    expect(atVenue).toHaveLength(3);
    await t.syncFills();

    const check = () => {
      const journal = venue.store.fills.list({ symbol: 'AAPLUSDT' });
      for (const v of atVenue) {
        const parts = journal.filter((j) => venueExecId(j.execId) === v.execId);
        expect(parts.reduce((s, p) => s.plus(p.size), new Decimal(0)).toFixed()).toBe(v.size.toFixed());
      }
      const books = journal.reduce((s, j) => s.plus(signed(j.side, j.size)), new Decimal(0));
      expect(books.toFixed()).toBe('6');
      return journal;
    };
    const journal = check();
    const hand = atVenue.find((v) => v.clientOid === 'by-hand');
    // The hand's fill, split: 2 to a's order, 1 to b's; the bots' own fills then find their orders full.
    expect(
      journal
        .filter((j) => venueExecId(j.execId) === hand?.execId)
        .map((j) => [j.execId === hand?.execId ? 'last' : 'part', j.bot ?? 'deployment', j.size.toFixed()]),
    ).toEqual([
      ['part', 'a', '2'],
      ['last', 'b', '1'],
    ]);
    expect(venue.store.fills.deploymentBook().map((f) => f.size.toFixed())).toEqual(['2', '1']);
    const router = fillRouterFor(venue.runtime, venue.store);
    expect(router.accounting).toMatchObject({ fills: 3, split: 1, unbooked: 2, mismatches: 0 });

    // A restart reads the same fills again: nothing is booked twice, nothing disagrees.
    await venue.restart();
    const again = await venue.createLiveBot(spec('a'));
    await venue.createLiveBot(spec('b'));
    await again.bot.trader.syncFills();
    expect(venue.store.fills.list({ symbol: 'AAPLUSDT' })).toHaveLength(journal.length);
    expect(fillRouterFor(venue.runtime, venue.store).accounting.mismatches).toBe(0);

    // A journal that lost a part no longer sums to the account: the next start's first read raises the alarm.
    venue.store.db.prepare(`DELETE FROM fills WHERE exec_id = ?`).run(`${hand?.execId}/1`);
    await venue.restart();
    const errors: string[] = [];
    const logger = {
      ...silentLogger,
      error: (msg: string, meta?: Record<string, unknown>) =>
        void errors.push(
          `${msg}: ${String(meta?.execId)} ${String(meta?.size)} booked ${String(meta?.booked)}`,
        ),
    };
    // The bot's start reads the fills (reconciliation): the alarm is raised there, once.
    const third = await venue.createLiveBot(spec('a'), { logger });
    await third.bot.trader.syncFills();
    expect(errors).toEqual([
      `fills disagree with the account: a venue fill is not booked exactly once: ${hand?.execId} 3 booked 1 buy`,
    ]);
    expect(fillRouterFor(venue.runtime, venue.store).accounting.mismatches).toBe(1);
    await venue.close();
  }, 60_000);
});
