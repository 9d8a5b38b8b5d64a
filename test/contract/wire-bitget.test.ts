// Wire proof against a third-party client: bitget-api's RestClientV3 and our RestClient make the same
// calls against a recording loopback server, and send the same method, path, query, body bytes and
// signature for every endpoint both cover; then bitget-api is driven against the simulator (the
// server of `tradebot sim`), which must accept every one of those calls.
import { RestClientV3 } from 'bitget-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, isPrivate, type EndpointName } from '../../src/api/index.js';
import { RestClient } from '../../src/client/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import {
  envelope,
  startRecordingServer,
  type Recorded,
  type RecordingServer,
} from '../helpers/recording-server.js';

const CREDS = { apiKey: 'wire-key', apiSecret: 'wire-secret', passphrase: 'wire-pass' };
const NOW = Date.now();
const H = 3_600_000;

/** Every endpoint both clients cover, with the parameters (keys in alphabetical order, see below). */
const CASES: {
  name: EndpointName;
  bitget: (c: RestClientV3, p: Record<string, string>) => Promise<unknown>;
  params: Record<string, string>;
}[] = [
  {
    name: 'instruments',
    bitget: (c, p) => c.getInstruments(p as never),
    params: { category: 'SPOT', symbol: 'AAPLUSDT' },
  },
  { name: 'rpiSymbols', bitget: (c) => c.getRpiSymbols(), params: {} },
  {
    name: 'tickers',
    bitget: (c, p) => c.getTickers(p as never),
    params: { category: 'SPOT', symbol: 'AAPLUSDT' },
  },
  {
    name: 'orderbook',
    bitget: (c, p) => c.getOrderBook(p as never),
    params: { category: 'SPOT', limit: '50', symbol: 'BTCUSDT' },
  },
  {
    name: 'rpiOrderbook',
    bitget: (c, p) => c.getRpiOrderBook(p as never),
    params: { category: 'SPOT', limit: '5', symbol: 'BTCUSDT' },
  },
  {
    name: 'fills',
    bitget: (c, p) => c.getFills(p as never),
    params: { category: 'SPOT', limit: '10', symbol: 'BTCUSDT' },
  },
  {
    name: 'candles',
    bitget: (c, p) => c.getCandles(p as never),
    params: { category: 'SPOT', interval: '1m', limit: '10', symbol: 'BTCUSDT' },
  },
  {
    name: 'historyCandles',
    bitget: (c, p) => c.getHistoryCandles(p as never),
    params: {
      category: 'SPOT',
      endTime: String(NOW - 2 * H),
      interval: '1m',
      limit: '10',
      startTime: String(NOW - 3 * H),
      symbol: 'BTCUSDT',
    },
  },
  {
    name: 'realityFills',
    bitget: (c, p) => c.getRealityFills(p as never),
    params: { limit: '5', symbol: 'AAPLUSDT' },
  },
  // Bodies: JSON in the key order given, which both clients keep.
  {
    name: 'placeRealityOrder',
    bitget: (c, p) => c.placeRealityOrder(p as never),
    params: {
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'limit',
      qty: '1',
      price: '150.5',
      clientOid: 'wire-1',
    },
  },
  {
    name: 'setLeverage',
    bitget: (c, p) => c.setLeverage(p as never),
    params: { category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '2' },
  },
  { name: 'cancelWithdrawal', bitget: (c, p) => c.cancelWithdrawal(p as never), params: { orderId: 'W1' } },
];

const bitgetAt = (baseUrl: string) =>
  new RestClientV3({ apiKey: CREDS.apiKey, apiSecret: CREDS.apiSecret, apiPass: CREDS.passphrase, baseUrl });

const wireOf = (r: Recorded) => ({
  method: r.method,
  path: r.path,
  query: r.query,
  body: r.body,
  key: r.headers['access-key'],
  passphrase: r.headers['access-passphrase'],
  timestamp: r.headers['access-timestamp'],
  sign: r.headers['access-sign'],
});

describe('the same wire as bitget-api RestClientV3', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer();
  });
  afterAll(() => server.close());

  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: same method, path, query, body and signature',
    async (_n, c) => {
      server.requests.length = 0;
      await c.bitget(bitgetAt(server.baseUrl), c.params).catch(() => undefined);
      const theirs = server.requests[0];
      expect(theirs).toBeDefined();
      // Private endpoints are signed by both, so the comparison below covers the signature.
      expect(theirs?.headers['access-sign'] !== undefined).toBe(isPrivate(ENDPOINTS[c.name]));
      // Sign with bitget-api's timestamp so the signatures are comparable byte for byte.
      const ts = Number(theirs?.headers['access-timestamp'] ?? NOW);
      server.fallback = () => ({ body: envelope(null, ts) });
      const ours = new RestClient({
        baseUrl: server.baseUrl,
        credentials: CREDS,
        clock: { now: () => ts },
        rateLimit: false,
        retry: { maxAttempts: 1 },
      });
      await ours.request(c.name, c.params).catch(() => undefined);
      ours.close();
      expect(server.requests).toHaveLength(2);
      expect(wireOf(server.requests[1] as Recorded)).toEqual(wireOf(theirs as Recorded));
    },
  );
});

describe('bitget-api against the simulator', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 9,
      // Monday 10:00 ET: the Reality order is placed in the regular session whatever day the suite runs on.
      startTime: Date.UTC(2026, 10, 23, 15),
      withdrawalCoolingMs: 3_600_000,
      accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '100000' } }],
    });
  });
  afterAll(() => sim.stop());

  it.each(CASES.map((c) => [c.name, c] as const))('%s is accepted', async (_n, c) => {
    let params = c.params;
    if (c.name === 'cancelWithdrawal') {
      const w = sim.engine.createWithdrawal({ apiKey: CREDS.apiKey, coin: 'USDT', amount: '10' }) as {
        orderId: string;
      };
      params = { orderId: w.orderId };
    }
    if (c.name === 'historyCandles') {
      const now = sim.engine.now();
      params = { ...params, startTime: String(now - 3 * H), endTime: String(now - 2 * H) };
    }
    const r = (await c.bitget(bitgetAt(sim.baseUrl), params)) as { code: string };
    expect(r.code).toBe('00000');
  });
});
