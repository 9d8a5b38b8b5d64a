// The matching core on the candle fill model: what a backtest's in-process venue and the simulator's
// replay mode do with an order, by hand.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { SIM_REALITY_MARGIN_FIELDS, marginPairRules } from '../../../src/market/margin.js';
import { CandleFillModel, type CandleBar } from '../../../src/sim/candle-fills.js';
import { MatchingCore } from '../../../src/sim/matching.js';

const MIN = 60_000;
const T = 1_795_446_000_000;
// Three candles: 100 -> 102, a dip to 97.5, then a gap down opening at 96.
const bars: CandleBar[] = [
  { t: T, open: 100, high: 102.5, low: 99.5, close: 102 },
  { t: T + MIN, open: 102, high: 102.5, low: 97.5, close: 98 },
  { t: T + 2 * MIN, open: 96, high: 97, low: 95, close: 96.5 },
];
const core = (usdt = '10000') => {
  const c = new MatchingCore({
    market: new CandleFillModel({
      slippageBps: 10,
      intervalMs: MIN,
      pricePrecision: () => 2,
      barAt: (_s, t) => bars.find((b) => t >= b.t && t < b.t + MIN),
    }),
    pair: () => ({ symbol: 'XUSDT', baseCoin: 'X', quoteCoin: 'USDT', quantityPrecision: 3 }),
  });
  c.createAccount('a', {
    balances: { USDT: new Decimal(usdt) },
    makerFeeRate: new Decimal('0.0005'),
    takerFeeRate: new Decimal('0.002'),
  });
  return c;
};
const D = (s: string) => new Decimal(s);

describe('MatchingCore on candles', () => {
  it('fills a market buy at the open plus slippage, rounded up, as a taker; size rounded down', () => {
    const c = core();
    const r = c.place('a', { symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('1000') }, T);
    if (!r.ok) throw new Error(r.msg);
    // 100 x 1.001 = 100.1; 1000 / 100.1 = 9.99000999 -> 9.99
    expect(r.fills.map((f) => [f.price.toFixed(), f.size.toFixed(), f.fee.toFixed(), f.liquidity])).toEqual([
      ['100.1', '9.99', '1.999998', 'taker'],
    ]);
    const b = c.balances('a');
    expect(b.USDT?.available.toFixed()).toBe(D('10000').minus('999.999').minus('1.999998').toFixed());
    expect(b.X?.available.toFixed()).toBe('9.99');
  });

  it('rests a limit buy, fills it at its price as a maker when a candle trades through it, at the close', () => {
    const c = core();
    const r = c.place(
      'a',
      { symbol: 'XUSDT', side: 'buy', orderType: 'limit', qty: D('2'), price: D('98') },
      T,
    );
    if (!r.ok) throw new Error(r.msg);
    expect(r.fills).toEqual([]);
    // The first candle's low (99.5) does not reach 98; the second's (97.5) goes through it.
    expect(c.advance(T + MIN)).toEqual([]);
    const fills = c.advance(T + 2 * MIN);
    expect(
      fills.map((f) => [f.price.toFixed(), f.size.toFixed(), f.fee.toFixed(), f.liquidity, f.ts]),
    ).toEqual([['98', '2', '0.098', 'maker', T + 2 * MIN]]);
  });

  it('fills a resting buy at the open, as a maker, when a candle opens through it', () => {
    const c = core();
    const buy = c.place('a', { symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('1000') }, T);
    if (!buy.ok) throw new Error(buy.msg);
    // A buy limit at 97 placed in the second candle: its low 97.5 does not go through; the third opens at 96.
    const r = c.place(
      'a',
      { symbol: 'XUSDT', side: 'buy', orderType: 'limit', qty: D('1'), price: D('97') },
      T + MIN,
    );
    if (!r.ok) throw new Error(r.msg);
    expect(c.advance(T + 2 * MIN - 1)).toEqual([]);
    // The window that holds the third candle's first instant sees its open.
    const fills = c.advance(T + 2 * MIN);
    expect(fills.map((f) => [f.price.toFixed(), f.liquidity, f.ts])).toEqual([['97', 'maker', T + 2 * MIN]]);
  });

  it('refuses an order the balance cannot pay for, fees included, and a reused clientOid', () => {
    const c = core('100');
    // 100 quote of a market buy needs 100 x (1 + taker) reserved.
    const r = c.place('a', { symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('100') }, T);
    expect(r.ok).toBe(false);
    const ok = c.place(
      'a',
      { symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('50'), clientOid: 'x1' },
      T,
    );
    expect(ok.ok).toBe(true);
    const dup = c.place(
      'a',
      { symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('10'), clientOid: 'x1' },
      T,
    );
    expect(dup.ok).toBe(false);
    expect(c.balances('a').USDT?.available.gt(0)).toBe(true);
  });
});

