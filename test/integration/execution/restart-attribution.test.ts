// A limit order resting across a restart: its fill (five fields, no ids) arrives after the daemon came
// back, and is still attributed to it, because the pipeline rebuilds its open orders from the journal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLiveBot, createVenueRuntime } from '../../../src/execution/runtime.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { startSimulator } from '../../../src/sim/index.js';
import { openStore } from '../../../src/store/index.js';
import { defineStrategy, type OrderIntent } from '../../../src/strategy/index.js';
import { silentLogger } from '../../../src/strategy/testing.js';
import { waitFor } from '../../helpers/wait-for.js';

const CREDS = { apiKey: 'rs-key', apiSecret: 'rs-secret', passphrase: 'rs-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const idle = defineStrategy({
  name: 'idle',
  description: 'Never trades; the test submits intents itself.',
  params: z.object({}),
  intervals: ['1m'],
  onCandle() {},
});
const dir = mkdtempSync(join(tmpdir(), 'tradebot-restart-attr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a resting limit order across a restart', () => {
  it('gets its fill booked after the restart, though the fill names no order', async () => {
    const sim = await startSimulator({
      seed: 3,
      speed: 1,
      startTime: START,
      accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '10000' } }],
    });
    const clock = { now: () => sim.engine.now() };
    const path = join(dir, 'restart.db');
    const boot = async () => {
      const runtime = createVenueRuntime({
        baseUrl: sim.baseUrl,
        credentials: CREDS,
        clock,
        cadences: { tickersMs: 500 },
        staleAfterMs: 3_600_000,
      });
      const store = openStore(path, { clock });
      const { bot } = await createLiveBot({
        runtime,
        store,
        logger: silentLogger,
        spec: {
          name: 'rest',
          strategy: idle,
          params: {},
          category: 'SPOT',
          symbols: ['AAPLUSDT'],
          interval: '1m',
          risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 3_600_000 }),
          quoteCoin: 'USDT',
          capital: '10000',
          feeRate: '0.001',
          fillPollMs: 60_000,
        },
      });
      return { runtime, store, bot };
    };

    const first = await boot();
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
    const [order] = first.store.orders.list({ bot: 'rest', state: 'acked' });
    expect(order).toBeDefined();
    expect(first.store.fills.list()).toEqual([]);
    await first.bot.stop();
    first.runtime.close();
    first.store.close();

    // Restarted: the market moves on until the resting order fills.
    const second = await boot();
    const trader = second.bot.trader;
    for (let i = 0; i < 2000 && second.store.fills.list().length === 0; i++) {
      sim.engine.clock.advance(15_000);
      await trader.syncFills();
    }
    const atVenue = sim.engine.fills(CREDS.apiKey).filter((f) => f.clientOid === order?.clientOid);
    expect(atVenue.length).toBeGreaterThan(0);
    const booked = second.store.fills.list({ bot: 'rest' });
    expect(booked.map((f) => f.execId).sort()).toEqual(atVenue.map((f) => f.execId).sort());
    for (const f of booked) expect(f.clientOid).toBe(order?.clientOid);
    second.runtime.close();
    second.store.close();
    await sim.stop();
  }, 60_000);
});
