// Property tests of the parameter rules of spec section 4, as the catalogue enforces them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CANDLE_INTERVALS,
  REALITY_CANDLE_INTERVALS,
  effectiveLeverage,
  validateParams,
  withdrawalKey,
} from '../../../src/api/index.js';

const DAY = 86_400_000;
const reality = { isRealitySymbol: (s: string) => s === 'AAPLUSDT' };

describe('limit rules', () => {
  const cases = [
    ['orderbook', 1000, { category: 'SPOT', symbol: 'BTCUSDT' }],
    ['fills', 100, { category: 'SPOT', symbol: 'BTCUSDT' }],
    ['candles', 1000, { category: 'SPOT', symbol: 'BTCUSDT', interval: '1m' }],
    ['historyCandles', 100, { category: 'SPOT', symbol: 'BTCUSDT', interval: '1m' }],
    ['dividends', 100, { code: 'AAPL' }],
    ['realityFills', 100, { symbol: 'AAPLUSDT' }],
  ] as const;
  for (const [name, max, base] of cases) {
    it(`${name} accepts every limit from 1 to ${max} and refuses any other, naming limit`, () => {
      fc.assert(
        fc.property(fc.integer({ min: -5, max: max * 3 }), (n) => {
          const r = validateParams(name, { ...base, limit: String(n) });
          if (n >= 1 && n <= max) expect(r.ok).toBe(true);
          else expect(!r.ok && r.issues[0]?.field === 'limit').toBe(true);
        }),
      );
    });
  }
});

describe('category values differ per endpoint', () => {
  it('instruments and fills accept MARGIN; tickers, orderbook and candles refuse it', () => {
    expect(validateParams('instruments', { category: 'MARGIN' }).ok).toBe(true);
    expect(validateParams('fills', { category: 'MARGIN', symbol: 'X' }).ok).toBe(true);
    expect(validateParams('tickers', { category: 'MARGIN' }).ok).toBe(false);
    expect(validateParams('orderbook', { category: 'MARGIN', symbol: 'X' }).ok).toBe(false);
    expect(validateParams('candles', { category: 'MARGIN', symbol: 'X', interval: '1m' }).ok).toBe(false);
  });
});

describe('candle rules', () => {
  it('a Reality symbol accepts only 1m, 5m, 15m, 1H, 4H, 1D; any interval for other symbols', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CANDLE_INTERVALS), fc.boolean(), (interval, isReality) => {
        const r = validateParams(
          'candles',
          { category: 'SPOT', symbol: isReality ? 'AAPLUSDT' : 'BTCUSDT', interval },
          reality,
        );
        const allowed = !isReality || (REALITY_CANDLE_INTERVALS as readonly string[]).includes(interval);
        expect(r.ok).toBe(allowed);
      }),
    );
  });

  it('mark, index and premium fall back to market for a Reality symbol, without error', () => {
    for (const type of ['mark', 'index', 'premium']) {
      const r = validateParams(
        'historyCandles',
        { category: 'SPOT', symbol: 'AAPLUSDT', interval: '1m', type },
        reality,
      );
      expect(r.ok && r.value.type).toBe('market');
      const other = validateParams(
        'historyCandles',
        { category: 'USDT-FUTURES', symbol: 'BTCUSDT', interval: '1m', type },
        reality,
      );
      expect(other.ok && other.value.type).toBe(type);
    }
  });

  it('history-candles refuses a range over 90 days and accepts any range up to it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }),
        fc.integer({ min: 0, max: 200 * DAY }),
        (start, len) => {
          const r = validateParams('historyCandles', {
            category: 'SPOT',
            symbol: 'BTCUSDT',
            interval: '1H',
            startTime: String(start),
            endTime: String(start + len),
          });
          expect(r.ok).toBe(len <= 90 * DAY);
        },
      ),
    );
  });

  it('applies the limit defaults: 1000 for candles, 100 for history-candles', () => {
    const a = validateParams('candles', { category: 'SPOT', symbol: 'X', interval: '1m' });
    const b = validateParams('historyCandles', { category: 'SPOT', symbol: 'X', interval: '1m' });
    expect(a.ok && a.value.limit).toBe(1000);
    expect(b.ok && b.value.limit).toBe(100);
  });
});

