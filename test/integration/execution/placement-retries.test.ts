// One owner of an order's resends: the executor (it knows the clientOid and journals each attempt), so the
// RestClient under it sends a placement once. Counted on the wire: the simulator on loopback answers every
// request with a 5xx, or past the client's deadline (its own fault injection), and counts the requests it
// received. One order reaches the venue at most the executor's attempt count, and the journal counts each.
import { describe, expect, it } from 'vitest';
import { Executor } from '../../../src/execution/executor.js';
import type { FaultConfig } from '../../../src/sim/index.js';
import { startLiveVenue } from '../../helpers/live-venue.js';

const CREDS = { apiKey: 'retry-key', apiSecret: 'retry-secret', passphrase: 'retry-pass' };
const START = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET, regular session
const PLACE_PATH = '/api/v3/trade/place-reality-order';
const ATTEMPTS = 4;

async function sendsUnder(faults: FaultConfig, clientTimeoutMs: number) {
  const venue = await startLiveVenue({
    credentials: CREDS,
    account: { whitelisted: true },
    sim: { seed: 5, speed: 1, startTime: START, rateLimits: false },
    // The runtime's client keeps its default retry policy (4 sends of a request): placements must not use it.
    runtime: { timeoutMs: clientTimeoutMs },
  });
  const { sim, runtime, store, clock } = venue;
  const executor = new Executor({
    venue: runtime.venue,
    journal: store.orders,
    clock,
    maxAttempts: ATTEMPTS,
    backoffMs: 5,
    atomically: (fn) => store.transaction(fn),
  });
  sim.engine.faults.set(faults);
  const outcome = await executor.place(
    {
      category: 'SPOT',
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'market',
      qty: '100',
      clientOid: 'tb-retry-owner',
    },
    { bot: 'b' },
  );
  const stats = (await (await fetch(`${sim.baseUrl}/sim/stats`)).json()) as {
    data: { received: Record<string, number> };
  };
  const sends = stats.data.received[PLACE_PATH] ?? 0;
  sim.engine.faults.set({});
  return { venue, executor, outcome, sends, record: store.orders.byClientOid('tb-retry-owner') };
}

describe('an order placement has one retry owner', () => {
  it('sends one order at most the executor attempt count under repeated 5xx answers', async () => {
    const { outcome, sends, record } = await sendsUnder({ errorRate: 1 }, 2_000);
    expect(outcome.status).toBe('pending');
    expect(sends).toBe(ATTEMPTS);
    // Every send on the wire is an attempt in the journal (reconciliation reads them).
    expect(record).toMatchObject({ state: 'pending', attempts: ATTEMPTS });
  });

  it('sends one order at most the executor attempt count when every answer comes after the deadline', async () => {
    const { venue, executor, outcome, sends, record } = await sendsUnder({ latencyMs: [300, 300] }, 100);
    expect(outcome.status).toBe('pending');
    expect(sends).toBe(ATTEMPTS);
    expect(record).toMatchObject({ state: 'pending', attempts: ATTEMPTS });
    // The first send landed after the client gave up: a resend says the order is already placed, and one
    // order is at the venue.
    if (record === undefined) throw new Error('order not journaled');
    const resent = await executor.resend(record);
    expect(resent).toMatchObject({ status: 'acked', alreadyPlaced: true });
    expect(venue.sim.engine.orders(CREDS.apiKey)).toHaveLength(1);
  });
});
