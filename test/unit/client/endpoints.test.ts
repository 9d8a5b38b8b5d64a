// Every endpoint of the catalogue, driven through the real client against a real loopback server:
// the exact method, path, query, headers, body and signature sent, and the parsed result.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES, type EndpointName } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { Decimal } from '../../../src/market/decimal.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { envelope, startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';

const NOW = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const creds = { apiKey: 'key-1', apiSecret: 'secret-1', passphrase: 'pass-1' };

// Independent signing vector: written out here with node:crypto, not with src/api/signing.
const expectedSign = (ts: string, method: string, path: string, query: string, body: string) =>
  createHmac('sha256', creds.apiSecret)
    .update(ts + method + path + (query ? `?${query}` : '') + body)
    .digest('base64');

const instrument = {
  category: 'SPOT',
  symbol: 'AAPLUSDT',
  isReality: 'yes',
  baseCoin: 'AAPL',
  quoteCoin: 'USDT',
  pricePrecision: '2',
  quantityPrecision: '4',
  status: 'online',
};
const ticker = {
  symbol: 'AAPLUSDT',
  category: 'SPOT',
  lastPrice: '190.12',
  openPrice24h: '188',
  highPrice24h: '191',
  lowPrice24h: '187.5',
  ask1Price: '190.13',
  bid1Price: '190.11',
  ask1Size: '2',
  bid1Size: '3',
  price24hPcnt: '0.0113',
  volume24h: '1000',
  turnover24h: '190000',
  ts: String(NOW),
};
const candle = [String(NOW), '1', '2', '0.5', '1.5', '10', '15'];
const page = (item: unknown) => ({ list: [item], cursor: '' });
const insider = {
  reporterName: 'A',
  issueOrgName: 'Apple',
  endDate: '2025-01-01',
  announcementDate: '2025-01-02',
  innerType: 'Director',
  position: 'CEO',
  securityTitle: 'Common',
  tradeDate: '2025-01-01',
  designatedExerciseDate: '',
  innerTradeType: 'S',
  actionType: 'decrease',
  tradeVolume: '100',
  tradePrice: '190',
  holdingType: 'direct',
  indirectHoldingStatement: '',
  postTradeQuantity: '1000',
};
const dividend = {
  type: 'cash_dividend',
  announcementDate: '2025-01-01',
  recordDate: '2025-01-10',
  exrightDate: '2025-01-09',
  dividendDate: '2025-01-20',
  dividendPerShare: '0.25',
  stockDividendPerShare: '',
  splitValidDate: '',
  splitNumerator: '',
  splitDenominator: '',
};
const valuation = Object.fromEntries(
  [
    'date',
    'pb',
    'pbEd',
    'pbPd',
    'pbMrq',
    'pe',
    'peLyr',
    'peTtmEd',
    'peTtmPd',
    'ps',
    'psLyr',
    'psTtmEd',
    'psTtmPd',
    'pcf',
    'pcfNet',
    'pcfNetTtmEd',
    'pcfNetTtmPd',
    'pcfTtmEd',
    'pcfTtmPd',
    'evEbitda',
    'equityValue',
    'grossEv',
    'netEv',
    'tmvUsd',
    'cirTmvUsd',
    'dividendYieldTtm',
  ].map((k) => [k, '1.5']),
);
const forecast = {
  fiscalYear: '2026',
  publicationDeadline: '2026-10-30',
  isActual: false,
  revenue: '400000',
  ebit: '120000',
  netIncomeParent: '100000',
  eps: '6.5',
  bps: '4',
  cfps: '7',
  roe: '1.5',
  roa: '0.3',
  currency: 'USD',
};
const suspension = {
  code: 'AAPL',
  name: 'AAPL',
  suspensionDate: '',
  suspensionTime: '',
  suspensionReason: '',
  suspensionPrice: '',
  resumptionDate: '',
  resumptionQuoteTime: '',
  resumptionTradingTime: '',
};
const overview = {
  peRatio: '30',
  pbRatio: '45',
  totalShares: '15000000000',
  marketCap: '3000000000000',
  high52Week: '200',
  low52Week: '160',
  code: 'AAPL',
  name: 'Apple Inc.',
  ListingDate: '1980-12-12',
  employees: '160000',
  companyAddress: 'Cupertino',
};

