// The simulator's admin API under /sim/: clock, funds, withdrawals, faults, suspensions and reset,
// over HTTP as a test harness or an operator would use it; bad bodies are refused with a sentence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';

const CREDS = { apiKey: 'adm-key', apiSecret: 'adm-secret', passphrase: 'adm-pass' };

describe('simulator admin API', () => {
  let sim: Simulator;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(sim.baseUrl + path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { ok: boolean; data?: unknown; error?: unknown },
    };
  };
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 2,
      startTime: Date.UTC(2026, 10, 23, 15),
      speed: 1,
      withdrawalCoolingMs: 120_000,
      accounts: [{ ...CREDS, balances: { USDT: '100' } }],
    });
  });
  afterAll(() => sim.stop());

  it('advances the clock', async () => {
    const before = (await call('GET', '/sim/time')).body.data as { now: number };
    const after = (await call('POST', '/sim/clock/advance', { ms: 3_600_000 })).body.data as { now: number };
    expect(after.now - before.now).toBeGreaterThanOrEqual(3_600_000);
    expect((await call('POST', '/sim/clock/advance', { ms: -1 })).body).toMatchObject({ ok: false });
  });

  it('funds an account and shows its balances', async () => {
    await call('POST', '/sim/fund', { apiKey: CREDS.apiKey, coin: 'USDT', amount: '250.5' });
    const b = (await call('GET', `/sim/balances?apiKey=${CREDS.apiKey}`)).body.data as Record<
      string,
      { available: string }
    >;
    expect(b.USDT?.available).toBe('350.5');
    const bad = await call('POST', '/sim/fund', { apiKey: CREDS.apiKey, coin: 'USDT', amount: 5 });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(bad.body.error)).toMatch(/amount/);
  });

  it('creates a withdrawal whose cooling period a client can cancel in, and not after', async () => {
    const client = new RestClient({ baseUrl: sim.baseUrl, credentials: CREDS, retry: { maxAttempts: 1 } });
    const w = (
      await call('POST', '/sim/withdrawals', {
        apiKey: CREDS.apiKey,
        coin: 'USDT',
        amount: '10',
        clientOid: 'adm-w1',
      })
    ).body.data as { orderId: string };
    await expect(client.cancelWithdrawal({ orderId: w.orderId })).resolves.toBe('success');
    await call('POST', '/sim/withdrawals', {
      apiKey: CREDS.apiKey,
      coin: 'USDT',
      amount: '10',
      clientOid: 'adm-w2',
    });
    await call('POST', '/sim/clock/advance', { ms: 121_000 });
    await expect(client.cancelWithdrawal({ clientOid: 'adm-w2' })).rejects.toMatchObject({ code: '95302' });
    const list = (await call('GET', `/sim/withdrawals?apiKey=${CREDS.apiKey}`)).body.data as {
      clientOid: string;
      status: string;
    }[];
    expect(list.find((x) => x.clientOid === 'adm-w1')?.status).toBe('cancelled');
    client.close();
  });

  it('turns faults on and off at runtime', async () => {
    await call('POST', '/sim/faults', { errorRate: 1 });
    const r = await fetch(`${sim.baseUrl}/api/v3/market/rpi-symbols`);
    expect(r.status).toBeGreaterThanOrEqual(500);
    await call('POST', '/sim/faults', {});
    expect((await fetch(`${sim.baseUrl}/api/v3/market/rpi-symbols`)).status).toBe(200);
  });

  it('suspends a Reality code and resets everything', async () => {
    await call('POST', '/sim/suspensions', { code: 'AAPL', suspended: true });
    const info = (await (
      await fetch(`${sim.baseUrl}/api/v3/reality/market/suspension-resumption-info?code=AAPL`)
    ).json()) as { data: { suspensionDate: string } };
    expect(info.data.suspensionDate).not.toBe('');
    await call('POST', '/sim/reset');
    const b = (await call('GET', `/sim/balances?apiKey=${CREDS.apiKey}`)).body.data as Record<
      string,
      { available: string }
    >;
    expect(b.USDT?.available).toBe('100');
    expect((await call('GET', '/sim/nope')).status).toBe(404);
  });
});
