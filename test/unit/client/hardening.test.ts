// A library that cannot crash its host, and answers with bounds: every bad option and parameter is a
// ValidationError before anything is sent; venues that never finish a body, send 50 MB or drip one byte
// at a time end in a typed error within the deadline; and nothing in this file may leave an unhandled
// rejection or 'error' event behind (listeners below record them and the last test asserts none).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { TimeoutError, ValidationError } from '../../../src/api/index.js';
import { ResponseTooLargeError, RestClient } from '../../../src/client/index.js';
import { envelope, startRecordingServer } from '../../helpers/recording-server.js';

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);
process.on('unhandledRejection', onUnhandled);
process.on('uncaughtException', onUnhandled);
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
});

const creds = { apiKey: 'k', apiSecret: 's', passphrase: 'p' };
const order = { symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: '10' } as const;

/** A loopback server whose handler misbehaves on purpose. */
async function badServer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const fields = (e: unknown) => (e as ValidationError).issues.map((i) => i.field);
const catchIt = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
};

describe('every option and parameter checked at the boundary', () => {
  it.each([
    ['a negative timeout', { timeoutMs: -1 }, 'timeoutMs'],
    ['a fractional timeout', { timeoutMs: 1.5 }, 'timeoutMs'],
    ['a malformed base URL', { baseUrl: 'not a url' }, 'baseUrl'],
    ['a base URL of another scheme', { baseUrl: 'ftp://example.com' }, 'baseUrl'],
    ['a base URL with a query', { baseUrl: 'http://127.0.0.1:1/?x=1' }, 'baseUrl'],
    ['a zero maxBodyBytes', { maxBodyBytes: 0 }, 'maxBodyBytes'],
    [
      'an API key that cannot be a header',
      { credentials: { ...creds, apiKey: 'a\nb' } },
      'credentials.apiKey',
    ],
    ['an empty secret', { credentials: { ...creds, apiSecret: '' } }, 'credentials.apiSecret'],
    ['a retry policy out of range', { retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    ['a clock without now()', { clock: {} }, 'clock'],
    ['a headroom above 1', { rateLimit: { headroom: 2 } }, 'headroom'],
  ])('refuses %s with a ValidationError naming the option', (_what, bad, field) => {
    const e = catchIt(() => new RestClient({ baseUrl: 'http://127.0.0.1:1', ...bad } as never));
    expect(e).toBeInstanceOf(ValidationError);
    expect(fields(e)).toContain(field);
    // Secrets are never echoed in the message.
    expect((e as Error).message).not.toMatch(/a\nb/);
  });

  it.each([
    ['qty as a JS number', { ...order, qty: 1 }, 'qty'],
    ['qty as a bigint', { ...order, qty: 1n }, 'qty'],
    ['clientOid as a number', { ...order, clientOid: 12345 }, 'clientOid'],
    ['price as a float', { ...order, orderType: 'limit', price: 0.1 }, 'price'],
    ['an unknown parameter (a typo)', { ...order, quantity: '10' }, 'quantity'],
  ])('refuses %s before sending, naming the field', async (_what, params, field) => {
    const server = await startRecordingServer();
    const client = new RestClient({ baseUrl: server.baseUrl, credentials: creds });
    const e = await client.placeRealityOrder(params as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ValidationError);
    expect(fields(e).join(',')).toContain(field);
    expect(server.requests).toHaveLength(0);
    client.close();
    await server.close();
  });

  it('refuses an unknown endpoint name and parameters that are not an object', async () => {
    const client = new RestClient({ baseUrl: 'http://127.0.0.1:1' });
    await expect(client.request('nosuch' as never, {})).rejects.toBeInstanceOf(ValidationError);
    await expect(client.request('tickers', 'SPOT' as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(client.request('tickers', { category: 'SPOT' }, { priority: 9 as never })).rejects.toThrow(
      /priority/,
    );
    client.close();
  });

  it('sends a parameter the catalogue does not know only through `extra`, as given', async () => {
    const server = await startRecordingServer();
    server.fallback = () => ({ body: envelope([]) });
    const client = new RestClient({ baseUrl: server.baseUrl });
    await client.request('tickers', { category: 'SPOT' }, { extra: { newFlag: 'yes' } });
    expect(server.requests[0]?.query).toBe('category=SPOT&newFlag=yes');
    await expect(
      client.request('tickers', { category: 'SPOT' }, { extra: { category: 'SPOT' } }),
    ).rejects.toThrow(/known parameter/);
    await expect(
      client.request('tickers', { category: 'SPOT' }, { extra: { n: 1 as never } }),
    ).rejects.toBeInstanceOf(ValidationError);
    client.close();
    await server.close();
  });
});

describe('bounded answers', () => {
  const once = { maxAttempts: 1 };

  it('ends a body that never ends at the whole-response deadline, saying the body was late', async () => {
    const s = await badServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"code":"00000","msg":"success","requestTime":1,"data":[');
      const t = setInterval(() => res.write('{"symbol":"X"},'), 20);
      res.on('close', () => clearInterval(t));
    });
    const client = new RestClient({ baseUrl: s.baseUrl, timeoutMs: 400, retry: once });
    const started = performance.now();
    const e = await client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).message).toMatch(/body was not complete within the 400 ms deadline/);
    expect(performance.now() - started).toBeLessThan(3000);
    client.close();
    await s.close();
  });

  it('refuses a 50 MB body with ResponseTooLargeError, declared or streamed', async () => {
    const chunk = Buffer.alloc(1 << 20, 0x20);
    for (const declared of [true, false]) {
      const s = await badServer((_req, res) => {
        res.writeHead(200, declared ? { 'content-length': String(50 * chunk.length) } : {});
        let sent = 0;
        const more = (): void => {
          while (sent < 50 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => undefined);
        more();
      });
      const client = new RestClient({ baseUrl: s.baseUrl, maxBodyBytes: 4 << 20, retry: once });
      const e = await client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ResponseTooLargeError);
      expect((e as Error).message).toMatch(/exceeds maxBodyBytes 4194304/);
      client.close();
      await s.close();
    }
  });

  it('ends a slow drip of one byte a second at the deadline, and reports the whole retry budget', async () => {
    const s = await badServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify(envelope([]));
      let i = 0;
      const t = setInterval(() => (i < body.length ? res.write(body[i++]) : res.end()), 1000);
      res.on('close', () => clearInterval(t));
    });
    const client = new RestClient({
      baseUrl: s.baseUrl,
      timeoutMs: 300,
      retry: { maxAttempts: 2, baseDelayMs: 0 },
    });
    const e = await client.tickers({ category: 'SPOT' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).message).toMatch(/gave up after 2 attempts over \d+\.\d s/);
    client.close();
    await s.close();
  });

  it('survives a venue that closes the socket midway without an unhandled error', async () => {
    const s = await badServer((req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"code":');
      setImmediate(() => req.socket.destroy());
    });
    const client = new RestClient({ baseUrl: s.baseUrl, retry: once });
    await expect(client.tickers({ category: 'SPOT' })).rejects.toThrow();
    client.close();
    await s.close();
  });

  it('left no unhandled rejection and no unhandled error event in this file', async () => {
    // Give late socket events a turn of the event loop to surface.
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  });
});
