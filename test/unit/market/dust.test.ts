// Dust: a position below the venue's minimum tradable quantity is no trade. The rule itself, the strategy's
// view of it (flat, with the dust asked for apart), the exits (no stop-loss on dust) and the backtest's round
// trips (the trade closes where the dust is left, and the next exit sells the dust with its own).
import { describe, expect, it } from 'vitest';
import type { Instrument } from '../../../src/api/index.js';
import { RoundTrips } from '../../../src/backtest/engine.js';
import { ExitBook } from '../../../src/execution/exits.js';
import { Decimal } from '../../../src/market/decimal.js';
import { isDust } from '../../../src/market/dust.js';
import { parseInstrument } from '../../../src/market/instrument-rules.js';
import { Portfolio } from '../../../src/portfolio/portfolio.js';
import { withoutDust } from '../../../src/portfolio/dust-view.js';
import { buildStrategyContext } from '../../../src/strategy/context.js';
import { parseExitRules } from '../../../src/strategy/exits.js';
import { MemoryStrategyState } from '../../../src/strategy/state.js';
import { silentLogger } from '../../../src/strategy/testing.js';

// The simulator's Reality pairs: 4 quantity decimals, 0.01 the least an order may be.
const rules = parseInstrument({
  category: 'SPOT',
  symbol: 'XAACUSDT',
  baseCoin: 'XAAC',
  quoteCoin: 'USDT',
  status: 'online',
  pricePrecision: '2',
  quantityPrecision: '4',
  quotePrecision: '4',
  minOrderQty: '0.01',
} as Instrument);
const d = (v: string) => new Decimal(v);

describe('isDust', () => {
  it('is a position below minOrderQty, or one that rounds to zero at the quantity precision', () => {
    expect(isDust(rules, d('0.0006'))).toBe(true);
    expect(isDust(rules, d('0.00999'))).toBe(true);
    expect(isDust(rules, d('0.01'))).toBe(false);
    expect(isDust(rules, d('2.0006'))).toBe(false);
    expect(isDust(rules, d('0'))).toBe(false);
    // A short's size counts the same.
    expect(isDust(rules, d('-0.0006'))).toBe(true);
    const noMin = { ...rules, minOrderQty: undefined };
    expect(isDust(noMin, d('0.00004'))).toBe(true);
    expect(isDust(noMin, d('0.0001'))).toBe(false);
  });

  it('is nothing without the instrument rules: a position is never hidden on a guess', () => {
    expect(isDust(undefined, d('0.0006'))).toBe(false);
  });
});

describe("the strategy's portfolio", () => {
  const held = (qty: string) => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000' } });
    const fill = { symbol: 'XAACUSDT', baseCoin: 'XAAC', quoteCoin: 'USDT', fee: '0', feeCoin: 'USDT' };
    p.applyFill({ ...fill, side: 'buy', price: '100', size: '2.0006', ts: 1 });
    const sold = d('2.0006').minus(qty);
    if (!sold.isZero()) p.applyFill({ ...fill, side: 'sell', price: '101', size: sold.toFixed(), ts: 2 });
    return withoutDust(p, () => rules);
  };

  it('reads dust as flat, and gives it when asked for', () => {
    const v = held('0.0006');
    expect(v.position('XAACUSDT').quantity.toFixed()).toBe('0');
    expect(v.position('XAACUSDT').avgPrice.toFixed()).toBe('0');
    expect(v.positions().map((p) => p.quantity.toFixed())).toEqual(['0']);
    expect(v.dust('XAACUSDT').toFixed()).toBe('0.0006');
  });

  it('reads a tradable position whole, dust included, so the next exit sells all of it', () => {
    const v = held('2.0006');
    expect(v.position('XAACUSDT').quantity.toFixed()).toBe('2.0006');
    expect(v.dust('XAACUSDT').toFixed()).toBe('0');
  });
});

describe("the strategy's context", () => {
  it('reads dust as flat, with no unrealised PnL to watch', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000' } });
    const fill = { symbol: 'XAACUSDT', baseCoin: 'XAAC', quoteCoin: 'USDT', fee: '0', feeCoin: 'USDT' };
    p.applyFill({ ...fill, side: 'buy', price: '100', size: '0.0006', ts: 1 });
    const ctx = buildStrategyContext({
      bot: 'b',
      params: {},
      clock: { now: () => 0 },
      logger: silentLogger,
      symbols: ['XAACUSDT'],
      category: 'SPOT',
      rules: () => rules,
      portfolio: p,
      session: () => undefined,
      state: new MemoryStrategyState(),
      unrealisedPnl: () => d('0.01'),
    });
    expect(ctx.portfolio.position('XAACUSDT').quantity.toFixed()).toBe('0');
    expect(ctx.portfolio.dust('XAACUSDT').toFixed()).toBe('0.0006');
    expect(ctx.unrealisedPnl('XAACUSDT').toFixed()).toBe('0');
  });
});

describe('exits on dust', () => {
  it('closes the trade when only dust is left: no stop-loss is sent for it', () => {
    const b = new ExitBook({
      rules: parseExitRules({ stopLoss: '0.1' }, 'test'),
      pricePrecision: () => 2,
      instrument: () => rules,
      intervalMs: 60_000,
      allowedSessions: ['regular'],
    });
    b.onPosition('XAACUSDT', d('2.0006'), d('100'), 0);
    expect(b.holds('XAACUSDT')).toBe(true);
    b.onPosition('XAACUSDT', d('0.0006'), d('100'), 60_000);
    expect(b.holds('XAACUSDT')).toBe(false);
    expect(b.onBar('XAACUSDT', { t: 120_000, open: 50, high: 51, low: 40 })).toBeUndefined();
  });
});

describe('round trips with dust', () => {
  const fill = (side: 'buy' | 'sell', price: string, size: string, ts: number) => {
    const p = d(price);
    const s = d(size);
    const tag = side === 'buy' ? 'in' : 'out';
    return { symbol: 'XAACUSDT', side, price: p, size: s, notional: p.mul(s), fee: d('0'), ts, tag };
  };

  it('closes the trade where dust is left, and sells the dust with the next trade', () => {
    const t = new RoundTrips((_s, q) => isDust(rules, q));
    t.add(fill('buy', '100', '2.0006', 1));
    t.add(fill('sell', '101', '2', 2));
    expect(t.trades.map((x) => [x.quantity, x.exitTime])).toEqual([['2.0006', 2]]);
    expect(t.holding).toBe(0);
    expect(t.openTrips()).toEqual([]);
    t.add(fill('buy', '100', '1', 3));
    expect(t.holding).toBe(1);
    t.add(fill('sell', '102', '1.0006', 4));
    expect(t.trades.map((x) => [x.quantity, x.entryTime, x.pnl])).toEqual([
      ['2.0006', 1, '1.94'],
      ['1', 3, '2.0612'],
    ]);
  });
});
