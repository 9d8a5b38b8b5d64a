// The notifier between the pipeline's events and a real local receiver: which events make a message
// (a burst of denials is one, the warm-up's stale signals none, an exit names its reason), and a target
// whose receiver is down loses only the oldest messages beyond its queue, logged once per outage.
import { untimed } from '../../helpers/notify-text.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { LiveBotStatus } from '../../../src/execution/live-bot.js';
import type { TraderFill } from '../../../src/execution/trader.js';
import { VirtualClock, type Clock } from '../../../src/feeds/clock.js';
import { Decimal } from '../../../src/market/decimal.js';
import { NotifySchema } from '../../../src/config/index.js';
import { Notifier, webhookChannel, type NotifiableEvent } from '../../../src/notify/index.js';
import { openStore } from '../../../src/store/index.js';
import { startRecordingServer } from '../../helpers/recording-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { botStatus } from '../../helpers/bot-status.js';

function harness(
  config: Record<string, unknown>,
  url: string,
  host: { clock?: Clock; speed?: number; bots?: () => LiveBotStatus[] } = {},
) {
  const listeners: ((e: NotifiableEvent) => void)[] = [];
  const logs: { level: string; message: string; fields?: Record<string, unknown> | undefined }[] = [];
  const logger = {
    info: (message: string, fields?: Record<string, unknown>) =>
      logs.push({ level: 'info', message, fields }),
    warn: (message: string, fields?: Record<string, unknown>) =>
      logs.push({ level: 'warn', message, fields }),
  };
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-notifier-'));
  const store = openStore(join(dir, 'journal.db'));
  onTestFinished(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const cfg = NotifySchema.parse({
    webhook: { url },
    events: ['fill', 'exit', 'denials', 'trading-state', 'restart'],
    ...config,
  });
  const n = new Notifier({
    config: cfg,
    outbox: store.outbox,
    host: {
      logger,
      clock: host.clock ?? new VirtualClock(0),
      speed: host.speed ?? 1,
      bots: host.bots ?? (() => []),
      subscribe: (l) => {
        listeners.push(l);
        return () => undefined;
      },
    },
    channels: [webhookChannel(url)],
  });
  return { n, logs, emit: (e: NotifiableEvent) => listeners.forEach((l) => l(e)) };
}

const fill = (extra: Record<string, unknown> = {}): TraderFill =>
  ({
    seq: 1,
    execId: 'x1',
    bot: 'a',
    symbol: 'AAPLUSDT',
    baseCoin: 'AAPL',
    quoteCoin: 'USDT',
    side: 'sell',
    price: new Decimal('151.85'),
    size: new Decimal('13.17'),
    fee: new Decimal('0.2'),
    feeCoin: 'USDT',
    ts: 1,
    orderId: '1',
    clientOid: 'c1',
    liquidity: 'taker',
    liquidityInferred: false,
    tag: 'exit',
    ...extra,
  }) as TraderFill;

const denied = (ts: number, code: string): NotifiableEvent =>
  ({ type: 'denied', bot: 'a', ts, code, message: 'no', intent: {} }) as unknown as NotifiableEvent;

const burst = (ts: number, code: string, count: number): NotifiableEvent => ({
  type: 'denial-burst',
  bot: 'a',
  ts,
  code,
  count,
  windowMs: 600_000,
});

describe('Notifier', () => {
  it('sends a fill with units, an exit with its reason, one message per burst of denials (before the fills waiting), none per denial, stale signals included', async () => {
    const rx = await startRecordingServer();
    rx.fallback = () => ({ body: 'ok' });
    const { n, emit } = harness({ perMinute: 600, fillWindowMs: 0 }, `${rx.baseUrl}/hook`);
    emit({ type: 'fill', bot: 'a', ts: 1, fill: fill() });
    emit({
      type: 'fill',
      bot: 'a',
      ts: 2,
      fill: fill({ exitReason: 'stop-loss', orderId: '2', clientOid: 'c2', execId: 'x2' }),
    });
    // Signals decided too late to trade are trades the backtest makes and this run missed: a burst is an alarm
    // (counted by the daemon, execution/denial-burst.ts): one message each, denials themselves none.
    for (let i = 0; i < 3; i++) emit(denied(1000 + i, 'STALE_SIGNAL'));
    emit(burst(1002, 'STALE_SIGNAL', 3));
    emit(burst(202_000, 'INSUFFICIENT_CASH', 5));
    await waitFor(() => rx.requests.length >= 4, { what: 'four messages', timeoutMs: 10_000 });
    await n.stop();
    const texts = rx.requests.map((r) => untimed((JSON.parse(r.body) as { text: string }).text));
    // Queued together: the burst outranks the fills, which keep their order.
    expect(texts).toEqual([
      'a: 3 intents denied STALE_SIGNAL within 10 min; see the journal or the logs for each sentence',
      'a: 5 intents denied INSUFFICIENT_CASH within 10 min; see the journal or the logs for each sentence',
      'a sold 13.17 AAPL at 151.85 USDT (fee 0.2 USDT, taker)',
      'a exit (stop-loss): sold 13.17 AAPL at 151.85 USDT (fee 0.2 USDT, taker)',
    ]);
    await rx.close();
  });

  it('a receiver that is down: the oldest messages past the queue are dropped and counted, the outage logged once, the recovery once', async () => {
    const rx = await startRecordingServer();
    rx.fallback = () => ({ status: 503, body: 'down' });
    const { n, logs, emit } = harness({ queue: 2, retries: 10, perMinute: 600 }, `${rx.baseUrl}/hook`);
    for (let i = 1; i <= 6; i++)
      emit({ type: 'trading-state', bot: 'a', ts: i, from: 'ACTIVE', to: 'HALTED', reason: `r${i}` });
    await waitFor(() => rx.requests.length >= 3, { what: 'resends to the down receiver', timeoutMs: 10_000 });
    rx.fallback = () => ({ body: 'ok' });
    await waitFor(() => logs.some((l) => l.message === 'notifications recovered'), {
      what: 'the recovery',
      timeoutMs: 15_000,
    });
    await n.stop();
    expect(logs.filter((l) => l.message === 'notifications failing')).toHaveLength(1);
    expect(String(logs.find((l) => l.message === 'notifications failing')?.fields?.what)).toMatch(
      /^notifications to webhook failing since .*: the webhook answered HTTP 503/,
    );
    const recovered = logs.find((l) => l.message === 'notifications recovered');
    // Six messages, a queue of two: four were pushed out while the first waited.
    expect(recovered?.fields?.dropped).toBe(4);
    const delivered = rx.requests
      .filter((r) => r.body.includes('HALTED'))
      .map((r) => untimed((JSON.parse(r.body) as { text: string }).text));
    expect(delivered.at(-1)).toBe('a trading state ACTIVE → HALTED: r6');
    await rx.close();
  });

  it('raises the alarm when a venue fill is not booked exactly once: the books left the account', async () => {
    const rx = await startRecordingServer();
    const { n, emit } = harness({ events: ['account'], perMinute: 600 }, `${rx.baseUrl}/hook`);
    emit({
      type: 'fills-mismatch',
      ts: 1,
      symbol: 'XAAAUSDT',
      execId: '14000042',
      side: 'sell',
      size: '1.5',
      booked: '0',
    });
    await waitFor(() => rx.requests.length >= 1, { what: 'the alarm', timeoutMs: 10_000 });
    await n.stop();
    expect(untimed((JSON.parse(rx.requests[0]?.body ?? '{}') as { text: string }).text)).toBe(
      "ALARM XAAAUSDT: the venue's fill 14000042 (sell 1.5) is booked as 0; the bots' books no longer sum to the account",
    );
    await rx.close();
  });

  it('tells a margin liquidation at once, with the events of margin (not as a plain fill)', async () => {
    const rx = await startRecordingServer();
    rx.fallback = () => ({ body: 'ok' });
    const { n, emit } = harness(
      { events: ['margin'], perMinute: 600, fillWindowMs: 0 },
      `${rx.baseUrl}/hook`,
    );
    emit({ type: 'fill', bot: 'shorty', ts: 5, fill: fill({ bot: 'shorty' }) });
    emit({
      type: 'fill',
      bot: 'shorty',
      ts: 6,
      fill: fill({
        bot: 'shorty',
        side: 'buy',
        price: new Decimal('300'),
        size: new Decimal('10'),
        fee: new Decimal('3'),
        tag: 'liquidation',
        liquidation: true,
        orderId: undefined,
        clientOid: undefined,
        execId: 'x9',
      }),
    });
    await waitFor(() => rx.requests.length >= 1, { what: 'the liquidation', timeoutMs: 10_000 });
    await n.stop();
    expect(rx.requests.map((r) => untimed((JSON.parse(r.body) as { text: string }).text))).toEqual([
      'shorty LIQUIDATED: the venue closed its short by force: bought 10 AAPL at 300 USDT (fee 3 USDT, taker)',
    ]);
    await rx.close();
  });

  it('tells a bot restart, and sends the daily summary when the venue clock reads its cron time', async () => {
    const rx = await startRecordingServer();
    rx.fallback = () => ({ body: 'ok' });
    const speed = 60;
    const start = Date.UTC(2026, 10, 23, 21, 4, 58); // 16:04:58 ET, two venue seconds before 16:05
    // The venue's clock starts when the notifier first reads it (after the journal is open).
    let t0: number | undefined;
    const clock: Clock = {
      now: () => Math.floor(start + (performance.now() - (t0 ??= performance.now())) * speed),
    };
    const bot = botStatus('a', {
      intents: 3,
      denials: 1,
      orders: 2,
      fills: 2,
      sinceStart: { intents: 1, denials: 0, orders: 1, fills: 1 },
      equity: '10010.504321',
      realisedPnl: '12',
      unrealisedPnl: '0.5',
      fees: '2',
      net: '10.5',
      positions: [
        { symbol: 'AAPLUSDT', baseCoin: 'AAPL', quantity: '3', avgPrice: '150', unrealisedPnl: '0.5' },
      ],
    });
    const { n, emit } = harness(
      { events: ['restart', 'daily-summary'], perMinute: 600 },
      `${rx.baseUrl}/hook`,
      { clock, speed, bots: () => [bot, { ...bot, name: 'b', orders: 1, fills: 1, positions: [] }] },
    );
    emit({ type: 'bot-restarted', bot: 'a', ts: 1, restarts: 2, error: 'strategy threw' });
    await waitFor(() => rx.requests.length >= 2, {
      what: 'the restart and the summary',
      timeoutMs: 10_000,
    });
    await n.stop();
    const texts = rx.requests.map((r) => untimed((JSON.parse(r.body) as { text: string }).text));
    expect(texts).toEqual([
      'a failed and is restarted (restart 2): strategy threw',
      'tradebot daily summary, 2026-11-23 16:05:00 EST\na ACTIVE: 2 orders, 2 fills, pnl 10.50 USDT (fees 2.00 USDT), equity 10010.50 USDT, 3 AAPL\nb ACTIVE: 1 order, 1 fill, pnl 10.50 USDT (fees 2.00 USDT), equity 10010.50 USDT, flat',
    ]);
    await rx.close();
  });
});
