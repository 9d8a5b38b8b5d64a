// The executor places each order exactly once: journaled before it is sent, resent under the same
// clientOid after a transient failure, an answer lost after the venue took the order resolved by the
// venue's `alreadyPlaced` answer (its duplicate refusal), a refusal journaled and never retried. The venue
// is the in-process adapter (the matching core); the faults are injected at the Venue port.
import { describe, expect, it } from 'vitest';
import { apiErrorFor } from '../../../src/api/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor } from '../../../src/execution/executor.js';
import { InProcessVenue } from '../../../src/execution/in-process-venue.js';
import { MemoryJournal } from '../../../src/execution/journal.js';
import type { Venue, VenueOrder } from '../../../src/execution/venue.js';
import { Decimal } from '../../../src/market/decimal.js';
import { CandleFillModel } from '../../../src/sim/candle-fills.js';
import { openStore } from '../../../src/store/index.js';

const T = 1_795_446_000_000;
const order = (clientOid: string, qty = '100'): VenueOrder => ({
  category: 'SPOT',
  symbol: 'AAPLUSDT',
  side: 'buy',
  orderType: 'market',
  qty,
  clientOid,
});

/** A venue whose first sends fail: `before` never reach it, `after` reach it and lose the answer. */
function faulty(fault: 'before' | 'after', failures: number): { venue: Venue; accepted: () => number } {
  const inner = new InProcessVenue({
    market: new CandleFillModel({
      intervalMs: 60_000,
      pricePrecision: () => 2,
      barAt: (_s, t) => ({ t: t - (t % 60_000), open: 100, high: 101, low: 99, close: 100 }),
    }),
    pairs: [{ symbol: 'AAPLUSDT', baseCoin: 'AAPL', quoteCoin: 'USDT', quantityPrecision: 4 }],
    balances: { USDT: new Decimal('1000') },
    fees: { maker: new Decimal('0.001'), taker: new Decimal('0.001') },
  });
  inner.setTime(T);
  let calls = 0;
  let accepted = 0;
  const lost = () =>
    apiErrorFor({ code: 'NETWORK', kind: 'network', msg: 'socket hang up', endpoint: 'placeRealityOrder' });
  return {
    accepted: () => accepted,
    venue: {
      fills: (s) => inner.fills(s),
      async placeOrder(o) {
        const n = ++calls;
        if (fault === 'before' && n <= failures) throw lost();
        const ack = await inner.placeOrder(o);
        if (!ack.alreadyPlaced) accepted++;
        if (fault === 'after' && n <= failures) throw lost();
        return ack;
      },
    },
  };
}

const executorOn = (venue: Venue, journal = new MemoryJournal()) => ({
  journal,
  executor: new Executor({
    venue,
    journal: journal.orders,
    clock: { now: () => T },
    sleep: async () => undefined,
  }),
});

