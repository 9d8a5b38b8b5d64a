// A strategy against the simulator: the live pipeline places orders, receives fills, and the portfolio
// equals the simulator's account to the last decimal; the candle an order comes from is journaled with it;
// the bot backfills exactly its strategy's warm-up and sends nothing before it, also after a restart.
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, defineStrategy } from '../../../src/strategy/index.js';
import { MemoryLogger } from '../../../src/strategy/testing.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { flipper } from './fixtures/strategies.js';

const CREDS = { apiKey: 'bot-key', apiSecret: 'bot-secret', passphrase: 'bot-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const SPEED = 120; // two simulated minutes per real second

describe('live bot against the simulator', () => {
  it('places orders, receives fills, and its portfolio equals the account to the last decimal', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 5, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const { sim, store } = venue;
    const { bot, portfolio } = await venue.createLiveBot({
      name: 'flip',
      strategy: flipper,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
      fillPollMs: 200,
      maxSignalAgeMs: 3 * 60_000,
    });
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
    // The flipper has no warm-up, so the bot backfilled no history; a signal that aged on its way (a slow
    // machine) is refused as stale, never traded.
    const denials = store.denials.list({ bot: 'flip' });
    expect(denials.map((d) => d.code)).toEqual(denials.map(() => 'STALE_SIGNAL'));

    const bal = sim.engine.balancesDecimal(CREDS.apiKey);
    const total = (coin: string) => {
      const b = bal[coin];
      return b ? b.available.plus(b.frozen).toFixed() : '0';
    };
    expect(portfolio.cash('USDT').toFixed()).toBe(total('USDT'));
    expect(portfolio.cash('AAPL').toFixed()).toBe(total('AAPL'));
    expect(portfolio.position('AAPLUSDT').quantity.toFixed()).toBe(total('AAPL'));
    await venue.close();
  }, 40_000);

  it("counts a fill before the daemon's log line of it is written (the status block redrawn with it is not one behind)", async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 5, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    // The daemon's logger subscribes before the bot is built; each log line redraws the status block.
    const seen: { logged: number; counted: number }[] = [];
    const ref: { status?: () => { fills: number } } = {};
    const { bot, store } = {
      ...(await venue.createLiveBot(
        {
          name: 'flip',
          strategy: flipper,
          risk: RiskLimitsSchema.parse({
            allowedSessions: ['regular'],
            whitelisted: true,
            maxDataAgeMs: 60_000,
          }),
          fillPollMs: 200,
          maxSignalAgeMs: 3 * 60_000,
        },
        {
          onEvent: (e) => {
            if (e.type === 'fill' && ref.status !== undefined)
              seen.push({ logged: seen.length + 1, counted: ref.status().fills });
          },
        },
      )),
      store: venue.store,
    };
    ref.status = () => bot.status();
    bot.start();
    await waitFor(() => seen.length >= 2, { timeoutMs: 20_000, what: 'two fills logged' });
    await bot.stop();
    expect(seen.slice(0, 2)).toEqual([
      { logged: 1, counted: 1 },
      { logged: 2, counted: 2 },
    ]);
    expect(bot.status().fills).toBe(store.fills.list({ bot: 'flip' }).length);
    await venue.close();
  }, 40_000);

  it('journals the mark of the candle an order comes from before the order reaches the venue', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 5, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const { sim } = venue;
    const { bot } = await venue.createLiveBot({
      name: 'flip',
      strategy: flipper,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
      fillPollMs: 200,
      maxSignalAgeMs: 3 * 60_000,
    });
    // What the journal holds for good when an order arrives: read by another connection, as after a crash.
    const reader = new BetterSqlite3(venue.journalPath, { readonly: true });
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
    await venue.close();
  }, 40_000);

  it('backfills exactly its warm-up, sends nothing before it, and warms up again after a restart without trading a decided candle', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 5, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const WARM = 5;
    // Buys 10 USDT on every candle it sees, its open time as the reason: warmed up or not.
    const eager = defineStrategy({
      name: 'eager',
      description: 'Buys on every candle, for tests.',
      params: z.object({}),
      intervals: ['1m'],
      startupCandles: WARM,
      onCandle(c, ctx, emit) {
        runs.at(-1)?.push({ openTime: c.openTime, at: ctx.clock.now() });
        emit(buyMarket(c.symbol, new Decimal('10'), 'eager', String(c.openTime)));
      },
    });
    const runs: { openTime: number; at: number }[][] = [];
    const sent: number[] = [];
    const onEvent = (e: TraderEvent) => {
      if (e.type === 'intent') sent.push(Number(e.intent.reason));
    };
    const spec = {
      name: 'eager',
      strategy: eager,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
      fillPollMs: 200,
      maxSignalAgeMs: 3 * 60_000,
    };
    const logger = new MemoryLogger();
    const M = 60_000;

    runs.push([]);
    const first = await venue.createLiveBot(spec, { onEvent, logger });
    first.bot.start();
    await waitFor(() => sent.length >= 3, { timeoutMs: 20_000, what: 'three intents sent' });
    await first.bot.stop();
    const one = runs[0] as { openTime: number; at: number }[];
    // The backfill: the WARM candles closed when the stream started (a minute may pass before they arrive).
    const start = one[0] as { openTime: number; at: number };
    expect([WARM * M, (WARM + 1) * M]).toContain(Math.floor(start.at / M) * M - start.openTime);
    // Nothing sent before the strategy had seen WARM candles: the first intent is the WARM-th candle's.
    expect(sent[0]).toBe(one[WARM - 1]?.openTime);
    expect(sent).toEqual(one.slice(WARM - 1, WARM - 1 + sent.length).map((c) => c.openTime));
    expect(logger.lines.some((l) => l.message === 'warm-up done')).toBe(true);
    const mark = Number(venue.store.meta.get('candle:eager:AAPLUSDT:1m'));
    expect(mark).toBe(one.at(-1)?.openTime);

    // A restart: a new strategy, warmed up again on candles the journal says were decided, none traded again.
    await venue.restart();
    const before = sent.length;
    runs.push([]);
    const second = await venue.createLiveBot(spec, { onEvent });
    second.bot.start();
    await waitFor(() => sent.length >= before + 2, {
      timeoutMs: 20_000,
      what: 'two intents after the restart',
    });
    await second.bot.stop();
    const two = runs[1] as { openTime: number; at: number }[];
    expect((two[0] as { openTime: number }).openTime).toBeLessThanOrEqual(mark - (WARM - 1) * M);
    expect(two.some((c) => c.openTime === mark)).toBe(true);
    const again = sent.slice(before);
    expect(Math.min(...again)).toBeGreaterThan(mark);
    // Each order at the venue once: no candle was traded twice.
    expect(new Set(sent).size).toBe(sent.length);
    await venue.close();
  }, 60_000);

  it('started on a Saturday, keeps running and says the market is closed and when its session opens', async () => {
    // Friday 2026-11-27 was the early close after Thanksgiving; Saturday 11:00 ET is 3 days before Monday's open.
    const { venue, bot, logger } = await regularSessionBot('weekend', Date.UTC(2026, 10, 28, 16, 0), 1);
    bot.start();
    const closed = await waitFor(() => logger.lines.find((l) => l.message === 'market closed for the bot'), {
      timeoutMs: 15_000,
      what: 'the bot saying the market is closed',
    });
    expect(closed.fields?.what).toBe(
      'the US market is closed (weekend); the bot trades in regular: regular opens at 2026-11-30 09:30:00 EST (in 46h 30m); it waits',
    );
    expect(bot.status().running).toBe(true);
    await venue.close();
  }, 40_000);

  it('started before the open, says once that it waits and once that the market opened', async () => {
    const { venue, bot, logger } = await regularSessionBot('opening', Date.UTC(2026, 10, 30, 14, 29), 60); // Mon 09:29 ET
    bot.start();
    await waitFor(() => logger.lines.some((l) => l.message === 'market open for the bot'), {
      timeoutMs: 15_000,
      what: 'the bot saying the market opened',
    });
    const notes = logger.lines.filter((l) => l.message.startsWith('market '));
    expect(notes.map((l) => l.message)).toEqual(['market closed for the bot', 'market open for the bot']);
    expect(String(notes[0]?.fields?.what)).toMatch(
      /^the US market is in its pre_market session, which the bot does not trade; the bot trades in regular: regular opens at 2026-11-30 09:30:00 EST \(in [01]m\); it waits$/,
    );
    expect(notes[1]?.fields?.session).toBe('regular');
    await venue.close();
  }, 40_000);
});

/** A bot that trades the regular session only, on a simulator started at `startTime`, logging to memory. */
async function regularSessionBot(name: string, startTime: number, speed: number) {
  const venue = await startLiveVenue({
    credentials: CREDS,
    account: { whitelisted: true, balances: { USDT: '10000' } },
    sim: { seed: 5, speed, startTime },
    runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
  });
  const logger = new MemoryLogger();
  const { bot } = await venue.createLiveBot(
    {
      name,
      strategy: flipper,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
      fillPollMs: 200,
    },
    { logger },
  );
  return { venue, bot, logger };
}
