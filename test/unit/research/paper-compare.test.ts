// A paper run against the backtest of the same candles: executions paired by symbol, side and tag in order,
// the cost difference signed against the trader, and the reason named by the fill model.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import { comparePaperBacktest, executionsOf, type CompareFill } from '../../../src/research/paper-compare.js';

type FillSpec = Omit<Partial<CompareFill>, 'price' | 'size'> & {
  key: string;
  ts: number;
  price: string;
  size: string;
};
const fill = (o: FillSpec): CompareFill => ({
  symbol: 'AAPLUSDT',
  side: 'buy',
  liquidity: 'taker',
  tag: 'golden-cross',
  ...o,
  price: new Decimal(o.price),
  size: new Decimal(o.size),
});

describe('comparePaperBacktest', () => {
  it('pairs a paper market buy that walked two book levels with the backtest fill at the open, paper paying more', () => {
    const paper = executionsOf([
      fill({ key: 'tb-1', ts: 1000, price: '100.02', size: '1', bookAgeMs: 120 }),
      fill({ key: 'tb-1', ts: 1000, price: '100.04', size: '1', bookAgeMs: 120 }),
    ]);
    const backtest = executionsOf([fill({ key: 'b1', ts: 900, price: '100', size: '2' })]);
    const [row] = comparePaperBacktest(paper, backtest);
    expect(row?.paper?.price.toFixed()).toBe('100.03');
    expect(row?.costBps).toBe(3);
    expect(row?.why).toMatch(/paper walked 2 levels of the book polled 120 ms before .*candle's open/);
  });

  it('signs a sell that paper sold lower as a cost, and explains resting limits filled at their price', () => {
    const rows = comparePaperBacktest(
      executionsOf([
        fill({ key: 'p1', ts: 1, side: 'sell', tag: 'exit', price: '99', size: '1' }),
        fill({ key: 'p2', ts: 2, tag: 'dip', price: '98', size: '1', liquidity: 'maker' }),
      ]),
      executionsOf([
        fill({ key: 'b1', ts: 1, side: 'sell', tag: 'exit', price: '100', size: '1' }),
        fill({ key: 'b2', ts: 3, tag: 'dip', price: '98', size: '1', liquidity: 'maker' }),
      ]),
    );
    expect(rows.map((r) => r.costBps)).toEqual([100, 0]);
    expect(rows[1]?.why).toMatch(/public trade through it, the backtest on a candle through it/);
  });

  it('keeps a trade only one run made as a row of its own, saying which', () => {
    const rows = comparePaperBacktest([], executionsOf([fill({ key: 'b', ts: 5, price: '1', size: '1' })]));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.paper).toBeUndefined();
    expect(rows[0]?.why).toMatch(/^only the backtest traded here/);
  });
});
