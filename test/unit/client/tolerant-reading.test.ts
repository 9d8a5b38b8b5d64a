// Tolerant reading, strict writing: an answer with enum values or fields this version does not know
// parses (values kept as strings, warned once per value); a request is still refused before it is sent.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { parseInstrument } from '../../../src/market/instrument-rules.js';
import { envelope, startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';

const NOW = 1_767_225_600_000;
const instrument = (status: string) => ({
  category: 'SPOT',
  symbol: 'AAPLUSDT',
  isReality: 'yes',
  baseCoin: 'AAPL',
  quoteCoin: 'USDT',
  pricePrecision: '2',
  quantityPrecision: '4',
  status,
  brandNewField: 'from a later venue version',
});

describe('tolerant reading of answers', () => {
  let server: RecordingServer;
  let client: RestClient;
  let warnings: { msg: string; meta: Record<string, unknown> | undefined }[];
  beforeEach(async () => {
    server = await startRecordingServer();
    warnings = [];
    client = new RestClient({
      baseUrl: server.baseUrl,
      credentials: { apiKey: 'k', apiSecret: 's', passphrase: 'p' },
      clock: new VirtualClock(NOW),
      // The recording server has no limits, and a frozen clock would hold a rate limiter forever.
      rateLimit: false,
      logger: {
        warn: (msg, meta) => warnings.push({ msg, meta }),
        debug: () => {},
      },
    });
  });
  afterEach(async () => {
    client.close();
    await server.close();
  });

  it('parses an instrument with an unknown status and an extra field, and warns once per value', async () => {
    server.fallback = () => ({ body: envelope([instrument('pre_delisting_auction')], NOW) });
    const [first] = await client.instruments({ category: 'SPOT' });
    expect(first?.status).toBe('pre_delisting_auction');
    expect((first as Record<string, unknown>).brandNewField).toBe('from a later venue version');
    await client.instruments({ category: 'SPOT' });
    const unknown = warnings.filter((w) => w.msg === 'unknown value in a venue answer');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]?.meta).toMatchObject({ field: 'instrument.status', value: 'pre_delisting_auction' });

    // The domain keeps the value; nothing treats it as one it knows.
    expect(parseInstrument(first!).status).toBe('pre_delisting_auction');
  });

  it('parses public fills whose side and isRPI are values it does not know', async () => {
    server.fallback = () => ({
      body: envelope(
        [
          {
            execId: '1',
            execLinkId: '',
            price: '1',
            size: '1',
            side: 'cross',
            ts: String(NOW),
            isRPI: 'maybe',
          },
        ],
        NOW,
      ),
    });
    const fills = await client.fills({ category: 'SPOT', symbol: 'AAPLUSDT' });
    expect(fills[0]).toMatchObject({ side: 'cross', isRPI: 'maybe' });
    expect(warnings.map((w) => w.meta?.field)).toEqual(expect.arrayContaining(['fill.side', 'fill.isRPI']));
  });

  it('still refuses a request with a value outside the spec before sending it', async () => {
    await expect(
      client.placeRealityOrder({ symbol: 'AAPLUSDT', side: 'hold' as 'buy', orderType: 'market', qty: '10' }),
    ).rejects.toThrow(ValidationError);
    expect(server.requests).toHaveLength(0);
  });
});
