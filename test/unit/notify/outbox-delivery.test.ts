// Delivery with guarantees, against a real local receiver that honours the Idempotency-Key (it keeps the
// first message of each key and answers a repeat 200 without keeping it): a receiver that hangs then
// recovers keeps every message exactly once; a stop with a backlog loses nothing (the next start, on the
// same journal file, delivers it); HALTED overtakes fills waiting behind the rate limit; the partial
// fills of one order are one message; start, stop, an unclean previous end, pause and resume are told.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { NotifySchema } from '../../../src/config/index.js';
import type { TraderFill } from '../../../src/execution/trader.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { Decimal } from '../../../src/market/decimal.js';
import {
  Notifier,
  telegramChannel,
  webhookChannel,
  type Channel,
  type NotifiableEvent,
} from '../../../src/notify/index.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { timeOf, untimed } from '../../helpers/notify-text.js';
import { waitFor } from '../../helpers/wait-for.js';

interface Log {
  level: string;
  message: string;
  fields?: Record<string, unknown> | undefined;
}

/** A journal file in a temp folder, removed after the test. */
function journalFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-outbox-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'journal.db');
}

/** A receiver that honours idempotency keys: `kept` holds each key's first text, in arrival order. */
async function idempotentReceiver(): Promise<RecordingServer & { kept: Map<string, string> }> {
  const rx = await startRecordingServer();
  onTestFinished(() => rx.close());
  const kept = new Map<string, string>();
  rx.fallback = (req) => {
    const key = req.headers['idempotency-key'];
    const body = JSON.parse(req.body) as { text: string; idempotencyKey?: string };
    if (typeof key === 'string' && !kept.has(key)) kept.set(key, body.text);
    return { body: 'ok' };
  };
  return Object.assign(rx, { kept });
}

