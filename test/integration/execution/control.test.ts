// The operator's controls on a live bot against the simulator, through the one pipeline: pause denies
// new entries (PAUSED) while a flatten still sells; halt stops everything until an explicit re-arm;
// every action is journaled with who and why and emitted as an event; the dashboard's API acts on the
// same bot over loopback; a pause survives a restart.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BotSchema, DashboardSchema } from '../../../src/config/index.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, decimalParam, defineStrategy } from '../../../src/strategy/index.js';
import { startDashboard } from '../../../src/web/index.js';
import { parseExitRules } from '../../../src/strategy/exits.js';
import { startLiveVenue, type LiveBotSpec } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';

const CREDS = { apiKey: 'ctl-key', apiSecret: 'ctl-secret', passphrase: 'ctl-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const SPEED = 120;

// Enters whenever it is flat: every candle is an entry signal, so a pause shows at the next candle.
const enterWhenFlat = defineStrategy({
  name: 'enter-when-flat',
  description: 'Buys whenever flat, for tests.',
  params: z.object({ quoteAmount: decimalParam('150', 'quote amount of each buy') }),
  intervals: ['1m'],
  init: () => undefined,
  onCandle(candle, ctx, emit) {
    if (ctx.portfolio.position(candle.symbol).quantity.isZero())
      emit(buyMarket(candle.symbol, ctx.params.quoteAmount, 'entry', 'flat'));
  },
});

describe('operator controls on a live bot', () => {
  it('pause denies entries PAUSED while a flatten sells; halt holds until re-armed; all journaled with who and why', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 9, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const { store } = venue;
    const spec: LiveBotSpec = {
      name: 'ctl',
      strategy: enterWhenFlat,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
      fillPollMs: 200,
      maxSignalAgeMs: 3 * 60_000,
      // Far away: in force (the dashboard shows them) without ever triggering in this test.
      exits: parseExitRules({ stopLoss: '0.5', takeProfit: '2' }, 'test'),
    };
    const events: TraderEvent[] = [];
    const { bot, portfolio } = await venue.createLiveBot(spec, { onEvent: (e) => events.push(e) });
    const held = () => portfolio.position('AAPLUSDT').quantity;
    const after = (i: number) => events.slice(i);
    bot.start();
    await waitFor(() => held().gt(0), { timeoutMs: 20_000, what: 'a first position' });

    const who = 'token:0badc0de';
    await bot.control({ action: 'pause', who, reason: 'news at 14:00' });
    expect(bot.trader.control.paused).toBe(true);
    const pausedAt = events.length;
    // The flatten is an exit: it runs while paused.
    await bot.control({ action: 'flatten', who, reason: 'cut risk', symbol: 'AAPLUSDT' });
    await waitFor(() => held().isZero(), { timeoutMs: 20_000, what: 'the position flattened' });
    await waitFor(() => after(pausedAt).some((e) => e.type === 'denied' && e.code === 'PAUSED'), {
      timeoutMs: 20_000,
      what: 'the next entry denied PAUSED',
    });
    const denied = after(pausedAt).find((e) => e.type === 'denied' && e.code === 'PAUSED');
    expect(denied?.type === 'denied' ? denied.message : '').toMatch(/paused by the operator/);
    const ordersWhilePaused = after(pausedAt).filter((e) => e.type === 'order');
    expect(
      ordersWhilePaused.map((e) => (e.type === 'order' ? `${e.order.side} ${e.intent.tag}` : '')),
    ).toEqual(['sell flatten']);

    // Halt: even a resumed bot places nothing until it is re-armed.
    await bot.control({ action: 'halt', who, reason: 'drill' });
    await bot.control({ action: 'resume', who, reason: 'news done' });
    expect(bot.trader.tradingState).toBe('HALTED');
    const haltedAt = events.length;
    await waitFor(() => after(haltedAt).some((e) => e.type === 'denied' && e.code === 'TRADING_HALTED'), {
      timeoutMs: 20_000,
      what: 'an entry denied TRADING_HALTED',
    });
    expect(after(haltedAt).filter((e) => e.type === 'order')).toEqual([]);
    await bot.control({ action: 'rearm', who, reason: 'drill over' });
    expect(bot.trader.tradingState).toBe('ACTIVE');
    await waitFor(() => held().gt(0), { timeoutMs: 20_000, what: 'an entry after the re-arm' });

    // Journaled with who and why, in order, and emitted as events.
    expect(store.control.list('ctl').map((c) => [c.action, c.who, c.reason, c.symbol])).toEqual([
      ['pause', who, 'news at 14:00', undefined],
      ['flatten', who, 'cut risk', 'AAPLUSDT'],
      ['halt', who, 'drill', undefined],
      ['resume', who, 'news done', undefined],
      ['rearm', who, 'drill over', undefined],
    ]);
    expect(
      events.filter((e) => e.type === 'control').map((e) => (e.type === 'control' ? e.control.action : '')),
    ).toEqual(['pause', 'flatten', 'halt', 'resume', 'rearm']);
    const states = events.filter((e) => e.type === 'trading-state');
    // PAUSED is a state: the pause shows, the halt shows over it, and the resume under the halt changes
    // nothing shown but is journaled (the state's rows say paused or not), so the re-arm leaves it ACTIVE.
    expect(states.map((e) => (e.type === 'trading-state' ? `${e.to}: ${e.reason}` : ''))).toEqual([
      `PAUSED: news at 14:00 (pause by ${who})`,
      `HALTED: drill (halt by ${who})`,
      `ACTIVE: drill over (rearm by ${who})`,
    ]);
    expect(store.tradingState.history().map((t) => t.state)).toEqual([
      'PAUSED',
      'HALTED',
      'HALTED',
      'ACTIVE',
    ]);

    // Over a real loopback socket: the dashboard's control API acts on this very bot, journaled under
    // the token's fingerprint; a read-only dashboard shows it redacted and refuses control.
    const config = BotSchema.parse({
      name: 'ctl',
      strategy: 'enter-when-flat',
      symbols: ['AAPLUSDT'],
      params: { quoteAmount: '150' },
    });
    const token = 'loopback-dashboard-token-77aa';
    const live = await startDashboard({
      config: DashboardSchema.parse({ enabled: true, port: 0, token }),
      bots: () => [{ config, bot }],
      store,
    });
    const readOnly = await startDashboard({
      config: DashboardSchema.parse({ enabled: true, port: 0 }),
      bots: () => [{ config, bot }],
      store,
    });
    try {
      const call = (base: string, action: string, auth?: string) =>
        fetch(new URL(`/api/bots/ctl/${action}`, base), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(auth ? { authorization: `Bearer ${auth}` } : {}),
          },
          body: JSON.stringify({ reason: 'over http' }),
        });
      expect((await call(live.url, 'pause')).status).toBe(401);
      expect(bot.trader.control.paused).toBe(false);
      const ok = await call(live.url, 'pause', token);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { paused: boolean }).paused).toBe(true);
      expect(bot.trader.control.paused).toBe(true);
      expect(store.control.list('ctl').at(-1)).toMatchObject({ action: 'pause', reason: 'over http' });
      expect(store.control.list('ctl').at(-1)?.who).toMatch(/^token:[0-9a-f]{8}$/);
      expect((await call(live.url, 'resume', token)).status).toBe(200);
      expect(bot.trader.control.paused).toBe(false);
      // A flatten of a halted bot is refused with the fix (the gate would deny its sells).
      expect((await call(live.url, 'halt', token)).status).toBe(200);
      const halted = await call(live.url, 'flatten', token);
      expect(halted.status).toBe(409);
      expect(((await halted.json()) as { error: string }).error).toMatch(/is HALTED.*re-arm it first/);
      // Resume does not lift a halt: it says so (409, naming re-arm) instead of a 200 that changes nothing.
      const resumed = await call(live.url, 'resume', token);
      expect(resumed.status).toBe(409);
      expect(((await resumed.json()) as { error: string }).error).toMatch(
        /is HALTED: resume does nothing .*POST \/api\/bots\/ctl\/rearm/,
      );
      expect(bot.trader.tradingState).toBe('HALTED');
      expect((await call(live.url, 'rearm', token)).status).toBe(200);
      expect(bot.trader.tradingState).toBe('ACTIVE');
      // Flatten pauses entries until resumed (else the strategy buys the position back at its next
      // candle), and its answer says so.
      await waitFor(() => held().gt(0), { timeoutMs: 20_000, what: 'a position to flatten' });
      const flattenedAt = events.length;
      const flat = await call(live.url, 'flatten', token);
      expect(flat.status).toBe(200);
      const answer = (await flat.json()) as { done: string; paused: boolean };
      expect(answer.done).toMatch(/entries are paused until you resume the bot/);
      expect(answer.paused).toBe(true);
      await waitFor(() => held().isZero(), { timeoutMs: 20_000, what: 'the flatten sold' });
      await waitFor(() => after(flattenedAt).some((e) => e.type === 'denied' && e.code === 'PAUSED'), {
        timeoutMs: 20_000,
        what: 'the next entry after the flatten denied PAUSED',
      });
      expect(held().isZero()).toBe(true);
      expect(
        after(flattenedAt).filter((e) => e.type === 'order' && e.order.side === 'buy'),
        'no buy back after the flatten',
      ).toEqual([]);
      expect(((await (await call(live.url, 'resume', token)).json()) as { done: string }).done).toMatch(
        /resumed/,
      );
      expect(bot.trader.control.paused).toBe(false);
      // Read-only: the state without parameters, order ids or identities; control refused.
      expect((await call(readOnly.url, 'pause', token)).status).toBe(403);
      const shown = (await (await fetch(new URL('/api/bots/ctl', readOnly.url))).json()) as Record<
        string,
        unknown
      >;
      expect(shown).toMatchObject({ name: 'ctl', paused: false, tradingState: 'ACTIVE' });
      expect(shown).not.toHaveProperty('params');
      expect(JSON.stringify(shown)).not.toMatch(/clientOid|token:/);
      expect((shown.orders as unknown[]).length).toBeGreaterThan(0);
      // The exits in force, as decimal strings, and no protection lock.
      expect(shown.rules).toEqual([
        { kind: 'exit', name: 'stopLoss', value: '0.5' },
        { kind: 'exit', name: 'takeProfit', value: '2' },
      ]);
      expect(shown.locks).toEqual([]);
    } finally {
      await live.close();
      await readOnly.close();
    }

    // A paused bot stays paused across a restart.
    await bot.control({ action: 'pause', who, reason: 'overnight' });
    await bot.stop();
    const again = await venue.createLiveBot(spec);
    expect(again.bot.trader.control.paused).toBe(true);
    await venue.close();
  }, 90_000);
});
