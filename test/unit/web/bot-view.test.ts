// What the dashboard keeps of a bot: orders read back from the journal keep their venue times (and fills
// their base coin); the equity curve spans the whole run (thinned past EQUITY_POINTS, its start kept).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BotSchema } from '../../../src/config/index.js';
import type { LiveBot } from '../../../src/execution/live-bot.js';
import type { TraderEvent, TraderListener } from '../../../src/execution/trader-events.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { dec } from '../../../src/market/decimal.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { BotView, EQUITY_POINTS } from '../../../src/web/bot-view.js';

const START = Date.UTC(2026, 10, 23, 15); // a Monday, 10:00 ET
const config = BotSchema.parse({ name: 'b', strategy: 'ma-crossover', symbols: ['AAPLUSDT'] });
let dir = '';
let store: Store | undefined;
afterEach(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A bot as the view sees it: its event subscription (the view reads nothing else until a snapshot). */
function botEmitting(): { bot: LiveBot; emit: (e: TraderEvent) => void } {
  let listener: TraderListener = () => undefined;
  const bot = {
    subscribe: (l: TraderListener) => {
      listener = l;
      return () => undefined;
    },
  } as unknown as LiveBot;
  return { bot, emit: (e) => listener(e) };
}

describe('BotView', () => {
  it('reads orders back from the journal with their venue times and fills (never "earlier")', () => {
    dir = mkdtempSync(join(tmpdir(), 'tradebot-bot-view-'));
    const clock = new VirtualClock(START);
    store = openStore(join(dir, 'j.db'), { clock });
    const order = {
      category: 'SPOT' as const,
      symbol: 'AAPLUSDT',
      side: 'sell' as const,
      orderType: 'market' as const,
      qty: '2',
      clientOid: 'tb-b-0001',
    };
    store.orders.journal({ order, bot: 'b' });
    clock.advance(1_500);
    store.orders.markAcked('tb-b-0001', 'v-1');
    for (const [execId, price] of [
      ['e1', '150'],
      ['e2', '152'],
    ] as const)
      store.fills.insert({
        execId,
        bot: 'b',
        clientOid: 'tb-b-0001',
        symbol: 'AAPLUSDT',
        baseCoin: 'AAPL',
        quoteCoin: 'USDT',
        side: 'sell',
        price,
        size: '1',
        fee: '0.1',
        feeCoin: 'USDT',
        ts: START + 2_000,
      });
    const view = new BotView(config, store, () => undefined);
    view.attach(botEmitting().bot);
    expect(view.orders.map((o) => [o.ts, o.status])).toEqual([[START + 1_500, 'acked']]);
    expect(view.fills.map((f) => f.baseCoin)).toEqual(['AAPL', 'AAPL']);
  });

  it('keeps the whole run in the equity curve: past EQUITY_POINTS it is thinned, its first point kept', () => {
    dir = mkdtempSync(join(tmpdir(), 'tradebot-bot-view-'));
    store = openStore(join(dir, 'j.db'), { clock: new VirtualClock(START) });
    const view = new BotView(config, store, () => undefined);
    const { bot, emit } = botEmitting();
    view.attach(bot);
    const n = EQUITY_POINTS * 3;
    for (let i = 0; i < n; i++)
      emit({ type: 'equity', bot: 'b', ts: START + i * 60_000, equity: dec(String(10_000 + i)) });
    const times = view.equity.map((p) => p.time);
    expect(times[0]).toBe(START / 1000);
    expect(times.at(-1)).toBe((START + (n - 1) * 60_000) / 1000);
    expect(view.equity.length).toBeLessThanOrEqual(EQUITY_POINTS);
    expect(view.equity.length).toBeGreaterThan(EQUITY_POINTS / 2);
    expect(times.every((t, i) => i === 0 || t > (times[i - 1] ?? 0))).toBe(true);
  });
});