describe('Executor', () => {
  it('resends under the same clientOid after failures that never reached the venue: one order', async () => {
    const v = faulty('before', 2);
    const { executor, journal } = executorOn(v.venue);
    const outcome = await executor.place(order('tb-a'));
    expect(outcome).toMatchObject({ status: 'acked', clientOid: 'tb-a', alreadyPlaced: false });
    expect(v.accepted()).toBe(1);
    expect(journal.orders.byClientOid('tb-a')).toMatchObject({ state: 'acked', attempts: 3 });
  });

  it('takes the duplicate refusal of a resend as the order placed when the first answer was lost', async () => {
    const v = faulty('after', 1);
    const { executor, journal } = executorOn(v.venue);
    const outcome = await executor.place(order('tb-b'));
    expect(outcome).toMatchObject({ status: 'acked', clientOid: 'tb-b', alreadyPlaced: true });
    expect(v.accepted()).toBe(1);
    expect(journal.orders.byClientOid('tb-b')?.state).toBe('acked');
  });

  it('journals a refusal and never retries it', async () => {
    const v = faulty('before', 0);
    const { executor, journal } = executorOn(v.venue);
    const outcome = await executor.place(order('tb-c', '5000'));
    expect(outcome.status).toBe('rejected');
    expect(v.accepted()).toBe(0);
    expect(journal.orders.byClientOid('tb-c')).toMatchObject({ state: 'rejected', attempts: 1 });
  });

  it('leaves an order pending for reconciliation when every send failed, and drains', async () => {
    const v = faulty('before', 10);
    const { executor, journal } = executorOn(v.venue);
    const p = executor.place(order('tb-d'));
    await executor.drain();
    expect((await p).status).toBe('pending');
    expect(journal.orders.byClientOid('tb-d')).toMatchObject({ state: 'pending', attempts: 4 });
    expect(v.accepted()).toBe(0);
  });

  it('leaves an order pending at once when the venue asks to wait longer than a resend waits (no 28-hour sleep)', async () => {
    const slept: number[] = [];
    const journal = new MemoryJournal();
    let sends = 0;
    const executor = new Executor({
      venue: {
        fills: async () => [],
        async placeOrder() {
          sends++;
          throw apiErrorFor({
            code: '429',
            msg: 'HTTP 429',
            endpoint: 'placeRealityOrder',
            httpStatus: 429,
            retryAfterMs: 100_000_000,
          });
        },
      },
      journal: journal.orders,
      clock: { now: () => T },
      sleep: async (ms) => void slept.push(ms),
    });
    const outcome = await executor.place(order('tb-r'));
    expect(outcome.status).toBe('pending');
    expect(outcome.status === 'pending' ? outcome.message : '').toMatch(
      /asked to wait 1 d 3 h before a resend, longer than the 30 s a resend waits: left pending/,
    );
    expect(slept).toEqual([]);
    expect(sends).toBe(1);
    expect(journal.orders.byClientOid('tb-r')).toMatchObject({ state: 'pending', attempts: 1 });
  });

  it('counts the first attempt of an order journaled before a crash that never sent it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tradebot-executor-'));
    const store = openStore(join(dir, 'journal.sqlite'));
    try {
      // Journaled without an attempt: the process died between the commit and the send.
      store.orders.journal({ order: order('tb-r'), bot: 'b' }, T);
      const v = faulty('before', 0);
      let attemptsAtSend: number | undefined;
      const executor = new Executor({
        venue: {
          fills: (s) => v.venue.fills(s),
          placeOrder: (o) => {
            attemptsAtSend = store.orders.byClientOid(o.clientOid)?.attempts;
            return v.venue.placeOrder(o);
          },
        },
        journal: store.orders,
        clock: { now: () => T },
        sleep: async () => undefined,
        atomically: (fn) => store.transaction(fn),
      });
      expect((await executor.place(order('tb-r'), { bot: 'b' })).status).toBe('acked');
      expect(attemptsAtSend).toBe(1);
      expect(v.accepted()).toBe(1);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('commits what goes with an order, the order and its first attempt together, before the send', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tradebot-executor-'));
    const store = openStore(join(dir, 'journal.sqlite'));
    try {
      const v = faulty('before', 0);
      let commits = 0;
      // Every write that precedes the send, and whether it ran inside the one transaction.
      const writes: [string, boolean][] = [];
      const orders = store.orders;
      const journal: typeof orders = Object.assign(Object.create(orders) as typeof orders, {
        journal: (...a: Parameters<typeof orders.journal>) => (
          writes.push(['order', store.db.inTransaction]),
          orders.journal(...a)
        ),
        markAttempt: (...a: Parameters<typeof orders.markAttempt>) => (
          writes.push(['attempt', store.db.inTransaction]),
          orders.markAttempt(...a)
        ),
      });
      const seenAtSend: { inTransaction: boolean; attempts: number | undefined; intents: number }[] = [];
      const executor = new Executor({
        venue: {
          fills: (s) => v.venue.fills(s),
          placeOrder: (o) => {
            seenAtSend.push({
              inTransaction: store.db.inTransaction,
              attempts: store.orders.byClientOid(o.clientOid)?.attempts,
              intents: store.intents.list().length,
            });
            return v.venue.placeOrder(o);
          },
        },
        journal,
        clock: { now: () => T },
        sleep: async () => undefined,
        atomically: (fn) => store.transaction(() => (commits++, fn())),
      });
      const intent = {
        bot: 'b',
        symbol: 'AAPLUSDT',
        category: 'SPOT' as const,
        side: 'buy' as const,
        type: 'market' as const,
        quoteAmount: new Decimal('100'),
        tag: 't',
        reason: 'r',
      };
      const outcome = await executor.place(order('tb-e'), { bot: 'b', intent }, () => {
        writes.push(['intent', store.db.inTransaction]);
        store.intents.record(intent, T);
      });
      expect(outcome.status).toBe('acked');
      // At the send: committed (no transaction open), the attempt counted, the intent written with it.
      expect(seenAtSend).toEqual([{ inTransaction: false, attempts: 1, intents: 1 }]);
      // The order is written with its first attempt counted: no second write for the attempt.
      expect(writes).toEqual([
        ['intent', true],
        ['order', true],
      ]);
      expect(commits).toBe(1);
      expect(store.orders.byClientOid('tb-e')).toMatchObject({ state: 'acked', attempts: 1 });
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
