// The hand checks of the hot endpoints' parameters say "valid as sent" only when the catalogue's zod schema
// accepts the same parameters, and they say it for the parameters a bot sends; what they refuse is refused by
// the schema, naming the field, through the client as before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CANDLE_INTERVALS,
  CANDLE_TYPES,
  CATEGORIES,
  ValidationError,
  validateParams,
  type EndpointName,
} from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { validAsSent } from '../../../src/client/params-as-sent.js';

const isRealitySymbol = (s: string): boolean => s === 'AAPLUSDT';

/** A value for a field: mostly one the schema knows, now and then a near miss or junk. */
const from = (values: readonly string[]): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'spot', '1.', '-1', '0', '00', '1e3', '0.0') },
  );
const digits = fc.oneof(
  fc.integer({ min: 0, max: 2_000 }).map(String),
  fc.bigInt({ min: 0n, max: 10n ** 17n }).map(String),
  fc.constantFrom('', '01', '1.5', '-3', ' 7', '0x10', '１'),
);
const decimal = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^(?:0|[1-9]\d{0,6})(?:\.\d{1,4})?$/) },
  fc.constantFrom('0', '0.000', '1e2', '.5', '5.', '-1', ' 1', '01', ''),
);
const optional = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof(a, fc.constant(undefined));

/** Wire parameters: the record without its undefined fields, sometimes with an unknown one. */
const wire = (
  fields: Record<string, fc.Arbitrary<string | undefined>>,
): fc.Arbitrary<Record<string, string>> =>
  fc
    .tuple(
      fc.record(fields),
      fc.oneof(
        { weight: 8, arbitrary: fc.constant(undefined) },
        fc.constantFrom('foo', 'Symbol', 'constructor'),
      ),
    )
    .map(([r, extra]) => {
      const w: Record<string, string> = {};
      for (const [k, v] of Object.entries(r)) if (v !== undefined) w[k] = v;
      if (extra !== undefined) w[extra] = 'x';
      return w;
    });

const symbol = from(['AAPLUSDT', 'BTCUSDT', 'X']);
const GENERATORS: Partial<Record<EndpointName, fc.Arbitrary<Record<string, string>>>> = {
  tickers: wire({ category: from(CATEGORIES), symbol }),
  candles: wire({
    category: from(CATEGORIES),
    symbol,
    interval: from(CANDLE_INTERVALS),
    startTime: optional(digits),
    endTime: optional(digits),
    type: from(CANDLE_TYPES),
    limit: optional(digits),
  }),
  placeRealityOrder: wire({
    category: from(['SPOT', 'MARGIN', 'USDT-FUTURES']),
    symbol,
    side: from(['buy', 'sell']),
    orderType: from(['limit', 'market']),
    qty: optional(decimal),
    price: optional(decimal),
    clientOid: optional(fc.oneof(fc.stringMatching(/^[A-Za-z0-9_\-.:]{1,70}$/), fc.string({ maxLength: 3 }))),
  }),
};

describe('the hot endpoints checked by hand agree with the schema', () => {
  for (const [name, gen] of Object.entries(GENERATORS) as [
    EndpointName,
    fc.Arbitrary<Record<string, string>>,
  ][]) {
    it(`${name}: valid as sent exactly when the schema accepts the parameters`, () => {
      let said = 0;
      fc.assert(
        fc.property(gen, (w) => {
          const schema = validateParams(name, w, { isRealitySymbol }).ok;
          const hand = validAsSent(name, w, isRealitySymbol);
          if (hand) said++;
          // Exactly: a no that the schema would accept would only send it the slow way, but would mean the two
          // have drifted apart.
          expect(hand).toBe(schema);
        }),
        { numRuns: 3000 },
      );
      // The generator reaches both sides.
      expect(said).toBeGreaterThan(30);
    });
  }

  it('says no for the endpoints it does not know, so their schema decides', () => {
    expect(validAsSent('orderbook', { category: 'SPOT', symbol: 'X' }, isRealitySymbol)).toBe(false);
  });
});

describe('a refusal still names the field', () => {
  const client = new RestClient({
    baseUrl: 'http://127.0.0.1:9',
    credentials: { apiKey: 'k', apiSecret: 's', passphrase: 'p' },
    rateLimit: false,
    realitySymbols: ['AAPLUSDT'],
  });
  const refusal = async (p: Promise<unknown>): Promise<ValidationError> => {
    const e: unknown = await p.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  };

  it('place-reality-order: a limit order without price, a zero qty, an unknown parameter', async () => {
    const base = { symbol: 'AAPLUSDT', side: 'buy', orderType: 'limit', qty: '1' } as const;
    expect((await refusal(client.placeRealityOrder(base))).issues[0]?.field).toBe('price');
    expect(
      (await refusal(client.placeRealityOrder({ ...base, price: '1', qty: '0.0' }))).issues[0]?.field,
    ).toBe('qty');
    const unknown = { ...base, price: '1', tif: 'gtc' } as unknown as typeof base;
    expect((await refusal(client.placeRealityOrder(unknown))).issues[0]?.field).toBe('tif');
  });

  it('candles: a Reality symbol at 3m, an end before the start; tickers: category MARGIN', async () => {
    const c = { category: 'SPOT', symbol: 'AAPLUSDT', interval: '3m' } as const;
    expect((await refusal(client.candles(c))).issues[0]?.field).toBe('interval');
    const range = { ...c, interval: '1m', startTime: 2000, endTime: 1000 } as const;
    expect((await refusal(client.candles(range))).issues[0]?.field).toBe('startTime');
    const margin = { category: 'MARGIN' } as unknown as { category: 'SPOT' };
    expect((await refusal(client.tickers(margin))).issues[0]?.field).toBe('category');
  });
});
