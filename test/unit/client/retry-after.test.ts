// A venue's Retry-After never holds a call, the rate limiter or the process: a wait beyond the client's
// retry.maxDelayMs fails the call at once with the wait the venue asked for, the limiter blocks the group no
// longer than the cap, close() ends every wait, and no timer is ever armed beyond what setTimeout takes.
// Against a real loopback server answering 429.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitError } from '../../../src/api/index.js';
import {
  ClientClosedError,
  MAX_WAIT_MS,
  RestClient,
  RetryAfterTooLongError,
  realSleep,
} from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { MAX_TIMER_MS } from '../../../src/feeds/time-scale.js';
import { envelope, startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { wireTicker } from '../../helpers/wire.js';

const NOW = 1_767_225_600_000;
const ticker = wireTicker({ ts: String(NOW) });
const tooMany = (retryAfter: string) => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: { code: '429', msg: 'Too Many Requests', requestTime: NOW, data: null },
});
const YEAR_MS = 365 * 86_400_000;

describe('Retry-After against the client cap', () => {
  let server: RecordingServer;
  let warnings: Error[];
  const onWarning = (w: Error) => warnings.push(w);
  beforeEach(async () => {
    server = await startRecordingServer();
    server.fallback = () => ({ body: envelope([ticker], NOW) });
    warnings = [];
    process.on('warning', onWarning);
  });
  afterEach(async () => {
    process.off('warning', onWarning);
    await server.close();
  });

  it('fails at once with RetryAfterTooLongError saying how long the venue asked to wait (delta-seconds)', async () => {
    const client = new RestClient({ baseUrl: server.baseUrl });
    try {
      server.script(tooMany('100000'));
      const t0 = Date.now();
      const e = await client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RetryAfterTooLongError);
      const err = e as RetryAfterTooLongError;
      expect(err.retryAfterMs).toBe(100_000_000);
      expect(err.cause).toBeInstanceOf(RateLimitError);
      expect(err.message).toMatch(
        /^tickers: the venue answered 429 and asked to wait 1 d 3 h \(until \d{4}-.*Z\) before the next request \(Retry-After\), longer than this client waits \(retry.maxDelayMs 5 s\); nothing was resent/,
      );
      expect(server.requests).toHaveLength(1);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      client.close();
    }
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
  });

  it('fails at once on an HTTP-date a year ahead, and the next call of the group is served without a timer overflow', async () => {
    const client = new RestClient({ baseUrl: server.baseUrl, retry: { maxDelayMs: 300 } });
    try {
      server.script(tooMany(new Date(Date.now() + YEAR_MS).toUTCString()));
      const e = await client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RetryAfterTooLongError);
      expect((e as Error).message).toMatch(/asked to wait 36\d d/);
      // The limiter waited out the cap for the group, not the year.
      await expect(client.tickers({ category: 'SPOT' })).resolves.toHaveLength(1);
      expect(server.requests).toHaveLength(2);
    } finally {
      client.close();
    }
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
  });

  it('the rate limiter holds the group no longer than retry.maxDelayMs, whatever the venue asked', async () => {
    const clock = new VirtualClock(NOW);
    const sleeps: number[] = [];
    const client = new RestClient({
      baseUrl: server.baseUrl,
      clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(ms);
      },
      retry: { maxDelayMs: 1000 },
    });
    try {
      server.script(tooMany('100000'));
      await expect(client.tickers({ category: 'SPOT' })).rejects.toBeInstanceOf(RetryAfterTooLongError);
      await expect(client.tickers({ category: 'SPOT' })).resolves.toHaveLength(1);
      expect(Math.max(...sleeps)).toBeLessThanOrEqual(1000);
      expect(clock.now() - NOW).toBeLessThanOrEqual(1000);
    } finally {
      client.close();
    }
  });

  it('honours a Retry-After within the cap and retries', async () => {
    const clock = new VirtualClock(NOW);
    const sleeps: number[] = [];
    const client = new RestClient({
      baseUrl: server.baseUrl,
      clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(ms);
      },
      random: () => 0,
      rateLimit: false,
      retry: { maxDelayMs: 3000 },
    });
    try {
      server.script(tooMany('3'));
      await expect(client.tickers({ category: 'SPOT' })).resolves.toHaveLength(1);
      expect(sleeps).toEqual([3000]);
    } finally {
      client.close();
    }
  });

  it('refuses a retry.maxDelayMs above the stated cap', () => {
    expect(() => new RestClient({ baseUrl: server.baseUrl, retry: { maxDelayMs: MAX_WAIT_MS + 1 } })).toThrow(
      /retry.maxDelayMs/,
    );
  });
});

describe('close() ends every wait', () => {
  let server: RecordingServer;
  beforeEach(async () => {
    server = await startRecordingServer();
    server.fallback = () => ({ body: envelope([ticker], NOW) });
  });
  afterEach(async () => {
    await server.close();
  });

  it('a call sleeping out a Retry-After rejects with ClientClosedError', { timeout: 10_000 }, async () => {
    const retrying: string[] = [];
    const client = new RestClient({
      baseUrl: server.baseUrl,
      retry: { maxDelayMs: 60_000 },
      logger: { debug: () => undefined, warn: (m) => retrying.push(m) },
    });
    server.script(tooMany('30'));
    const call = client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
    await waitFor(() => retrying.includes('request failed, retrying'), {
      timeoutMs: 5_000,
      what: 'the client to start waiting out the Retry-After',
    });
    client.close();
    const e = await call;
    expect(e).toBeInstanceOf(ClientClosedError);
    expect((e as Error).message).toMatch(/^tickers: client closed/);
    expect(server.requests).toHaveLength(1);
  });

  it(
    'a call waiting in the rate limiter behind a Retry-After rejects with ClientClosedError',
    { timeout: 10_000 },
    async () => {
      const client = new RestClient({
        baseUrl: server.baseUrl,
        retry: { maxAttempts: 1, maxDelayMs: 60_000 },
      });
      server.script(tooMany('30'));
      // One attempt only: the 429 fails the call, and the limiter holds the group for 30 s.
      await expect(client.tickers({ category: 'SPOT' })).rejects.toBeInstanceOf(RateLimitError);
      const waiting = client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
      client.close();
      expect(await waiting).toBeInstanceOf(ClientClosedError);
      expect(server.requests).toHaveLength(1);
      // A call after close() is refused the same way.
      await expect(client.tickers({ category: 'SPOT' })).rejects.toBeInstanceOf(ClientClosedError);
    },
  );
});

describe('realSleep', () => {
  it('sleeps a delay beyond one timer in parts (no TimeoutOverflowWarning) and ends at once on its signal', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const stop = new AbortController();
      const slept = realSleep(MAX_TIMER_MS * 3, stop.signal);
      // Node warns on the tick after arming a timer of 2^31 ms or more (and fires it after 1 ms).
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
      stop.abort();
      await slept;
    } finally {
      process.off('warning', onWarning);
    }
  });
});
