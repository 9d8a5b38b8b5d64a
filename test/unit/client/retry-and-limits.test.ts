// Retry policy, token buckets, timeouts and keep-alive, on a real loopback server with an injected
// clock: the injected sleep moves the clock, so nothing here waits for real time.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DuplicateOrderError,
  ParameterError,
  RateLimitError,
  TimeoutError,
  VenueError,
} from '../../../src/api/index.js';
import { RETRY_WARN_EVERY_MS, RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { envelope, startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { wireTicker } from '../../helpers/wire.js';

const NOW = 1_767_225_600_000;
const creds = { apiKey: 'k', apiSecret: 's', passphrase: 'p' };
const ticker = wireTicker({ ts: String(NOW) });
const fail = (code: string, msg = 'x') => ({ code, msg, requestTime: NOW, data: null });

describe('retry policy', () => {
  let server: RecordingServer;
  let clock: VirtualClock;
  let sleeps: number[];
  let client: RestClient;
  beforeEach(async () => {
    server = await startRecordingServer();
    clock = new VirtualClock(NOW);
    sleeps = [];
    client = new RestClient({
      baseUrl: server.baseUrl,
      credentials: creds,
      clock,
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(ms);
      },
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
      // The limiter's spacing has tests of its own (venue-limiter.test.ts); here only backoff sleeps.
      rateLimit: false,
    });
  });
  afterEach(async () => {
    client.close();
    await server.close();
  });

  it('retries a GET after a 429 and honours Retry-After (up to maxDelayMs; longer ones: retry-after.test.ts)', async () => {
    server.script(
      { status: 429, headers: { 'retry-after': '1' }, body: fail('429', 'Too Many Requests') },
      { body: envelope([ticker], NOW) },
    );
    const out = await client.tickers({ category: 'SPOT' });
    expect(out).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toContain(1000);
  });

  it('retries 5xx and dropped connections with exponential backoff, then gives up with the typed error', async () => {
    server.script(
      { status: 503, body: fail('90016') },
      { drop: true },
      { status: 500, body: 'oops' },
      { status: 502, body: fail('90015') },
    );
    const e = await client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(VenueError);
    // The last refusal's sentence, then the whole budget in one sentence ("later.; gave up" before).
    expect((e as Error).message).toMatch(/ later; gave up after 4 attempts over \d+\.\d s$/);
    expect(server.requests).toHaveLength(4);
    // full jitter at random()=0.5: 50, 100, 200 (base 100 doubled)
    expect(sleeps.filter((s) => s > 0)).toEqual([50, 100, 200]);
  });

  it('warns of a retry at most once every 10 s; the retries between are at debug, counted into the next warning', async () => {
    const warns: Record<string, unknown>[] = [];
    const debugs: Record<string, unknown>[] = [];
    const logged = new RestClient({
      baseUrl: server.baseUrl,
      credentials: creds,
      clock,
      random: () => 0.5,
      sleep: async (ms) => clock.advance(ms),
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
      rateLimit: false,
      logger: {
        warn: (_m: string, f?: Record<string, unknown>) => warns.push(f ?? {}),
        debug: (_m: string, f?: Record<string, unknown>) => debugs.push(f ?? {}),
      },
    });
    try {
      server.script(
        { status: 503, body: fail('90016') },
        { status: 503, body: fail('90016') },
        { status: 502, body: fail('90015') },
        { body: envelope([ticker], NOW) },
      );
      await logged.tickers({ category: 'SPOT' });
      // The outage's first retry is said at once; the next two within 10 s are at debug.
      expect(warns.map((w) => [w.code, w.attempt])).toEqual([['90016', 1]]);
      expect(debugs.map((d) => d.code)).toEqual(['90016', '90015']);
      clock.advance(RETRY_WARN_EVERY_MS);
      server.script({ status: 503, body: fail('90016') }, { body: envelope([ticker], NOW) });
      await logged.tickers({ category: 'SPOT' });
      expect(warns).toHaveLength(2);
      expect(warns[1]).toMatchObject({
        code: '90016',
        retriedSinceLastWarning: 2,
        codes: '90016 x1, 90015 x1',
      });
      expect(warns[1]?.what).toBe(
        'tickers failed (90016); retry 1 in 50 ms; 2 more retries since the last warning (90016 x1, 90015 x1), logged at debug',
      );
    } finally {
      logged.close();
    }
  });

  it('does not retry a parameter error', async () => {
    server.script({ status: 400, body: fail('40034', 'symbol does not exist') });
    await expect(client.tickers({ category: 'SPOT', symbol: 'NOPE' })).rejects.toBeInstanceOf(ParameterError);
    expect(server.requests).toHaveLength(1);
  });

  it('maps an error code inside an HTTP 200 answer', async () => {
    server.script({ status: 200, body: fail('429') });
    server.fallback = () => ({ status: 200, body: fail('429') });
    await expect(client.tickers({ category: 'SPOT' })).rejects.toBeInstanceOf(RateLimitError);
  });

  it('retries an order under the same clientOid and takes a duplicate answer to the retry as success', async () => {
    server.script(
      { status: 504, body: fail('90010') },
      { status: 400, body: fail('95212', 'Duplicate clientOid') },
    );
    const ack = await client.placeRealityOrder({
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'market',
      qty: '10',
    });
    expect(ack.duplicate).toBe(true);
    const oids = server.requests.map((r) => (JSON.parse(r.body) as { clientOid: string }).clientOid);
    expect(oids).toHaveLength(2);
    expect(oids[0]).toBe(oids[1]);
    expect(ack.clientOid).toBe(oids[0]);
  });

  it('reports a duplicate clientOid on the first send as DuplicateOrderError', async () => {
    server.script({ status: 400, body: fail('95212', 'Duplicate clientOid') });
    await expect(
      client.placeRealityOrder({
        symbol: 'AAPLUSDT',
        side: 'buy',
        orderType: 'market',
        qty: '10',
        clientOid: 'same',
      }),
    ).rejects.toBeInstanceOf(DuplicateOrderError);
  });

  it('treats malformed JSON as a retryable venue fault', async () => {
    server.script({ body: '{"code":"00000",' }, { body: envelope([ticker], NOW) });
    await expect(client.tickers({ category: 'SPOT' })).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('learns the venue clock offset from requestTime and signs with it', async () => {
    const ahead = NOW + 45_000;
    server.script({ body: envelope([ticker], ahead) });
    await client.tickers({ category: 'SPOT' });
    expect(client.clockOffsetMs).toBe(45_000);
    server.script({ body: envelope('success', ahead) });
    await client.cancelWithdrawal({ orderId: 'w' });
    expect(Number(server.requests.at(-1)?.headers['access-timestamp'])).toBe(ahead);
  });

  it('re-signs once with the learned offset when the venue says the timestamp expired', async () => {
    const venueTime = NOW + 120_000;
    server.script(
      {
        status: 400,
        body: { code: '90008', msg: 'Request timestamp expired', requestTime: venueTime, data: null },
      },
      { body: envelope('success', venueTime) },
    );
    await expect(client.cancelWithdrawal({ orderId: 'w' })).resolves.toBe('success');
    const [a, b] = server.requests.map((r) => Number(r.headers['access-timestamp']));
    expect(a).toBe(NOW);
    // The resend is stamped with the venue's time, on the learned offset.
    expect(b).toBe(venueTime + (clock.now() - NOW));
  });

  it('refuses bad parameters before sending anything, naming field, value and rule', async () => {
    await expect(client.orderbook({ category: 'SPOT', symbol: 'X', limit: 1001 })).rejects.toThrow(
      /limit = "1001": limit must be from 1 to 1000/,
    );
    await expect(
      client.placeRealityOrder({ symbol: 'X', side: 'buy', orderType: 'limit', qty: '1' }),
    ).rejects.toThrow(/price is required when orderType is limit/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('timeouts and keep-alive', () => {
  it('times out a request that never answers and retries it', async () => {
    const server = await startRecordingServer();
    server.script({ hang: true }, { body: envelope([ticker], NOW) });
    const client = new RestClient({ baseUrl: server.baseUrl, timeoutMs: 100, sleep: async () => undefined });
    await expect(client.tickers({ category: 'SPOT' })).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    client.close();
    await server.close();
  });

  it('gives up with TimeoutError when every attempt times out', async () => {
    const server = await startRecordingServer();
    server.fallback = () => ({ hang: true });
    const client = new RestClient({
      baseUrl: server.baseUrl,
      timeoutMs: 50,
      retry: { maxAttempts: 2 },
      sleep: async () => undefined,
    });
    await expect(client.tickers({ category: 'SPOT' })).rejects.toBeInstanceOf(TimeoutError);
    client.close();
    await server.close();
  });

  it('reuses one socket across sequential calls', async () => {
    const server = await startRecordingServer();
    server.fallback = () => ({ body: envelope([ticker], NOW) });
    const client = new RestClient({ baseUrl: server.baseUrl });
    for (let i = 0; i < 5; i++) await client.tickers({ category: 'SPOT' });
    expect(new Set(server.requests.map((r) => r.socketPort)).size).toBe(1);
    client.close();
    await server.close();
  });
});
