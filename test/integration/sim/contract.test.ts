// The contract between the RestClient and the simulated exchange: every one of the 21 endpoints, in
// success and in failure, over a real loopback socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthError,
  DuplicateOrderError,
  ENDPOINT_NAMES,
  InsufficientFundsError,
  ParameterError,
  PermissionError,
  RateLimitError,
  VenueError,
  type EndpointName,
} from '../../../src/api/index.js';
import { RestClient, paginate } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';

// Monday 2026-11-23 10:00 ET: the regular session.
const START = Date.UTC(2026, 10, 23, 15, 0);
const FULL = { apiKey: 'full-key', apiSecret: 'full-secret', passphrase: 'full-pass' };
const LIMITED = { apiKey: 'ro-key', apiSecret: 'ro-secret', passphrase: 'ro-pass' };

describe('RestClient against the simulator', () => {
  let sim: Simulator;
  let clock: VirtualClock;
  let client: RestClient;
  let limited: RestClient;
  const covered = new Set<EndpointName>();
  const mk = (creds?: typeof FULL, extra: Partial<ConstructorParameters<typeof RestClient>[0]> = {}) =>
    new RestClient({
      baseUrl: sim.baseUrl,
      clock,
      sleep: async (ms) => clock.advance(ms),
      ...(creds ? { credentials: creds } : {}),
      ...extra,
    });

  beforeAll(async () => {
    clock = new VirtualClock(START);
    sim = await startSimulator({
      seed: 7,
      clock,
      withdrawalCoolingMs: 60_000,
      accounts: [
        { ...FULL, whitelisted: true, balances: { USDT: '100000' } },
        { ...LIMITED, permissions: ['trade-read'], balances: { USDT: '10' } },
      ],
    });
    client = mk(FULL);
    limited = mk(LIMITED);
  });
  afterAll(async () => {
    client.close();
    limited.close();
    await sim.stop();
    expect([...covered].sort()).toEqual([...ENDPOINT_NAMES].sort());
  });

  describe('market data', () => {
    it('instruments: every category, with Reality pairs and every non-online status', async () => {
      covered.add('instruments');
      const spot = await client.instruments({ category: 'SPOT' });
      expect(spot.some((i) => i.isReality === 'yes' && i.symbolType === 'stock')).toBe(true);
      const statuses = new Set<string>();
      for (const category of ['SPOT', 'MARGIN', 'USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'] as const) {
        const list = await client.instruments({ category });
        expect(list.length).toBeGreaterThan(0);
        for (const i of list) statuses.add(i.status);
      }
      for (const s of ['online', 'listed', 'limit_open', 'limit_close', 'offline', 'restrictedAPI'])
        expect(statuses).toContain(s);
      const delivery = await client.instruments({ category: 'USDT-FUTURES' });
      expect(delivery.some((i) => i.type === 'delivery' && i.deliveryPeriod === 'this_quarter')).toBe(true);
    });

    it('rpi-symbols lists lower-case categories', async () => {
      covered.add('rpiSymbols');
      const list = await client.rpiSymbols();
      expect(list.length).toBeGreaterThan(0);
      for (const s of list) expect(s.category).toBe(s.category.toLowerCase());
    });

    it('tickers have a bid below the ask and a last price inside the 24h range', async () => {
      covered.add('tickers');
      const [t] = await client.tickers({ category: 'SPOT', symbol: 'AAPLUSDT' });
      expect(t).toBeDefined();
      if (!t) return;
      expect(Number(t.bid1Price)).toBeLessThan(Number(t.ask1Price));
      expect(Number(t.lastPrice)).toBeGreaterThanOrEqual(Number(t.lowPrice24h));
      expect(Number(t.lastPrice)).toBeLessThanOrEqual(Number(t.highPrice24h));
    });

    it('order books are sorted as the spec says, to the requested depth', async () => {
      covered.add('orderbook');
      const b = await client.orderbook({ category: 'SPOT', symbol: 'BTCUSDT', limit: 1000 });
      expect(b.a).toHaveLength(1000);
      for (let i = 1; i < b.a.length; i++) expect(Number(b.a[i]![0])).toBeGreaterThan(Number(b.a[i - 1]![0]));
      for (let i = 1; i < b.b.length; i++) expect(Number(b.b[i]![0])).toBeLessThan(Number(b.b[i - 1]![0]));
      expect(Number(b.b[0]![0])).toBeLessThan(Number(b.a[0]![0]));
    });

    it('the RPI book carries RPI and non-RPI quantities per level', async () => {
      covered.add('rpiOrderbook');
      const b = await client.rpiOrderbook({ category: 'SPOT', symbol: 'BTCUSDT', limit: 20 });
      expect(b.a).toHaveLength(20);
      for (const l of [...b.a, ...b.b]) expect(l).toHaveLength(3);
    });

    it('public fills, newest first, limited', async () => {
      covered.add('fills');
      const f = await client.fills({ category: 'SPOT', symbol: 'BTCUSDT', limit: 10 });
      expect(f.length).toBeLessThanOrEqual(10);
      expect(f.length).toBeGreaterThan(0);
    });

    it('candles aggregate consistently: a 1H candle is its sixty 1m candles', async () => {
      covered.add('candles');
      const end = START - 3_600_000;
      const [h] = await client.candles({
        category: 'SPOT',
        symbol: 'BTCUSDT',
        interval: '1H',
        startTime: end - 3_600_000,
        endTime: end - 3_600_000,
      });
      const minutes = await client.candles({
        category: 'SPOT',
        symbol: 'BTCUSDT',
        interval: '1m',
        startTime: end - 3_600_000,
        endTime: end - 60_000,
      });
      expect(h).toBeDefined();
      expect(minutes).toHaveLength(60);
      if (!h) return;
      expect(h[1]).toBe(minutes[0]![1]);
      expect(h[4]).toBe(minutes[59]![4]);
      expect(Number(h[2])).toBe(Math.max(...minutes.map((m) => Number(m[2]))));
      expect(Number(h[3])).toBe(Math.min(...minutes.map((m) => Number(m[3]))));
    });

    it('history-candles answers old ranges; a Reality symbol refuses an unsupported interval', async () => {
      covered.add('historyCandles');
      const old = START - 200 * 86_400_000;
      const rows = await client.historyCandles({
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        interval: '1D',
        startTime: old,
        endTime: old + 30 * 86_400_000,
      });
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.length).toBeLessThanOrEqual(100);
      // The client refuses before sending; the simulator refuses too when asked directly.
      await expect(
        client.historyCandles({ category: 'SPOT', symbol: 'AAPLUSDT', interval: '3m' }),
      ).rejects.toBeInstanceOf(ParameterError);
      const res = await fetch(
        `${sim.baseUrl}/api/v3/market/history-candles?category=SPOT&interval=3m&symbol=AAPLUSDT`,
      );
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('90017');
    });
  });

  describe('Reality data', () => {
    it('cursor pages of inner trades, dividends and shareholders', async () => {
      for (const name of ['innerTrades', 'dividends', 'shareholdDetail'] as const) {
        covered.add(name);
        let n = 0;
        for await (const _ of paginate(client, name, { code: 'AAPL', limit: 3 })) n++;
        expect(n, name).toBeGreaterThan(3);
      }
    });

    it('valuation, forecast, overview and suspension of a code', async () => {
      covered
        .add('valuationIndicators')
        .add('earningsForecast')
        .add('companyOverview')
        .add('suspensionResumptionInfo');
      expect(Number((await client.valuationIndicators({ code: 'AAPL' })).pe)).toBeGreaterThan(0);
      expect(typeof (await client.earningsForecast({ code: 'AAPL' })).isActual).toBe('boolean');
      expect((await client.companyOverview({ code: 'AAPL' })).code).toBe('AAPL');
      const susp = await client.suspensionResumptionInfo({ code: 'GOOGL' });
      expect(susp.suspensionDate).not.toBe('');
      await expect(client.companyOverview({ code: 'NOPE' })).rejects.toBeInstanceOf(ParameterError);
    });

    it('market states with the right daylightType, and the holiday calendar', async () => {
      covered.add('marketStates').add('marketCalendar');
      const [state] = await client.marketStates();
      expect(state?.daylightType).toBe('standard');
      expect(state?.stateList.map((s) => s.state)).toEqual([
        'pre_market',
        'regular',
        'after_hours',
        'overnight',
      ]);
      const cal = await client.marketCalendar();
      expect(cal.regularConfig).toEqual(['SATURDAY', 'SUNDAY']);
      expect(cal.specificConfig.map((c) => c.startTime.slice(0, 10))).toContain('2026-11-26');
    });
  });

  describe('trading and account', () => {
    it('a market buy fills at once; a limit sell rests; both show in reality-fills', async () => {
      covered.add('placeRealityOrder').add('realityFills');
      const ack = await client.placeRealityOrder({
        symbol: 'AAPLUSDT',
        side: 'buy',
        orderType: 'market',
        qty: '1000',
      });
      expect(ack.orderId).not.toBe('');
      const fills = await client.realityFills({ symbol: 'AAPLUSDT' });
      expect(fills.length).toBeGreaterThan(0);
      const bought = fills.reduce((s, f) => s + Number(f.size), 0);
      const bal = sim.engine.balances(FULL.apiKey);
      expect(Number(bal.AAPL?.available ?? 0)).toBeCloseTo(bought, 8);
    });

    it('refuses a duplicate clientOid', async () => {
      await client.placeRealityOrder({
        symbol: 'AAPLUSDT',
        side: 'buy',
        orderType: 'market',
        qty: '10',
        clientOid: 'dup-1',
      });
      await expect(
        client.placeRealityOrder({
          symbol: 'AAPLUSDT',
          side: 'buy',
          orderType: 'market',
          qty: '10',
          clientOid: 'dup-1',
        }),
      ).rejects.toBeInstanceOf(DuplicateOrderError);
      expect(sim.engine.orders(FULL.apiKey).filter((o) => o.clientOid === 'dup-1')).toHaveLength(1);
    });

    it('refuses orders on non-Reality pairs, bad precision, too small and too expensive orders', async () => {
      await expect(
        client.placeRealityOrder({ symbol: 'BTCUSDT', side: 'buy', orderType: 'market', qty: '10' }),
      ).rejects.toBeInstanceOf(ParameterError);
      await expect(
        client.placeRealityOrder({
          symbol: 'AAPLUSDT',
          side: 'buy',
          orderType: 'limit',
          qty: '1',
          price: '100.123',
        }),
      ).rejects.toMatchObject({ code: '95244' });
      await expect(
        client.placeRealityOrder({
          symbol: 'AAPLUSDT',
          side: 'sell',
          orderType: 'limit',
          qty: '0.00001',
          price: '500',
        }),
      ).rejects.toBeInstanceOf(ParameterError);
      await expect(
        client.placeRealityOrder({ symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: '99999999' }),
      ).rejects.toBeInstanceOf(InsufficientFundsError);
    });

    it('refuses a limit price outside the ratio of the market price', async () => {
      const [t] = await client.tickers({ category: 'SPOT', symbol: 'AAPLUSDT' });
      const far = (Number(t?.lastPrice) * 1.5).toFixed(2);
      await expect(
        client.placeRealityOrder({
          symbol: 'AAPLUSDT',
          side: 'buy',
          orderType: 'limit',
          qty: '1',
          price: far,
        }),
      ).rejects.toMatchObject({ code: '95245' });
    });

    it('set-leverage keeps the leverage per account and checks the symbol', async () => {
      covered.add('setLeverage');
      await expect(
        client.setLeverage({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '7' }),
      ).resolves.toBe('success');
      expect(Object.values(sim.engine.leverageOf(FULL.apiKey))).toContain('7');
      await expect(
        client.setLeverage({ category: 'USDT-FUTURES', symbol: 'NOPEUSDT', leverage: '7' }),
      ).rejects.toBeInstanceOf(ParameterError);
    });

    it('cancel-withdrawal succeeds inside the cooling period and fails after it', async () => {
      covered.add('cancelWithdrawal');
      const w1 = sim.engine.createWithdrawal({
        apiKey: FULL.apiKey,
        coin: 'USDT',
        amount: '5',
        clientOid: 'w-1',
      });
      // orderId wins over a clientOid that names nothing
      await expect(client.cancelWithdrawal({ orderId: w1.orderId, clientOid: 'unknown' })).resolves.toBe(
        'success',
      );
      const w2 = sim.engine.createWithdrawal({
        apiKey: FULL.apiKey,
        coin: 'USDT',
        amount: '5',
        clientOid: 'w-2',
      });
      clock.advance(61_000);
      await expect(client.cancelWithdrawal({ clientOid: w2.clientOid })).rejects.toMatchObject({
        code: '95302',
      });
      await expect(client.cancelWithdrawal({ clientOid: w2.clientOid })).rejects.toBeInstanceOf(VenueError);
    });
  });

  describe('authentication and limits', () => {
    it('refuses a bad signature', async () => {
      const bad = mk({ ...FULL, apiSecret: 'wrong' });
      await expect(
        bad.setLeverage({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '2' }),
      ).rejects.toMatchObject({ code: '90009' });
      bad.close();
    });

    it('refuses a stale timestamp; the client recovers by re-signing on the venue clock', async () => {
      const ts = String(clock.now() - 60_000);
      const body = JSON.stringify({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '2' });
      const { createHmac } = await import('node:crypto');
      const sign = createHmac('sha256', FULL.apiSecret)
        .update(`${ts}POST/api/v3/account/set-leverage${body}`)
        .digest('base64');
      const res = await fetch(`${sim.baseUrl}/api/v3/account/set-leverage`, {
        method: 'POST',
        body,
        headers: {
          'ACCESS-KEY': FULL.apiKey,
          'ACCESS-SIGN': sign,
          'ACCESS-PASSPHRASE': FULL.passphrase,
          'ACCESS-TIMESTAMP': ts,
          'Content-Type': 'application/json',
        },
      });
      expect(((await res.json()) as { code: string }).code).toBe('90008');
      const stale = new RestClient({
        baseUrl: sim.baseUrl,
        credentials: FULL,
        clock: { now: () => clock.now() - 60_000 },
        // The rate limiter waits on this clock: it must move when the client sleeps.
        sleep: async (ms) => clock.advance(ms),
      });
      await expect(
        stale.setLeverage({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '2' }),
      ).resolves.toBe('success');
      expect(Math.round(stale.clockOffsetMs / 1000)).toBe(60);
      stale.close();
    });

    it('refuses a wrong passphrase and an unknown key', async () => {
      const pass = mk({ ...FULL, passphrase: 'nope' });
      await expect(
        pass.setLeverage({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '2' }),
      ).rejects.toMatchObject({ code: '90012' });
      const key = mk({ ...FULL, apiKey: 'nobody' });
      await expect(
        key.setLeverage({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '2' }),
      ).rejects.toBeInstanceOf(AuthError);
      pass.close();
      key.close();
    });

    it('refuses a missing permission and a missing whitelist', async () => {
      await expect(
        limited.setLeverage({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '2' }),
      ).rejects.toMatchObject({ code: '40014' });
      await expect(
        limited.placeRealityOrder({ symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: '5' }),
      ).rejects.toBeInstanceOf(PermissionError);
      await expect(limited.realityFills({ symbol: 'AAPLUSDT' })).rejects.toMatchObject({ code: '90068' });
    });

    it('answers 429 with the envelope over the rate limit', async () => {
      const fast = mk(undefined, { rateLimit: false, retry: { maxAttempts: 1 } });
      const results = await Promise.allSettled(
        [1, 2, 3, 4].map(() => fast.companyOverview({ code: 'MSFT' })),
      );
      const limitedOnes = results.filter(
        (r) => r.status === 'rejected' && r.reason instanceof RateLimitError,
      );
      expect(limitedOnes.length).toBeGreaterThanOrEqual(3);
      fast.close();
    });
  });
});
