// A paper run against the backtest of the same candles: executions paired by symbol, side and tag nearest in time,
// the cost difference signed against the trader, and the reason named by the fill model.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import {
  compareIntents,
  comparePaperBacktest,
  executionsOf,
  type CompareFill,
  type IntentDecision,
} from '../../../src/research/paper-compare.js';

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

/** Two one-minute candles: how far apart the two runs' fills of one signal may be. */
const WINDOW = 120_000;

describe('comparePaperBacktest', () => {
  it('pairs a paper market buy that walked two book levels with the backtest fill at the open, paper paying more', () => {
    const paper = executionsOf([
      fill({ key: 'tb-1', ts: 1000, price: '100.02', size: '1', bookAgeMs: 120 }),
      fill({ key: 'tb-1', ts: 1000, price: '100.04', size: '1', bookAgeMs: 120 }),
    ]);
    const backtest = executionsOf([fill({ key: 'b1', ts: 900, price: '100', size: '2' })]);
    const [row] = comparePaperBacktest(paper, backtest, WINDOW);
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
      WINDOW,
    );
    expect(rows.map((r) => r.costBps)).toEqual([100, 0]);
    expect(rows[1]?.why).toMatch(/public trade through it, the backtest on a candle through it/);
  });

  it('pairs by candle, not by place: a trade only the backtest made leaves every later pair on its own candle', () => {
    const minute = 60_000;
    const paper = [2, 5, 9].map((m) =>
      fill({ key: `p${m}`, ts: m * minute + 500, price: '100.1', size: '1' }),
    );
    // The backtest also bought at minute 1, which paper did not: by place, every pair would be off by one.
    const backtest = [1, 2, 5, 9].map((m) => fill({ key: `b${m}`, ts: m * minute, price: '100', size: '1' }));
    const rows = comparePaperBacktest(executionsOf(paper), executionsOf(backtest), WINDOW);
    expect(rows.map((r) => [r.paper?.ts ?? null, r.backtest?.ts ?? null])).toEqual([
      [null, minute],
      [2 * minute + 500, 2 * minute],
      [5 * minute + 500, 5 * minute],
      [9 * minute + 500, 9 * minute],
    ]);
    expect(rows.slice(1).map((r) => r.costBps)).toEqual([10, 10, 10]);
  });

  it('says prices agree for resting limits only when they do', () => {
    const maker = (key: string, ts: number, price: string) =>
      fill({ key, ts, price, size: '1', liquidity: 'maker' });
    const [same] = comparePaperBacktest(
      executionsOf([maker('p', 1, '248.55')]),
      executionsOf([maker('b', 2, '248.55')]),
      WINDOW,
    );
    expect(same?.why).toMatch(/prices agree/);
    const [apart] = comparePaperBacktest(
      executionsOf([maker('p', 1, '248.72')]),
      executionsOf([maker('b', 2, '248.55')]),
      WINDOW,
    );
    expect(apart?.why).not.toMatch(/prices agree/);
    expect(apart?.why).toMatch(/at different prices \(paper 248\.72, backtest 248\.55\)/);
  });

  it('keeps a trade only one run made as a row of its own, saying which', () => {
    const rows = comparePaperBacktest(
      [],
      executionsOf([fill({ key: 'b', ts: 5, price: '1', size: '1' })]),
      WINDOW,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.paper).toBeUndefined();
    expect(rows[0]?.why).toMatch(/^only the backtest traded here/);
  });
});

describe('comparePaperBacktest sizes', () => {
  it('names the sizing price when a quote amount became another size on paper', () => {
    const [row] = comparePaperBacktest(
      executionsOf([fill({ key: 'p', ts: 1, price: '151.9', size: '13.165' })]),
      executionsOf([fill({ key: 'b', ts: 1, price: '151.93', size: '13.1639' })]),
      WINDOW,
    );
    expect(row?.why).toMatch(/sizes differ: a quote amount is sized at the last price paper polled/);
  });
});

const intent = (o: Partial<IntentDecision> & { ts: number }): IntentDecision => ({
  symbol: 'AAPLUSDT',
  side: 'buy',
  tag: 'golden-cross',
  decision: 'approved',
  ...o,
});

describe('compareIntents', () => {
  it("pairs each symbol's intents in order whatever their times, agreeing on side, tag and decision", () => {
    const rows = compareIntents(
      [intent({ ts: 65_000 }), intent({ ts: 185_000, side: 'sell', tag: 'death-cross' })],
      [intent({ ts: 60_000 }), intent({ ts: 180_000, side: 'sell', tag: 'death-cross' })],
    );
    expect(rows.map((r) => r.agree)).toEqual([true, true]);
  });

  it('says where the gate decided otherwise, and which run alone emitted an intent', () => {
    const rows = compareIntents(
      [intent({ ts: 1, decision: 'MAX_ORDER_NOTIONAL' })],
      [intent({ ts: 1 }), intent({ ts: 2, symbol: 'TSLAUSDT' })],
    );
    expect(rows.map((r) => r.agree)).toEqual([false, false]);
    expect(rows[0]?.why).toMatch(/gate decided otherwise \(paper MAX_ORDER_NOTIONAL, backtest approved\)/);
    expect(rows[1]?.why).toMatch(/^only the backtest emitted it/);
  });
});
