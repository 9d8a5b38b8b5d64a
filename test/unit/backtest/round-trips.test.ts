// The round-trip book of a backtest: one trade per flat-to-flat run of a symbol's fills, with average entry
// and exit prices to 8 places, quantity, PnL after fees and fees, all decimal strings.
import { describe, expect, it } from 'vitest';
import { RoundTrips } from '../../../src/backtest/engine.js';
import { Decimal } from '../../../src/market/decimal.js';

const fill = (
  side: 'buy' | 'sell',
  price: string,
  size: string,
  fee: string,
  ts: number,
  tag = side === 'buy' ? 'in' : 'out',
) => {
  const p = new Decimal(price);
  const s = new Decimal(size);
  return { symbol: 'BTCUSDT', side, price: p, size: s, notional: p.mul(s), fee: new Decimal(fee), ts, tag };
};

describe('RoundTrips', () => {
  it('a trade of one buy and one sell reads each fill price, to 8 places', () => {
    const t = new RoundTrips();
    t.add(fill('buy', '101.123456789', '0.5', '0.05', 1));
    expect(t.holding).toBe(1);
    t.add(fill('sell', '110', '0.5', '0.055', 2));
    expect(t.holding).toBe(0);
    expect(t.trades).toEqual([
      {
        symbol: 'BTCUSDT',
        side: 'long',
        entryTime: 1,
        exitTime: 2,
        entryPrice: '101.12345678',
        exitPrice: '110',
        quantity: '0.5',
        // 55 - 50.5617283945 - 0.105
        pnl: '4.3332716055',
        fees: '0.105',
        entryTag: 'in',
        exitReason: 'out',
      },
    ]);
  });

  it('a side of several fills reads its volume-weighted average, rounded down to 8 places', () => {
    const t = new RoundTrips();
    t.add(fill('buy', '100', '1', '0.1', 1));
    t.add(fill('buy', '103', '2', '0.2', 2));
    t.add(fill('sell', '110', '1', '0.1', 3));
    expect(t.trades).toEqual([]);
    t.add(fill('sell', '111', '2', '0.2', 4));
    const [trade] = t.trades;
    // (100 + 206) / 3 = 102 exactly; (110 + 222) / 3 = 110.666666666...
    expect(trade).toMatchObject({ entryPrice: '102', exitPrice: '110.66666666', quantity: '3' });
    // 332 - 306 - 0.6
    expect(trade?.pnl).toBe('25.4');
  });

  it('a new trade after a flat one starts its averages afresh', () => {
    const t = new RoundTrips();
    t.add(fill('buy', '100', '1', '0', 1));
    t.add(fill('buy', '102', '1', '0', 2));
    t.add(fill('sell', '105', '2', '0', 3));
    t.add(fill('buy', '90', '1', '0', 4));
    t.add(fill('sell', '95', '1', '0', 5));
    expect(t.trades.map((x) => [x.entryPrice, x.exitPrice, x.pnl])).toEqual([
      ['101', '105', '8'],
      ['90', '95', '5'],
    ]);
  });

  it('names each trade by the tag of the fill that opened it and the reason of the one that closed it', () => {
    const t = new RoundTrips();
    t.add(fill('buy', '100', '1', '0', 1, 'dip'));
    t.add(fill('buy', '99', '1', '0', 2, 'average-down'));
    t.add(fill('sell', '95', '2', '0', 3, 'stop_loss'));
    t.add(fill('buy', '90', '1', '0', 4, 'breakout'));
    t.add(fill('sell', '92', '0.5', '0', 5, 'take_profit'));
    expect(t.trades.map((x) => [x.entryTag, x.exitReason])).toEqual([['dip', 'stop_loss']]);
    // The second is still open: its tag and what it holds, its partial sell's money kept for the PnL.
    expect(t.openTrips()).toMatchObject([
      { symbol: 'BTCUSDT', entryTime: 4, entryTag: 'breakout', entryPrice: '90' },
    ]);
    expect(t.openTrips()[0]?.quantity.toFixed()).toBe('0.5');
    expect(t.openTrips()[0]?.sellValue.toFixed()).toBe('46');
  });
});