describe('place-reality-order', () => {
  const dec = fc
    .tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 9999 }))
    .map(([i, f]) => `${i}.${f}`);
  it('needs a price exactly when the order is a limit order; category defaults to SPOT', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('limit', 'market'),
        fc.option(dec, { nil: undefined }),
        dec,
        (orderType, price, qty) => {
          const r = validateParams('placeRealityOrder', {
            symbol: 'AAPLUSDT',
            side: 'buy',
            orderType,
            qty,
            ...(price ? { price } : {}),
          });
          expect(r.ok).toBe(orderType === 'market' || price !== undefined);
          if (r.ok) expect(r.value.category).toBe('SPOT');
        },
      ),
    );
  });
  it('refuses futures categories, zero, negative and exponent quantities', () => {
    for (const bad of [{ category: 'USDT-FUTURES' }, { qty: '0' }, { qty: '-1' }, { qty: '1e3' }]) {
      expect(
        validateParams('placeRealityOrder', {
          symbol: 'AAPLUSDT',
          side: 'buy',
          orderType: 'market',
          qty: '1',
          ...bad,
        }).ok,
      ).toBe(false);
    }
  });
});

describe('set-leverage', () => {
  it('needs symbol for futures and coin for margin; isolated only for futures', () => {
    expect(validateParams('setLeverage', { category: 'USDT-FUTURES', leverage: '5' }).ok).toBe(false);
    expect(
      validateParams('setLeverage', { category: 'USDT-FUTURES', symbol: 'BTCUSDT', leverage: '5' }).ok,
    ).toBe(true);
    expect(validateParams('setLeverage', { category: 'MARGIN', symbol: 'BTCUSDT', leverage: '5' }).ok).toBe(
      false,
    );
    expect(validateParams('setLeverage', { category: 'MARGIN', coin: 'BTC', leverage: '5' }).ok).toBe(true);
    expect(
      validateParams('setLeverage', {
        category: 'MARGIN',
        coin: 'BTC',
        leverage: '5',
        marginMode: 'isolated',
        posSide: 'long',
      }).ok,
    ).toBe(false);
    expect(
      validateParams('setLeverage', {
        category: 'USDT-FUTURES',
        symbol: 'BTCUSDT',
        leverage: '5',
        marginMode: 'isolated',
      }).ok,
    ).toBe(false);
    expect(
      validateParams('setLeverage', {
        category: 'USDT-FUTURES',
        symbol: 'BTCUSDT',
        leverage: '5',
        marginMode: 'isolated',
        posSide: 'short',
      }).ok,
    ).toBe(true);
  });
  it('longLeverage and shortLeverage take precedence over leverage in two-way mode', () => {
    const lev = fc.integer({ min: 1, max: 125 }).map(String);
    fc.assert(
      fc.property(
        lev,
        fc.option(lev, { nil: undefined }),
        fc.option(lev, { nil: undefined }),
        (leverage, longLeverage, shortLeverage) => {
          const r = validateParams('setLeverage', {
            category: 'USDT-FUTURES',
            symbol: 'BTCUSDT',
            marginMode: 'isolated',
            posSide: 'long',
            leverage,
            ...(longLeverage ? { longLeverage } : {}),
            ...(shortLeverage ? { shortLeverage } : {}),
          });
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          const eff = effectiveLeverage(r.value);
          if (longLeverage || shortLeverage) {
            expect(eff.long).toBe(longLeverage ?? leverage);
            expect(eff.short).toBe(shortLeverage ?? leverage);
          } else {
            expect(eff).toEqual({ long: leverage });
          }
        },
      ),
    );
  });
});

describe('cancel-withdrawal', () => {
  it('needs orderId or clientOid, and orderId wins when both are passed', () => {
    expect(validateParams('cancelWithdrawal', {}).ok).toBe(false);
    fc.assert(
      fc.property(
        fc.option(fc.stringMatching(/^[a-z0-9]{1,8}$/), { nil: undefined }),
        fc.option(fc.stringMatching(/^[a-z0-9]{1,8}$/), { nil: undefined }),
        (orderId, clientOid) => {
          const r = validateParams('cancelWithdrawal', {
            ...(orderId ? { orderId } : {}),
            ...(clientOid ? { clientOid } : {}),
          });
          expect(r.ok).toBe(orderId !== undefined || clientOid !== undefined);
          if (r.ok)
            expect(withdrawalKey(r.value)).toEqual(
              orderId ? { by: 'orderId', id: orderId } : { by: 'clientOid', id: clientOid },
            );
        },
      ),
    );
  });
});

describe('unknown parameters', () => {
  it('are refused with their names', () => {
    const r = validateParams('tickers', { category: 'SPOT', symbl: 'BTCUSDT' });
    expect(!r.ok && r.issues[0]?.field).toBe('symbl');
  });
});
