// A strategy against the simulator: the live pipeline places orders, receives fills, and the portfolio
// equals the simulator's account to the last decimal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLiveBot, createVenueRuntime } from '../../../src/execution/runtime.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { startSimulator } from '../../../src/sim/index.js';
import { openStore } from '../../../src/store/index.js';
import { buyMarket, decimalParam, defineStrategy, sellMarket } from '../../../src/strategy/index.js';
import { silentLogger } from '../../../src/strategy/testing.js';
import { waitFor } from '../../helpers/wait-for.js';

const CREDS = { apiKey: 'bot-key', apiSecret: 'bot-secret', passphrase: 'bot-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const SPEED = 120; // two simulated minutes per real second

// Buys on every third closed candle when flat, sells everything on the next third candle.
const flipper = defineStrategy({
  name: 'flipper',
  description: 'Buys and sells every three candles, for tests.',
  params: z.object({ quoteAmount: decimalParam('150', 'quote amount of each buy') }),
  intervals: ['1m'],
  init: () => ({ n: 0 }),
  onCandle(candle, ctx, emit, st) {
    st.n++;
    if (st.n % 3 !== 0) return;
    const held = ctx.portfolio.position(candle.symbol).quantity;
    if (held.gt(0)) emit(sellMarket(candle.symbol, held, 'flip-out', 'third candle'));
    else emit(buyMarket(candle.symbol, ctx.params.quoteAmount, 'flip-in', 'third candle'));
  },
});

const dir = mkdtempSync(join(tmpdir(), 'tradebot-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The flipper bot on a fresh simulator and journal. */
async function flipBot(db: string) {
  const sim = await startSimulator({
    seed: 5,
    speed: SPEED,
    startTime: START,
    accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '10000' } }],
  });
  const clock = { now: () => sim.engine.now() };
  const runtime = createVenueRuntime({
    baseUrl: sim.baseUrl,
    credentials: CREDS,
    clock,
    speed: SPEED,
    cadences: { tickersMs: 5_000 },
    staleAfterMs: 60_000,
  });
  const path = join(dir, db);
  const store = openStore(path, { clock });
  const { bot, portfolio } = await createLiveBot({
    runtime,
    store,
    logger: silentLogger,
    spec: {
      name: 'flip',
      strategy: flipper,
      params: {},
      category: 'SPOT',
      symbols: ['AAPLUSDT'],
      interval: '1m',
      risk: RiskLimitsSchema.parse({
        allowedSessions: ['regular'],
        whitelisted: true,
        maxDataAgeMs: 60_000,
      }),
      quoteCoin: 'USDT',
      capital: '10000',
      feeRate: '0.001',
      fillPollMs: 200,
      maxSignalAgeMs: 3 * 60_000,
    },
  });
  const close = async () => {
    runtime.close();
    store.close();
    await sim.stop();
  };
  return { sim, store, path, bot, portfolio, close };
}

describe('live bot against the simulator', () => {
  it('places orders, receives fills, and its portfolio equals the account to the last decimal', async () => {
    const { sim, store, bot, portfolio, close } = await flipBot('live.db');
    bot.start();
    await waitFor(() => store.fills.list({ bot: 'flip' }).filter((f) => f.side === 'sell').length >= 2, {
      timeoutMs: 20_000,
      what: 'two round trips of the bot',
    });
    await bot.stop();
    await bot.syncFills();
    const fills = store.fills.list({ bot: 'flip' });
    expect(fills.filter((f) => f.side === 'buy').length).toBeGreaterThanOrEqual(2);
    expect(fills.filter((f) => f.side === 'sell').length).toBeGreaterThanOrEqual(2);
    // Every order the bot journaled is at the simulator exactly once.
    const journaled = store.orders.list({ bot: 'flip' });
    const atVenue = sim.engine.orders(CREDS.apiKey);
    expect(atVenue.length).toBe(journaled.filter((o) => o.state === 'acked').length);
    expect(new Set(atVenue.map((o) => o.clientOid)).size).toBe(atVenue.length);
    // Backfilled history produced signals that were refused as stale, never traded.
    const denials = store.denials.list({ bot: 'flip' });
    expect(denials.length).toBeGreaterThan(0);
    expect(denials.map((d) => d.code)).toEqual(denials.map(() => 'STALE_SIGNAL'));

    const bal = sim.engine.balancesDecimal(CREDS.apiKey);
    const total = (coin: string) => {
      const b = bal[coin];
      return b ? b.available.plus(b.frozen).toFixed() : '0';
    };
    expect(portfolio.cash('USDT').toFixed()).toBe(total('USDT'));
    expect(portfolio.cash('AAPL').toFixed()).toBe(total('AAPL'));
    expect(portfolio.position('AAPLUSDT').quantity.toFixed()).toBe(total('AAPL'));
    await close();
  }, 40_000);

  it('journals the mark of the candle an order comes from before the order reaches the venue', async () => {
    const { sim, path, bot, close } = await flipBot('marks.db');
    // What the journal holds for good when an order arrives: read by another connection, as after a crash.
    const reader = new BetterSqlite3(path, { readonly: true });
    const committedMark = () =>
      (
        reader.prepare('SELECT value FROM meta WHERE key = ?').get('candle:flip:AAPLUSDT:1m') as
          { value: string } | undefined
      )?.value;
    const seen: { mark: string | undefined; candle: string }[] = [];
    const handle = sim.engine.handle.bind(sim.engine);
    sim.engine.handle = (name, params, ctx) => {
      // The bot waits for the answer before it takes the next candle: its last candle is the order's.
      if (name === 'placeRealityOrder')
        seen.push({ mark: committedMark(), candle: String(bot.status().lastCandle) });
      return handle(name, params, ctx);
    };
    bot.start();
    await waitFor(() => seen.length >= 3, { timeoutMs: 20_000, what: 'three orders at the venue' });
    await bot.stop();
    expect(seen.map((x) => x.mark)).toEqual(seen.map((x) => x.candle));
    // The mark of a candle that led to no order is journaled too (on its own, right after the candle).
    await waitFor(() => committedMark() === String(bot.status().lastCandle), {
      timeoutMs: 5_000,
      what: "the last candle's mark in the journal",
    });
    reader.close();
    await close();
  }, 40_000);
});
