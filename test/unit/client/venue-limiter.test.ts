// The venue limiter on an injected clock: one budget per venue shared by every client of the process,
// the reality group shared by all its endpoints, headroom and spacing that survive arrival jitter at a
// venue counting in exact one-second windows (the simulator's own window class), priorities, per-UID
// budgets and the AIMD slow-down after a 429. Requests cross a real loopback server.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RestClient, VenueLimiter } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { SlidingWindowLimiter } from '../../../src/sim/rate-limit.js';
import { envelope, startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { wireTicker } from '../../helpers/wire.js';

const NOW = 1_767_225_600_000;
const creds = { apiKey: 'k1', apiSecret: 's', passphrase: 'p' };
const page = { list: [], cursor: '' };
const ticker = wireTicker({ ts: String(NOW) });

describe('VenueLimiter', () => {
  let server: RecordingServer;
  let clock: VirtualClock;
  /** Venue-clock arrival time of each request, by path. */
  let arrivals: { path: string; at: number; key: string | undefined }[];
  let limiters: Set<VenueLimiter>;
  // Time moves only once every request let through is answered, so a request's departure, arrival and
  // answer share one clock reading (on loopback it would otherwise arrive after later sleeps).
  const sleep = async (ms: number) => {
    const busy = () => [...limiters].some((l) => l.inFlight > 0);
    while (busy()) await new Promise((r) => setImmediate(r));
    clock.advance(ms);
  };
  const mk = (extra: Partial<ConstructorParameters<typeof RestClient>[0]> = {}) => {
    const c = new RestClient({ baseUrl: server.baseUrl, clock, sleep, ...extra });
    if (c.limiter) limiters.add(c.limiter);
    return c;
  };

  beforeEach(async () => {
    server = await startRecordingServer();
    clock = new VirtualClock(NOW);
    arrivals = [];
    limiters = new Set();
    server.fallback = (r) => {
      arrivals.push({ path: r.path, at: clock.now(), key: r.headers['access-key'] as string | undefined });
      if (r.path.includes('/reality/market/')) return { body: envelope(page, clock.now()) };
      if (r.path.endsWith('/tickers')) return { body: envelope([ticker], clock.now()) };
      return { body: envelope({ orderId: '1', clientOid: 'x' }, clock.now()) };
    };
  });
  afterEach(async () => {
    await server.close();
  });

  it('gives every client of one venue and clock the same limiter, and another venue its own', async () => {
    const a = mk();
    const b = mk();
    const other = new RestClient({ baseUrl: 'http://127.0.0.1:1', clock, sleep });
    expect(a.limiter).toBeDefined();
    expect(a.limiter).toBe(b.limiter);
    expect(other.limiter).not.toBe(a.limiter);
    expect(mk({ rateLimit: false }).limiter).toBeUndefined();
    a.close();
    b.close();
    other.close();
  });

  it('shares one 1/s budget among all reality endpoints of all clients, with 80% headroom', async () => {
    const a = mk();
    const b = mk();
    await Promise.all([
      a.dividends({ code: 'AAPL' }),
      b.suspensionResumptionInfo({ code: 'TSLA' }).catch(() => undefined),
      a.innerTrades({ code: 'NVDA' }),
      b.shareholdDetail({ code: 'MSFT' }),
    ]);
    const times = arrivals.map((r) => r.at - NOW);
    // 1 request per 1.25 s: four requests of four endpoints from two clients never share a second.
    expect(times).toEqual([0, 1250, 2500, 3750]);
    a.close();
    b.close();
  });

  it('keeps other budgets apart: tickers do not wait behind the reality group', async () => {
    const a = mk();
    await Promise.all([a.dividends({ code: 'AAPL' }), a.dividends({ code: 'TSLA' })]);
    const before = clock.now();
    await a.tickers({ category: 'SPOT' });
    expect(clock.now()).toBe(before);
    a.close();
  });

  it('serves waiting requests of one budget by priority: orders and fills before company data', async () => {
    const a = mk();
    const order: string[] = [];
    const go = (p: 0 | 3, code: string) =>
      a.request('dividends', { code }, { priority: p }).then(() => order.push(code));
    await Promise.all([go(3, 'FIRST'), go(3, 'LOW'), go(0, 'HIGH')]);
    // FIRST left at once; of the two that waited, the higher priority went first.
    expect(order).toEqual(['FIRST', 'HIGH', 'LOW']);
    a.close();
  });

  it('keeps per-UID budgets per account, at 30 orders/s when whitelisted and 5 otherwise', async () => {
    const plain = mk({ credentials: creds });
    const other = mk({ credentials: { ...creds, apiKey: 'k2' }, whitelisted: true });
    const order = { symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: '10' } as const;
    await Promise.all([1, 2, 3].map(() => plain.placeRealityOrder(order)));
    await Promise.all([1, 2, 3].map(() => other.placeRealityOrder(order)));
    const at = (key: string) => arrivals.filter((r) => r.key === key).map((r) => r.at - NOW);
    expect(at('k1')).toEqual([0, 250, 500]); // 5/s at 80%: one per 250 ms
    // k2's budget is its own (it did not wait behind k1) and 30/s at 80%: one per 42 ms.
    expect(at('k2')).toEqual([500, 542, 584]);
    plain.close();
    other.close();
  });

  it('after a 429 halves the budget (logged once, counted each time) and wins the rate back on success', async () => {
    const warnings: string[] = [];
    const logger = { debug: () => undefined, warn: (m: string) => warnings.push(m) };
    const limiter = new VenueLimiter(clock, sleep, { logger });
    limiters.add(limiter);
    const counted: string[] = [];
    limiter.onThrottled((g) => counted.push(g));
    const a = mk({ rateLimit: limiter, random: () => 0, retry: { maxAttempts: 4, baseDelayMs: 0 } });
    const tooMany = {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { code: '429', msg: 'x', data: null, requestTime: NOW },
    };
    server.script(tooMany, tooMany);
    await a.dividends({ code: 'AAPL' });
    expect(counted).toEqual(['reality-market', 'reality-market']);
    expect(warnings.filter((w) => w.includes('rate limit'))).toHaveLength(1);
    // Two halvings, then one success: 1/4 + 0.05 of the rate.
    expect(limiter.factorOf('dividends')).toBeCloseTo(0.3);
    const t0 = clock.now();
    await a.dividends({ code: 'AAPL' });
    await a.dividends({ code: 'AAPL' });
    // The request after that leaves 1250 / 0.3 ms after it (instead of 1250).
    expect(arrivals.at(-1)!.at - arrivals.at(-2)!.at).toBe(Math.ceil(1250 / 0.3));
    expect(clock.now()).toBeGreaterThan(t0);
    for (let i = 0; i < 20; i++) limiter.succeeded('dividends');
    expect(limiter.factorOf('dividends')).toBe(1);
    a.close();
  });

  it('warns of a new slow-down of a group at most once every 10 s, counting the ones between', () => {
    const warnings: Record<string, unknown>[] = [];
    const logger = {
      debug: () => undefined,
      warn: (_m: string, f?: Record<string, unknown>) => warnings.push(f ?? {}),
    };
    const limiter = new VenueLimiter(clock, sleep, { logger });
    limiters.add(limiter);
    const burst = () => {
      limiter.throttled('dividends');
      for (let i = 0; i < 20; i++) limiter.succeeded('dividends'); // the rate won back: a later 429 is a new slow-down
    };
    burst();
    clock.advance(3000);
    burst();
    clock.advance(3000);
    burst();
    expect(warnings).toHaveLength(1);
    clock.advance(10_000);
    burst();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatchObject({ group: 'reality-market', slowDownsSinceLastWarning: 2 });
  });

  it('holds the next request of a 1/s budget until a window after the previous one was answered', async () => {
    // The first answer comes 5 s late: had the request sat unsent that long, it may have arrived then,
    // so the next may only leave a full window after that answer (not 1.25 s after the first left).
    let held: (() => void) | undefined;
    server.fallback = (r) => {
      arrivals.push({ path: r.path, at: clock.now(), key: undefined });
      if (arrivals.length === 1) {
        held = () => undefined;
        return { hang: true };
      }
      return { body: envelope(page, clock.now()) };
    };
    // A sleep that moves the clock at once, whatever is in flight (the gate is what must hold).
    const plain = new VenueLimiter(clock, async (ms) => clock.advance(ms));
    const a = mk({ timeoutMs: 600_000, retry: { maxAttempts: 1 }, rateLimit: plain });
    // Another client on the same limiter: closing `a` ends only a's calls.
    const b = mk({ timeoutMs: 600_000, retry: { maxAttempts: 1 }, rateLimit: plain });
    const first = a.dividends({ code: 'AAPL' }).catch(() => 'failed');
    const second = b.dividends({ code: 'TSLA' });
    while (held === undefined) await new Promise((r) => setImmediate(r));
    clock.advance(5000);
    const answeredAt = clock.now() - NOW;
    // The venue never answers the first: closing its client's sockets settles it as a failure now.
    a.close();
    expect(await first).toBe('failed');
    await second;
    const [, t1] = arrivals.map((x) => x.at - NOW);
    expect(answeredAt).toBeGreaterThan(5000);
    expect(t1).toBe((answeredAt as number) + 1000);
    b.close();
  });

  it('refuses a headroom, jitter or time scale that makes no sense, naming the field', () => {
    expect(() => new VenueLimiter(clock, sleep, { headroom: 1.5 })).toThrow(/headroom/);
    expect(() => new VenueLimiter(clock, sleep, { jitterMs: -1 })).toThrow(/jitterMs/);
    expect(() => new VenueLimiter(clock, sleep, { timeScale: 0 })).toThrow(/timeScale/);
  });
});

describe('spacing against a venue that counts arrivals in exact one-second windows', () => {
  // The simulator's own window (src/sim/rate-limit.ts) is the venue model; departures come from the
  // limiter, arrivals are departures plus any network delay up to the allowance.
  const arrivalsRefused = (
    limit: number,
    opts: { headroom?: number; jitterMs?: number },
    delays: number[],
  ) => {
    const clock = new VirtualClock(0);
    const limiter = new VenueLimiter(clock, async (ms) => clock.advance(ms), opts);
    const spacing = limiter.spacingMs(limit);
    const arrivals = delays.map((d, i) => i * spacing + d).sort((x, y) => x - y);
    const venue = new SlidingWindowLimiter();
    return arrivals.filter((t) => !venue.take('k', limit, t).ok).length;
  };

  it('never exceeds the limit for any delays up to the jitter allowance (1/s, 10/s, 20/s, 30/s)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 10, 20, 30),
        fc.integer({ min: 0, max: 250 }),
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 2, maxLength: 80 }),
        (limit, jitterMs, raw) => {
          const delays = raw.map((r) => Math.floor((r / 1000) * jitterMs));
          return arrivalsRefused(limit, { jitterMs }, delays) === 0;
        },
      ),
    );
  });

  it('a bucket at exactly the venue rate (the old client) is refused as soon as jitter reorders arrivals', () => {
    // Departures 1000 ms apart; the first delayed 30 ms, the second not: 970 ms apart on arrival.
    expect(arrivalsRefused(1, { headroom: 1, jitterMs: 0 }, [30, 0])).toBe(1);
    expect(arrivalsRefused(1, {}, [30, 0])).toBe(0);
  });

  it('widens the spacing by the time scale of an accelerated venue', () => {
    const clock = new VirtualClock(0);
    const fast = new VenueLimiter(clock, async () => undefined, { jitterMs: 50, timeScale: 60 });
    // 50 real ms are 3000 venue ms at speed 60: one reality request per 4 venue seconds.
    expect(fast.spacingMs(1)).toBe(4000);
    expect(new VenueLimiter(clock, async () => undefined).spacingMs(1)).toBe(1250);
  });
});
