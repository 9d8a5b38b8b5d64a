// The paper venue against the simulator on loopback standing in for the real venue: public data only, the
// book walked at a market order, a crossing limit a taker, a resting limit filled only when a public trade
// goes through its price (a touch fills nothing), the venue's rules and refusals, and the paper account
// rebuilt exactly from the journal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { PaperVenue } from '../../../src/execution/paper-venue.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { Decimal } from '../../../src/market/decimal.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { openStore, type Store } from '../../../src/store/index.js';

// Monday 2026-11-23 15:00 UTC (10:00 ET): US regular hours.
const T0 = Date.UTC(2026, 10, 23, 15);
const SYMBOL = 'AAPLUSDT';

describe('the paper venue on the simulator', () => {
  let sim: Simulator;
  let clock: VirtualClock;
  let client: RestClient;
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-paper-'));
  let n = 0;
  const fresh = (): { store: Store; venue: PaperVenue } => {
    const store = openStore(join(dir, `paper-${++n}.db`));
    return { store, venue: open(store) };
  };
  const open = (store: Store) =>
    new PaperVenue({
      client,
      clock,
      journal: store.meta,
      balances: { USDT: new Decimal('100000') },
      feeRate: new Decimal('0.001'),
    });
  const order = (o: {
    side: 'buy' | 'sell';
    orderType: 'market' | 'limit';
    qty: string;
    price?: string;
  }) => ({
    category: 'SPOT' as const,
    symbol: SYMBOL,
    clientOid: `tb-paper-${++n}`,
    ...o,
  });

  beforeAll(async () => {
    clock = new VirtualClock(T0);
    sim = await startSimulator({ seed: 7, clock, rateLimits: false });
    client = new RestClient({ baseUrl: sim.baseUrl, clock, rateLimit: false });
  });
  afterAll(async () => {
    client.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fills a market buy by walking the order book as polled at the order', async () => {
    const { venue } = fresh();
    const book = await client.orderbook({ category: 'SPOT', symbol: SYMBOL, limit: 50 });
    const [a1, a2] = book.a;
    // A quote amount more than the first ask level holds: the order takes the second level too.
    const first = new Decimal(a1?.[0] ?? '0').mul(a1?.[1] ?? '0');
    const qty = first.plus(new Decimal(a2?.[0] ?? '0').mul(a2?.[1] ?? '0').div(2)).toFixed(2);
    const placed = await venue.placeOrder(order({ side: 'buy', orderType: 'market', qty }));
    expect(placed.alreadyPlaced).toBe(false);
    const fills = (await venue.fills(SYMBOL)).reverse();
    expect(fills.map((f) => f.price)).toEqual([a1?.[0], a2?.[0]]);
    expect(fills[0]?.size).toBe(a1?.[1]);
    expect(fills.every((f) => f.liquidity === 'taker')).toBe(true);
    expect(venue.bookAge(fills[0]?.execId ?? '')).toBeGreaterThanOrEqual(0);
  });

  it('fills a crossing limit as a taker up to its price and rests the rest', async () => {
    const { venue } = fresh();
    const book = await client.orderbook({ category: 'SPOT', symbol: SYMBOL, limit: 50 });
    const [a1] = book.a;
    const qty = new Decimal(a1?.[1] ?? '0').mul(2).toFixed();
    await venue.placeOrder(order({ side: 'buy', orderType: 'limit', qty, price: a1?.[0] ?? '' }));
    const fills = await venue.fills(SYMBOL);
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({ price: a1?.[0], size: a1?.[1], liquidity: 'taker' });
    expect(venue.restingOrders()).toHaveLength(1);
  });

  it('fills a resting limit only when a public trade goes through its price, never on a touch', async () => {
    const { store, venue } = fresh();
    const t0 = clock.now();
    const t1 = t0 + 60_000;
    // The simulator's market is a function of its seed: the public trades of the next minute are known.
    const ahead = sim.engine
      .marketOf(SYMBOL)
      .publicFills(t1, 100)
      .filter((f) => Number(f.ts) > t0);
    const low = Decimal.min(...ahead.map((f) => new Decimal(f.price)));
    const book = await client.orderbook({ category: 'SPOT', symbol: SYMBOL, limit: 5 });
    const tick = new Decimal(1).div(new Decimal(10).pow(2));
    expect(low.plus(tick).lt(book.b[0]?.[0] ?? '0')).toBe(true); // both orders rest at first
    await venue.placeOrder(order({ side: 'buy', orderType: 'limit', qty: '1', price: low.toFixed() }));
    await venue.placeOrder(
      order({ side: 'buy', orderType: 'limit', qty: '1', price: low.plus(tick).toFixed() }),
    );
    expect(await venue.fills(SYMBOL)).toHaveLength(0);
    clock.advance(t1 - t0);
    const fills = await venue.fills(SYMBOL);
    // The trade at `low` goes through the higher order's price and only touches the lower one.
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({ price: low.plus(tick).toFixed(), size: '1', liquidity: 'maker' });
    expect(venue.restingOrders().map((o) => o.price)).toEqual([low.toFixed()]);

    // The journal rebuilds the account exactly: balances, the resting order, the fills.
    const again = open(store);
    expect(again.balances()).toEqual(venue.balances());
    expect(again.restingOrders()).toEqual(venue.restingOrders());
    expect(await again.fills(SYMBOL)).toEqual(fills);
  });

  it("refuses what the venue refuses, with the venue's code, and answers a duplicate clientOid as placed", async () => {
    const { venue } = fresh();
    const bad = venue.placeOrder(
      order({ side: 'buy', orderType: 'limit', qty: '1.123456789', price: '100' }),
    );
    await expect(bad).rejects.toBeInstanceOf(ApiError);
    await expect(bad).rejects.toMatchObject({ code: '95210' });
    const o = order({ side: 'buy', orderType: 'market', qty: '100' });
    await venue.placeOrder(o);
    expect(await venue.placeOrder(o)).toEqual({
      alreadyPlaced: true,
      orderId: undefined,
      clientOid: o.clientOid,
    });
  });

  it('reads only public endpoints', async () => {
    // The simulator's admin API counts every request it received, by path.
    const stats = (await (await fetch(`${sim.baseUrl}/sim/stats`)).json()) as {
      data: { received: Record<string, number> };
    };
    const paths = Object.keys(stats.data.received).filter((p) => !p.startsWith('/sim/'));
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !p.includes('/market/'))).toEqual([]);
  });
});
