// An ordinary client written for the real venue works unchanged: a request signed with nothing but
// node:crypto and the venue's rule is accepted, and the same request with one byte changed is refused.
// No project code is used to build or sign the request (only to start the simulator).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';

describe('a hand-signed request', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 3,
      startTime: Date.UTC(2026, 10, 23, 15, 0),
      accounts: [{ apiKey: 'k1', apiSecret: 's1', passphrase: 'p1' }],
    });
  });
  afterAll(() => sim.stop());

  const send = async (mutate?: (s: { body: string; query: string }) => void) => {
    // The simulator runs on its own clock; ask it for the time the way any client would.
    const t = (await (await fetch(`${sim.baseUrl}/api/v3/market/rpi-symbols`)).json()) as {
      requestTime: number;
    };
    const ts = String(t.requestTime);
    const path = '/api/v3/account/set-leverage';
    const signed = {
      body: JSON.stringify({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '3' }),
      query: '',
    };
    const sign = createHmac('sha256', 's1')
      .update(ts + 'POST' + path + signed.body)
      .digest('base64');
    const sent = { ...signed };
    mutate?.(sent);
    const res = await fetch(sim.baseUrl + path, {
      method: 'POST',
      body: sent.body,
      headers: {
        'ACCESS-KEY': 'k1',
        'ACCESS-SIGN': sign,
        'ACCESS-PASSPHRASE': 'p1',
        'ACCESS-TIMESTAMP': ts,
        'Content-Type': 'application/json',
        locale: 'en-US',
      },
    });
    return { status: res.status, body: (await res.json()) as { code: string; data: unknown } };
  };

  it('is accepted', async () => {
    const r = await send();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: '00000', data: 'success' });
  });

  it('is refused with one byte of the body changed', async () => {
    const r = await send((s) => {
      s.body = s.body.replace('"3"', '"4"');
    });
    expect(r.body.code).toBe('90009');
    expect(r.status).toBe(401);
  });

  it('signs a GET over the query string exactly as sent', async () => {
    const t = (await (await fetch(`${sim.baseUrl}/api/v3/market/rpi-symbols`)).json()) as {
      requestTime: number;
    };
    const ts = String(t.requestTime);
    const path = '/api/v3/account/reality-fills';
    const query = 'symbol=AAPLUSDT&limit=5'; // not sorted: the signature covers what is sent
    const sign = createHmac('sha256', 's1').update(`${ts}GET${path}?${query}`).digest('base64');
    const res = await fetch(`${sim.baseUrl}${path}?${query}`, {
      headers: { 'ACCESS-KEY': 'k1', 'ACCESS-SIGN': sign, 'ACCESS-PASSPHRASE': 'p1', 'ACCESS-TIMESTAMP': ts },
    });
    // Signed correctly; refused only because this account has no whitelist access.
    expect(((await res.json()) as { code: string }).code).toBe('90068');
  });
});