function notifier(
  store: Store,
  url: string,
  config: Record<string, unknown> = {},
  o: { label?: string; channel?: Channel } = {},
) {
  const listeners: ((e: NotifiableEvent) => void)[] = [];
  const logs: Log[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    logs.push({ level, message, fields });
  const n = new Notifier({
    config: NotifySchema.parse({
      webhook: { url },
      events: ['fill', 'exit', 'trading-state', 'restart'],
      perMinute: 600,
      ...config,
    }),
    outbox: store.outbox,
    host: {
      logger: { info: log('info'), warn: log('warn') },
      clock: new VirtualClock(Date.UTC(2026, 10, 23, 15)),
      speed: 1,
      ...(o.label === undefined ? {} : { label: o.label }),
      bots: () => [],
      subscribe: (l) => {
        listeners.push(l);
        return () => undefined;
      },
    },
    channels: [o.channel ?? webhookChannel(url)],
    backoffMs: 50,
  });
  return { n, logs, emit: (e: NotifiableEvent) => listeners.forEach((l) => l(e)) };
}

const halted = (i: number): NotifiableEvent => ({
  type: 'trading-state',
  bot: 'a',
  ts: i,
  from: 'ACTIVE',
  to: 'HALTED',
  reason: `r${i}`,
});

const fill = (o: { order: string; exec: string; size: string; price: string }): NotifiableEvent => ({
  type: 'fill',
  bot: 'a',
  ts: 1,
  fill: {
    seq: 1,
    execId: o.exec,
    bot: 'a',
    symbol: 'AAPLUSDT',
    baseCoin: 'AAPL',
    quoteCoin: 'USDT',
    side: 'buy',
    price: new Decimal(o.price),
    size: new Decimal(o.size),
    fee: new Decimal('0.01'),
    feeCoin: 'USDT',
    ts: 1,
    orderId: o.order,
    clientOid: `c${o.order}`,
    liquidity: 'taker',
    liquidityInferred: false,
    notional: new Decimal(o.price).times(o.size),
    tag: 'entry',
  } as TraderFill,
});

const texts = (rx: { kept: Map<string, string> }) => [...rx.kept.values()].map(untimed);

describe('notification delivery', () => {
  it('a receiver that hangs then recovers keeps every message exactly once, by idempotency key', async () => {
    const rx = await idempotentReceiver();
    const store = openStore(journalFile());
    onTestFinished(() => store.close());
    const honour = rx.fallback;
    // The first three requests are taken (and kept) but never answered: a receiver stuck after storing.
    let hangs = 3;
    rx.fallback = (req) => {
      honour(req);
      return hangs-- > 0 ? { hang: true } : { body: 'ok' };
    };
    const { n, emit } = notifier(store, `${rx.baseUrl}/hook`, { timeoutMs: 300 });
    for (let i = 1; i <= 4; i++) emit(halted(i));
    await waitFor(() => rx.kept.size >= 4 && store.outbox.waiting('webhook') === 0, {
      what: 'four messages kept and acknowledged',
      timeoutMs: 20_000,
    });
    await n.stop();
    expect(texts(rx)).toEqual([1, 2, 3, 4].map((i) => `a trading state ACTIVE → HALTED: r${i}`));
    // Every resend carried the key of its message, in the header and the body ...
    for (const r of rx.requests)
      expect(r.headers['idempotency-key']).toBe(
        (JSON.parse(r.body) as { idempotencyKey: string }).idempotencyKey,
      );
    // ... and the first message was resent only until it was answered: three hung attempts, one answered.
    const first = rx.requests[0]?.headers['idempotency-key'];
    expect(rx.requests.filter((r) => r.headers['idempotency-key'] === first)).toHaveLength(4);
    expect(rx.requests).toHaveLength(7);
  });

  it('a stop with a backlog loses nothing: the stop says how many are carried over, the next start delivers them', async () => {
    const rx = await idempotentReceiver();
    const honour = rx.fallback;
    rx.fallback = () => ({ status: 503, body: 'down' });
    const file = journalFile();
    const first = openStore(file);
    const before = notifier(first, `${rx.baseUrl}/hook`, { timeoutMs: 300 });
    for (let i = 1; i <= 5; i++) before.emit(halted(i));
    await waitFor(() => rx.requests.length >= 1, { what: 'a first attempt', timeoutMs: 10_000 });
    const left = await before.n.stop(200);
    first.close();
    expect(left).toBe(5);
    const carried = before.logs.find((l) => l.message === 'notifications carried over');
    expect(carried?.fields?.what).toBe(
      "5 notifications carried over to the next start (kept in the journal's outbox)",
    );
    expect(rx.kept.size).toBe(0);

    // The next start, on the same journal file, with the receiver back.
    rx.fallback = honour;
    const second = openStore(file);
    onTestFinished(() => second.close());
    const after = notifier(second, `${rx.baseUrl}/hook`);
    await waitFor(() => second.outbox.waiting('webhook') === 0, {
      what: 'the backlog delivered',
      timeoutMs: 10_000,
    });
    await after.n.stop();
    expect(texts(rx)).toEqual([1, 2, 3, 4, 5].map((i) => `a trading state ACTIVE → HALTED: r${i}`));
    expect(String(after.logs[0]?.fields?.what)).toContain('5 notifications carried over from the last run');
  });

  it('HALTED goes before the fills waiting behind the rate limit', async () => {
    const rx = await idempotentReceiver();
    const store = openStore(journalFile());
    onTestFinished(() => store.close());
    // Two a second: the first fill goes at once, the rest wait.
    const { n, emit } = notifier(store, `${rx.baseUrl}/hook`, { perMinute: 120, fillWindowMs: 0 });
    emit(fill({ order: '1', exec: 'e1', size: '1', price: '10' }));
    await waitFor(() => rx.kept.size >= 1, { what: 'the first fill', timeoutMs: 10_000 });
    for (let i = 2; i <= 5; i++) emit(fill({ order: String(i), exec: `e${i}`, size: '1', price: '10' }));
    emit(halted(1));
    await waitFor(() => rx.kept.size >= 6, { what: 'six messages', timeoutMs: 20_000 });
    await n.stop();
    expect(texts(rx).map((t) => (t.includes('HALTED') ? 'HALTED' : 'fill'))).toEqual([
      'fill',
      'HALTED',
      'fill',
      'fill',
      'fill',
      'fill',
    ]);
  });

  it('the partial fills of one order are one message: total size, average price, fees', async () => {
    const rx = await idempotentReceiver();
    const store = openStore(journalFile());
    onTestFinished(() => store.close());
    const { n, emit } = notifier(store, `${rx.baseUrl}/hook`, { fillWindowMs: 400 });
    emit(fill({ order: '7', exec: 'p1', size: '1', price: '10' }));
    emit(fill({ order: '8', exec: 'q1', size: '3', price: '20' }));
    emit(fill({ order: '7', exec: 'p2', size: '2', price: '11' }));
    emit(fill({ order: '7', exec: 'p3', size: '1', price: '12' }));
    await waitFor(() => rx.kept.size >= 2, { what: 'two messages', timeoutMs: 10_000 });
    await n.stop();
    expect(texts(rx)).toEqual([
      'a bought 4 AAPL at avg 11 USDT in 3 fills (fees 0.03 USDT)',
      'a bought 3 AAPL at 20 USDT (fee 0.01 USDT, taker)',
    ]);
  });

  it('tells the start after an unclean end, pause and resume by the operator, and the stop', async () => {
    const rx = await idempotentReceiver();
    const store = openStore(journalFile());
    onTestFinished(() => store.close());
    const { n, emit } = notifier(store, `${rx.baseUrl}/hook`, { events: ['lifecycle', 'control'] });
    n.started({ bots: ['a', 'b'], venue: 'simulator', previousRun: 'unclean' });
    const control = (action: 'pause' | 'resume', reason: string): NotifiableEvent => ({
      type: 'control',
      bot: 'a',
      ts: 1,
      control: { action, who: 'token:0badc0de', reason },
    });
    emit(control('pause', 'news at 14:00'));
    emit(control('resume', 'news done'));
    await n.stop();
    expect(texts(rx)).toEqual([
      'tradebot started on simulator: 2 bots (a, b). The previous run did not end cleanly (no clean stop in the journal): orders and fills were reconciled with the venue at start',
      'a paused (no new entries) by token:0badc0de: news at 14:00',
      'a resumed (entries allowed again) by token:0badc0de: news done',
      'tradebot stopping',
    ]);
  });

  it('a Telegram that takes a message and never answers gets it twice at most, then the log says it may have arrived', async () => {
    const rx = await startRecordingServer();
    onTestFinished(() => rx.close());
    rx.fallback = () => ({ hang: true });
    const store = openStore(journalFile());
    onTestFinished(() => store.close());
    const channel = telegramChannel({ botToken: '77:late', chatId: '4242', apiBaseUrl: rx.baseUrl });
    const { n, logs, emit } = notifier(store, 'http://127.0.0.1:9/unused', { timeoutMs: 200 }, { channel });
    emit(halted(1));
    await waitFor(() => logs.some((l) => l.message === 'notification unconfirmed'), {
      what: 'the message given up',
      timeoutMs: 20_000,
    });
    expect(rx.requests.length).toBe(2);
    expect(store.outbox.waiting('telegram')).toBe(0);
    expect(String(logs.find((l) => l.message === 'notification unconfirmed')?.fields?.what)).toMatch(
      /got no answer within 200 ms twice: it may have arrived.*not sent a third time/,
    );
    await n.stop(0);
    expect(rx.requests.length).toBe(2);
  });

  it("says [PAPER] on every kind of message, the fills of one order too, and the venue's time of what it tells", async () => {
    const rx = await idempotentReceiver();
    const store = openStore(journalFile());
    onTestFinished(() => store.close());
    const { n, emit } = notifier(store, `${rx.baseUrl}/hook`, { fillWindowMs: 200 }, { label: 'PAPER' });
    emit(fill({ order: '9', exec: 'e1', size: '1', price: '10' }));
    emit(fill({ order: '9', exec: 'e2', size: '3', price: '11' }));
    emit(halted(Date.UTC(2026, 10, 23, 15, 32, 5)));
    await waitFor(() => rx.kept.size >= 2 && store.outbox.waiting('webhook') === 0, {
      what: 'two messages',
      timeoutMs: 20_000,
    });
    await n.stop(0);
    const all = [...rx.kept.values()];
    for (const t of all) expect(t).toMatch(/^\[PAPER\] a /);
    expect(all.map(untimed).find((t) => t.includes('in 2 fills'))).toMatch(/^\[PAPER\] a bought 4 AAPL/);
    // Each message carries the venue's time of its event (the fills' ts, the state change's), in the zone of the
    // daily summary: not this machine's clock.
    expect(all.map(timeOf).sort()).toEqual(['1969-12-31 19:00:00 EST', '2026-11-23 10:32:05 EST']);
  });
});