interface Case {
  params: Record<string, unknown>;
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  body?: Record<string, string>;
  private: boolean;
  data: unknown;
  /** Raw answer text when the wire shape differs from the parsed one (order books carry numbers). */
  raw?: string;
  expected?: unknown;
}

const CASES: Record<EndpointName, Case> = {
  instruments: {
    params: { category: 'SPOT', symbol: 'AAPLUSDT' },
    method: 'GET',
    path: '/api/v3/market/instruments',
    query: 'category=SPOT&symbol=AAPLUSDT',
    private: false,
    data: [instrument],
  },
  rpiSymbols: {
    params: {},
    method: 'GET',
    path: '/api/v3/market/rpi-symbols',
    private: false,
    data: [{ category: 'spot', symbol: 'BTCUSDT' }],
  },
  tickers: {
    params: { symbol: 'AAPLUSDT', category: 'SPOT' },
    method: 'GET',
    path: '/api/v3/market/tickers',
    query: 'category=SPOT&symbol=AAPLUSDT',
    private: false,
    data: [ticker],
  },
  orderbook: {
    params: { category: 'SPOT', symbol: 'AAPLUSDT', limit: 2 },
    method: 'GET',
    path: '/api/v3/market/orderbook',
    query: 'category=SPOT&limit=2&symbol=AAPLUSDT',
    private: false,
    data: null,
    raw: `{"code":"00000","msg":"success","requestTime":${NOW},"data":{"a":[[190.13,2.10000000000000000001]],"b":[[190.11,3]],"ts":"${NOW}"}}`,
    expected: { a: [['190.13', '2.10000000000000000001']], b: [['190.11', '3']], ts: String(NOW) },
  },
  rpiOrderbook: {
    params: { category: 'USDT-FUTURES', symbol: 'BTCUSDT' },
    method: 'GET',
    path: '/api/v3/market/rpi-orderbook',
    query: 'category=USDT-FUTURES&symbol=BTCUSDT',
    private: false,
    data: null,
    raw: `{"code":"00000","msg":"success","requestTime":${NOW},"data":{"a":[[100.5,1,0.5]],"b":[[100.4,2,0]],"ts":"${NOW}"}}`,
    expected: { a: [['100.5', '1', '0.5']], b: [['100.4', '2', '0']], ts: String(NOW) },
  },
  fills: {
    params: { category: 'MARGIN', symbol: 'BTCUSDT', limit: '50' },
    method: 'GET',
    path: '/api/v3/market/fills',
    query: 'category=MARGIN&limit=50&symbol=BTCUSDT',
    private: false,
    data: [
      { execId: '1', execLinkId: '2', price: '100', size: '1', side: 'buy', ts: String(NOW), isRPI: 'no' },
    ],
  },
  candles: {
    params: {
      category: 'SPOT',
      symbol: 'BTCUSDT',
      interval: '1H',
      startTime: NOW - 3_600_000,
      endTime: NOW,
      type: 'market',
      limit: 10,
    },
    method: 'GET',
    path: '/api/v3/market/candles',
    query: `category=SPOT&endTime=${NOW}&interval=1H&limit=10&startTime=${NOW - 3_600_000}&symbol=BTCUSDT&type=market`,
    private: false,
    data: [candle],
  },
  historyCandles: {
    params: { category: 'COIN-FUTURES', symbol: 'BTCUSD', interval: '1D', type: 'mark' },
    method: 'GET',
    path: '/api/v3/market/history-candles',
    query: 'category=COIN-FUTURES&interval=1D&symbol=BTCUSD&type=mark',
    private: false,
    data: [candle],
  },
  innerTrades: {
    params: { code: 'AAPL', limit: 20, cursor: 'abc' },
    method: 'GET',
    path: '/api/v3/reality/market/inner-trades',
    query: 'code=AAPL&cursor=abc&limit=20',
    private: false,
    data: page(insider),
  },
  dividends: {
    params: { code: 'AAPL' },
    method: 'GET',
    path: '/api/v3/reality/market/dividends',
    query: 'code=AAPL',
    private: false,
    data: page(dividend),
  },
  shareholdDetail: {
    params: { code: 'AAPL', limit: 100 },
    method: 'GET',
    path: '/api/v3/reality/market/sharehold-detail',
    query: 'code=AAPL&limit=100',
    private: false,
    data: page({ name: 'Vanguard', holdingNum: '1000', holdingRatio: '0.08' }),
  },
  valuationIndicators: {
    params: { code: 'AAPL' },
    method: 'GET',
    path: '/api/v3/reality/market/valuation-indicators',
    query: 'code=AAPL',
    private: false,
    data: valuation,
  },
  earningsForecast: {
    params: { code: 'AAPL' },
    method: 'GET',
    path: '/api/v3/reality/market/earnings-forecast',
    query: 'code=AAPL',
    private: false,
    data: forecast,
  },
  suspensionResumptionInfo: {
    params: { code: 'AAPL' },
    method: 'GET',
    path: '/api/v3/reality/market/suspension-resumption-info',
    query: 'code=AAPL',
    private: false,
    data: suspension,
  },
  companyOverview: {
    params: { code: 'AAPL' },
    method: 'GET',
    path: '/api/v3/reality/market/company-overview',
    query: 'code=AAPL',
    private: false,
    data: overview,
  },
  marketStates: {
    params: {},
    method: 'GET',
    path: '/api/v3/reality/market/states',
    private: false,
    data: [
      {
        market: 'US',
        daylightType: 'standard',
        stateList: [{ state: 'regular', timeZone: 'ET', startTime: '09:30', endTime: '16:00' }],
      },
    ],
  },
  marketCalendar: {
    params: {},
    method: 'GET',
    path: '/api/v3/reality/market/calendar',
    private: false,
    data: {
      timeZone: 'EST',
      specificConfig: [
        { remark: 'Christmas Day', startTime: '2026-12-25 00:00', endTime: '2026-12-25 23:59' },
      ],
      regularConfig: ['SATURDAY', 'SUNDAY'],
    },
  },
  placeRealityOrder: {
    params: {
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'limit',
      qty: new Decimal('1.5'),
      price: new Decimal('190.10'),
      clientOid: 'my-1',
    },
    method: 'POST',
    path: '/api/v3/trade/place-reality-order',
    private: true,
    body: {
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'limit',
      qty: '1.5',
      price: '190.1',
      clientOid: 'my-1',
    },
    data: { orderId: '42', clientOid: 'my-1' },
  },
  realityFills: {
    params: { symbol: 'AAPLUSDT', limit: 10 },
    method: 'GET',
    path: '/api/v3/account/reality-fills',
    query: 'limit=10&symbol=AAPLUSDT',
    private: true,
    data: [{ execId: 'e1', price: '190.1', size: '1.5', side: 'buy', ts: String(NOW) }],
  },
  setLeverage: {
    params: {
      category: 'USDT-FUTURES',
      symbol: 'BTCUSDT',
      leverage: new Decimal(10),
      marginMode: 'isolated',
      longLeverage: '20',
      shortLeverage: '5',
    },
    method: 'POST',
    path: '/api/v3/account/set-leverage',
    private: true,
    body: {
      category: 'USDT-FUTURES',
      symbol: 'BTCUSDT',
      leverage: '10',
      marginMode: 'isolated',
      longLeverage: '20',
      shortLeverage: '5',
    },
    data: 'success',
  },
  cancelWithdrawal: {
    params: { orderId: 'w1', clientOid: 'c1' },
    method: 'POST',
    path: '/api/v3/account/cancel-withdrawal',
    private: true,
    body: { orderId: 'w1', clientOid: 'c1' },
    data: 'success',
  },
};

