// Fills as the venue gives them (the simulator's default: execId, price, size, side, ts, no order ids)
// reach the right bot: two bots on different symbols and two sharing one under the FIFO rule, each
// journals exactly the fills of its own orders; a manual order placed before the deployment first
// started is never booked; a full page of new fills is read again and reported as possibly incomplete.
import { describe, expect, it } from 'vitest';
import { fillRouterFor } from '../../../src/execution/runtime.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import type { Simulator } from '../../../src/sim/index.js';
import type { Store } from '../../../src/store/index.js';
import { silentLogger } from '../../../src/strategy/testing.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { flipper } from './fixtures/strategies.js';

const CREDS = { apiKey: 'attr-key', apiSecret: 'attr-secret', passphrase: 'attr-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const SPEED = 120;

const spec = (name: string, symbols: string[], quoteAmount: string) => ({
  name,
  strategy: flipper,
  params: { quoteAmount },
  symbols,
  risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
  capital: '5000',
  fillPollMs: 300,
  maxSignalAgeMs: 3 * 60_000,
});

/** The account's fills at the simulator, by the clientOid of their order (the venue's own truth). */
const venueFillsOf = (sim: Simulator, clientOids: ReadonlySet<string>) =>
  sim.engine
    .fills(CREDS.apiKey)
    .filter((f) => f.clientOid !== undefined && clientOids.has(f.clientOid))
    .map((f) => f.execId)
    .sort();

const journaledFillsOf = (store: Store, bot: string) =>
  store.fills
    .list({ bot })
    .map((f) => f.execId)
    .sort();

describe('fills without ids on the wire', () => {
  it('books each fill to the bot whose order made it, and never the account fills from before the first start', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '20000' } },
      sim: { seed: 7, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const { sim, runtime, store } = venue;
    // The wire answers the spec's five fields: nothing ties a fill to its order.
    const manual = await runtime.client.placeRealityOrder({
      category: 'SPOT',
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'market',
      qty: '200',
      clientOid: 'by-hand-1',
    });
    const wire = await runtime.client.realityFills({ symbol: 'AAPLUSDT' });
    expect(wire.length).toBeGreaterThan(0);
    for (const f of wire) expect(Object.keys(f).sort()).toEqual(['execId', 'price', 'side', 'size', 'ts']);
    const manualFills = sim.engine.fills(CREDS.apiKey).filter((f) => f.orderId === manual.orderId);
    expect(manualFills.length).toBeGreaterThan(0);

    const made = [];
    // a and c share AAPLUSDT (FIFO rule), b trades MSFTUSDT alone.
    for (const s of [
      spec('a', ['AAPLUSDT'], '150'),
      spec('b', ['MSFTUSDT'], '170'),
      spec('c', ['AAPLUSDT'], '230'),
    ])
      made.push(await venue.createLiveBot(s));
    const baseline = store.meta.get('fill-baseline:AAPLUSDT');
    expect(baseline).toBeDefined();
    for (const m of made) m.bot.start();
    const sells = (bot: string) => store.fills.list({ bot }).filter((f) => f.side === 'sell').length;
    await waitFor(() => ['a', 'b', 'c'].every((b) => sells(b) >= 2), {
      timeoutMs: 30_000,
      what: 'two sells of each bot',
    });
    for (const m of made) await m.bot.stop();
    for (const m of made) await m.bot.syncFills();

    for (const name of ['a', 'b', 'c']) {
      const oids = new Set(store.orders.list({ bot: name }).map((o) => o.clientOid));
      const atVenue = venueFillsOf(sim, oids);
      expect(atVenue.length).toBeGreaterThan(0);
      // Exactly the fills of the bot's own orders, each tied to the right order.
      expect(journaledFillsOf(store, name)).toEqual(atVenue);
      for (const f of store.fills.list({ bot: name })) {
        const truth = sim.engine.fills(CREDS.apiKey).find((v) => v.execId === f.execId);
        expect(f.clientOid).toBe(truth?.clientOid);
      }
    }
    // The order placed by hand before the first start is nobody's.
    const booked = new Set(store.fills.list().map((f) => f.execId));
    for (const f of manualFills) expect(booked.has(f.execId)).toBe(false);
    // Each bot's portfolio is what its own fills make it: the three together hold what the account
    // bought, less the manual order's shares.
    const aapl = sim.engine.balancesDecimal(CREDS.apiKey).AAPL;
    const held = made[0]!.portfolio
      .position('AAPLUSDT')
      .quantity.plus(made[2]!.portfolio.position('AAPLUSDT').quantity);
    const manualQty = manualFills.reduce((s, f) => s.plus(f.size), new Decimal(0));
    expect(held.plus(manualQty).toFixed()).toBe(aapl?.available.plus(aapl.frozen).toFixed());
    await venue.close();
  }, 60_000);

  it('reads again at once when a poll returns a full page of new fills, and says fills may be missing', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '100000' } },
      sim: { seed: 8, speed: 1, startTime: START },
      // The account is whitelisted: the client may place its 150 orders at 30 a second, not 5.
      runtime: { whitelisted: true },
    });
    const { sim, runtime, store } = venue;
    const warnings: { msg: string; meta?: Record<string, unknown> }[] = [];
    const logger = {
      ...silentLogger,
      warn: (msg: string, meta?: Record<string, unknown>) =>
        void warnings.push({ msg, ...(meta ? { meta } : {}) }),
    };
    await venue.createLiveBot(spec('p', ['AAPLUSDT'], '100'), { logger });
    const router = fillRouterFor(runtime, store);
    // 150 fills of the account (by hand) between two polls.
    for (let i = 0; i < 150; i++)
      await runtime.client.placeRealityOrder({
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        side: 'buy',
        orderType: 'market',
        qty: '20',
        clientOid: `hand-${i}`,
      });
    expect(sim.engine.fills(CREDS.apiKey, 'AAPLUSDT').length).toBeGreaterThanOrEqual(150);
    await router.sync('AAPLUSDT');
    expect(router.possiblyMissing).toBeGreaterThan(0);
    expect(warnings.map((w) => w.msg)).toContain(
      'fills may be missing: a poll returned a full page of new fills, reading again',
    );
    // None of them is the bot's: none is booked to it; each one read is the deployment's, once.
    const booked = store.fills.list();
    expect(booked.filter((f) => f.bot !== undefined)).toEqual([]);
    expect(booked.length).toBeGreaterThanOrEqual(100);
    expect(new Set(booked.map((f) => f.execId)).size).toBe(booked.length);
    expect(router.accounting.unbooked).toBe(booked.length);
    await venue.close();
  }, 60_000);
});
