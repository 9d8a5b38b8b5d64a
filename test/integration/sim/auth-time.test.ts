// The simulator's timestamp window: a client that signs with the wall clock (any third-party client)
// is accepted by a simulator running 3 days in the future at speed 60, and so is one signing with the
// simulated time it learned from requestTime; a timestamp far from both is refused with 40008.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../../src/api/index.js';
import { liveClock } from '../../../src/feeds/clock.js';
import { RestClient } from '../../../src/client/index.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';

const KEY = { apiKey: 'time-key', apiSecret: 'time-secret', passphrase: 'time-pass' };
const PATH = '/api/v3/account/reality-fills';
const QUERY = 'symbol=AAPLUSDT';

describe('simulator auth time', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 3,
      speed: 60,
      startTime: liveClock.now() + 3 * 86_400_000,
      accounts: [{ ...KEY, whitelisted: true }],
    });
  });
  afterAll(() => sim.stop());

  const signedFetch = async (ts: number) => {
    const t = String(ts);
    const res = await fetch(`${sim.baseUrl}${PATH}?${QUERY}`, {
      headers: {
        'ACCESS-KEY': KEY.apiKey,
        'ACCESS-SIGN': sign(KEY.apiSecret, t, 'GET', PATH, QUERY, ''),
        'ACCESS-PASSPHRASE': KEY.passphrase,
        'ACCESS-TIMESTAMP': t,
        'Content-Type': 'application/json',
      },
    });
    return (await res.json()) as { code: string; msg: string; requestTime: number };
  };

  it('accepts a request stamped with the wall clock by a simulator 3 days ahead at speed 60', async () => {
    const r = await signedFetch(liveClock.now());
    expect(r.code).toBe('00000');
    expect(r.requestTime - liveClock.now()).toBeGreaterThan(2.9 * 86_400_000);
  });

  it('accepts a request stamped with the simulated time of requestTime', async () => {
    const now = (await signedFetch(liveClock.now())).requestTime;
    expect((await signedFetch(now)).code).toBe('00000');
  });

  it('takes the window in real time: at speed 60 a stamp 10 real seconds (600 simulated) behind the simulated clock passes, one 40 real seconds behind does not', async () => {
    const now = (await signedFetch(liveClock.now())).requestTime;
    // A client whose estimate of the venue's clock lags by 10 real seconds (a loaded machine, a slow sync).
    expect((await signedFetch(now - 600_000)).code).toBe('00000');
    const far = await signedFetch(now - 40 * 60 * 1000);
    expect(far.code).toBe('90008');
    expect(far.msg).toMatch(/30 real seconds at speed 60/);
  });

  it('refuses a timestamp 40 s from both clocks, naming both', async () => {
    const r = await signedFetch(liveClock.now() - 40_000);
    expect(r.code).toBe('90008');
    expect(r.msg).toMatch(/simulated time .* and the wall clock/);
  });

  it("serves our client, which signs on the venue's clock learned from requestTime", async () => {
    const client = new RestClient({ baseUrl: sim.baseUrl, credentials: KEY, whitelisted: true });
    await expect(client.realityFills({ symbol: 'AAPLUSDT' })).resolves.toEqual(expect.any(Array));
    client.close();
  });
});