describe('RestClient sends every endpoint exactly as the venue expects', () => {
  let server: RecordingServer;
  let client: RestClient;
  const clock = new VirtualClock(NOW);

  beforeAll(async () => {
    server = await startRecordingServer();
    client = new RestClient({
      baseUrl: server.baseUrl,
      credentials: creds,
      clock,
      sleep: async (ms) => clock.advance(ms),
      locale: 'en-US',
      channelApiCode: 'chan-9',
    });
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('covers all 21 endpoints of the catalogue', () => {
    expect(Object.keys(CASES).sort()).toEqual([...ENDPOINT_NAMES].sort());
    expect(ENDPOINT_NAMES).toHaveLength(21);
  });

  for (const name of ENDPOINT_NAMES) {
    it(`${name}: method, path, query, headers, body, signature and parsed result`, async () => {
      const c = CASES[name];
      server.script({ body: c.raw ?? envelope(c.data, NOW) });
      const result = await client.request(name, c.params);
      const r = server.requests.at(-1);
      if (!r) throw new Error('no request recorded');
      expect(r.method).toBe(c.method);
      expect(r.path).toBe(c.path);
      expect(r.query).toBe(c.query ?? '');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers.locale).toBe('en-US');
      if (c.method === 'POST') expect(JSON.parse(r.body)).toEqual(c.body);
      else expect(r.body).toBe('');
      if (c.private) {
        const ts = r.headers['access-timestamp'] as string;
        expect(ts).toMatch(/^\d{13}$/);
        expect(Math.abs(Number(ts) - clock.now())).toBeLessThan(30_000);
        expect(r.headers['access-key']).toBe(creds.apiKey);
        expect(r.headers['access-passphrase']).toBe(creds.passphrase);
        expect(r.headers['access-sign']).toBe(expectedSign(ts, c.method, c.path, r.query, r.body));
      } else {
        for (const h of ['access-key', 'access-sign', 'access-passphrase', 'access-timestamp'])
          expect(r.headers[h]).toBeUndefined();
      }
      expect(r.headers['x-channel-api-code']).toBe(name === 'placeRealityOrder' ? 'chan-9' : undefined);
      expect(result).toEqual(c.expected ?? c.data);
    });
  }

  it('matches a fixed signature vector computed outside the project', async () => {
    // echo -n '1767225600000POST/api/v3/account/cancel-withdrawal{"orderId":"w1"}' | openssl dgst -sha256 -hmac secret-1 -binary | base64
    const vector = createHmac('sha256', 'secret-1')
      .update('1767225600000POST/api/v3/account/cancel-withdrawal{"orderId":"w1"}')
      .digest('base64');
    const fixed = new RestClient({
      baseUrl: server.baseUrl,
      credentials: creds,
      clock: new VirtualClock(NOW),
    });
    server.script({ body: envelope('success', NOW) });
    await fixed.cancelWithdrawal({ orderId: 'w1' });
    fixed.close();
    expect(server.requests.at(-1)?.headers['access-sign']).toBe(vector);
  });

  it('generates a clientOid for an order placed without one', async () => {
    server.script({ body: envelope({ orderId: '7', clientOid: 'x' }, NOW) });
    await client.placeRealityOrder({ symbol: 'AAPLUSDT', side: 'sell', orderType: 'market', qty: '2' });
    const body = JSON.parse(server.requests.at(-1)?.body ?? '{}') as { clientOid?: string };
    expect(body.clientOid).toMatch(/^tbc[0-9a-f]{32}$/);
  });
});