// A book of several levels (as the simulator's order book offers), walked by a taker level by level.
describe('MatchingCore on a book of levels', () => {
  const asks = [
    { price: D('10'), qty: D('2') },
    { price: D('11'), qty: D('3') },
    { price: D('12'), qty: D('100') },
  ];
  const bids = [
    { price: D('9'), qty: D('1') },
    { price: D('8'), qty: D('2') },
  ];
  const bookCore = () => {
    const c = new MatchingCore({
      market: {
        levels: (_s, side) => (side === 'buy' ? asks : bids),
        firstTouch: () => undefined,
      },
      pair: () => ({ symbol: 'XUSDT', baseCoin: 'X', quoteCoin: 'USDT', quantityPrecision: 3 }),
    });
    c.createAccount('a', {
      balances: { USDT: D('1000'), X: D('10') },
      makerFeeRate: D('0'),
      takerFeeRate: D('0.001'),
    });
    return c;
  };
  const sizes = (r: ReturnType<MatchingCore['place']>) => {
    if (!r.ok) throw new Error(r.msg);
    return r.fills.map((f) => [f.price.toFixed(), f.size.toFixed(), f.notional.toFixed()]);
  };

  it('a market buy takes whole levels, then what its quote amount buys of the next', () => {
    // 50 quote: 2 @ 10 (20), 3 @ 11 (33) would be 53, so 30 / 11 = 2.727 of the second level.
    const r = bookCore().place('a', { symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('50') }, 0);
    expect(sizes(r)).toEqual([
      ['10', '2', '20'],
      ['11', '2.727', '29.997'],
    ]);
  });

  it('a market buy that spends a level exactly stops there', () => {
    const r = bookCore().place('a', { symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('20') }, 0);
    expect(sizes(r)).toEqual([['10', '2', '20']]);
  });

  it('a market sell walks the bids and what the book cannot absorb is cancelled', () => {
    const r = bookCore().place('a', { symbol: 'XUSDT', side: 'sell', orderType: 'market', qty: D('5') }, 0);
    expect(sizes(r)).toEqual([
      ['9', '1', '9'],
      ['8', '2', '16'],
    ]);
    if (!r.ok) throw new Error(r.msg);
    expect(r.order.status).toBe('cancelled');
    expect(r.order.filledQty.toFixed()).toBe('3');
  });

  it('a limit buy takes the levels it crosses and rests the rest', () => {
    const c = bookCore();
    const r = c.place(
      'a',
      { symbol: 'XUSDT', side: 'buy', orderType: 'limit', qty: D('4'), price: D('10.5') },
      0,
    );
    expect(sizes(r)).toEqual([['10', '2', '20']]);
    if (!r.ok) throw new Error(r.msg);
    expect(r.order.status).toBe('partially_filled');
    expect(c.hasResting).toBe(true);
  });
});

describe('MatchingCore margin loans take their basis from the fills (docs/margin.md)', () => {
  const marginCore = (usdt: string) => {
    const c = new MatchingCore({
      market: new CandleFillModel({
        slippageBps: 10,
        intervalMs: MIN,
        pricePrecision: () => 2,
        barAt: (_s, t) => bars.find((b) => t >= b.t && t < b.t + MIN),
      }),
      pair: () => ({
        symbol: 'XUSDT',
        baseCoin: 'X',
        quoteCoin: 'USDT',
        quantityPrecision: 3,
        margin: marginPairRules(SIM_REALITY_MARGIN_FIELDS),
      }),
    });
    c.createAccount('a', {
      balances: { USDT: new Decimal(usdt) },
      makerFeeRate: new Decimal('0.0005'),
      takerFeeRate: new Decimal('0.002'),
    });
    c.setLeverage('a', 'X', D('3'));
    c.setLeverage('a', 'USDT', D('3'));
    return c;
  };
  const loans = (c: MatchingCore, at: number) =>
    c.margin('a', 'USDT', at).loans.map((l) => [l.coin, l.qty.toFixed(), l.basis.toFixed()]);

  it('a MARGIN market buy beyond cash owes what it cost beyond the cash, not its whole reservation', () => {
    const c = marginCore('100');
    const r = c.place(
      'a',
      { category: 'MARGIN', symbol: 'XUSDT', side: 'buy', orderType: 'market', qty: D('200') },
      T,
    );
    if (!r.ok) throw new Error(r.msg);
    // 1.998 X at 100.1 = 199.9998, fee 0.3999996: 200.3997996 paid, 100 of it held
    expect(loans(c, T)).toEqual([['USDT', '100.3997996', '100.3997996']]);
    expect(c.balances('a').USDT?.available.toFixed()).toBe('0');
  });

  it('a resting MARGIN sell borrows at placement, and gives the loan back unspent when cancelled', () => {
    const c = marginCore('1000');
    const r = c.place(
      'a',
      { category: 'MARGIN', symbol: 'XUSDT', side: 'sell', orderType: 'limit', qty: D('2'), price: D('110') },
      T,
    );
    if (!r.ok) throw new Error(r.msg);
    expect(loans(c, T)).toEqual([['X', '2', '0']]); // no basis before a fill: no interest
    expect(c.cancel(r.order.orderId, T + MIN)).toBe(true);
    expect(loans(c, T + MIN)).toEqual([]);
    expect(c.balances('a').X?.available.toFixed()).toBe('0');
  });
});
