// Orders and fills in words with their units, as the log and the notifications say them.
import { describe, expect, it } from 'vitest';
import { coinsBySuffix, describeFill, describeOrder } from '../../../src/execution/describe.js';
import type { TraderFill } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';

const usdt = coinsBySuffix('USDT');
const order = { category: 'SPOT', symbol: 'AAPLUSDT', clientOid: 'c' } as const;

describe('describeOrder', () => {
  it('sizes a market buy in the quote coin and everything else in the base coin', () => {
    expect(describeOrder({ ...order, side: 'buy', orderType: 'market', qty: '2000' }, usdt)).toBe(
      'buy 2000 USDT of AAPLUSDT at market',
    );
    expect(describeOrder({ ...order, side: 'sell', orderType: 'market', qty: '13.17' }, usdt)).toBe(
      'sell 13.17 AAPL of AAPLUSDT at market',
    );
    expect(describeOrder({ ...order, side: 'buy', orderType: 'limit', qty: '2', price: '150.5' }, usdt)).toBe(
      'buy 2 AAPL of AAPLUSDT at 150.5 USDT',
    );
  });
});

describe('describeFill', () => {
  it('says the size in the base coin and the price and fee in the quote coin, with the liquidity', () => {
    const fill = {
      side: 'buy',
      size: new Decimal('13.17'),
      baseCoin: 'AAPL',
      price: new Decimal('151.85'),
      quoteCoin: 'USDT',
      fee: new Decimal('0.2'),
      feeCoin: 'USDT',
      liquidity: 'maker',
    } as unknown as TraderFill;
    expect(describeFill(fill)).toBe('bought 13.17 AAPL at 151.85 USDT (fee 0.2 USDT, maker)');
  });
});
