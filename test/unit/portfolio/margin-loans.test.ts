import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import type { MarginModel } from '../../../src/market/margin.js';
import { Portfolio, feeFor, type PortfolioFill } from '../../../src/portfolio/index.js';

// 1% of the loan's basis per 1 s period: figures a reader can check by hand.
const MODEL: MarginModel = { interestRate: new Decimal('0.01'), interestPeriodMs: 1000 };

function fill(side: 'buy' | 'sell', size: string, price: string, ts: number): PortfolioFill {
  return {
    symbol: 'AAPLUSDT',
    baseCoin: 'AAPL',
    quoteCoin: 'USDT',
    side,
    price,
    size,
    fee: feeFor(price, size, '0.001'),
    feeCoin: 'USDT',
    ts,
  };
}
const margin = (cash: string) => new Portfolio({ quoteCoin: 'USDT', cash: { USDT: cash }, margin: MODEL });
const s = (d: Decimal | undefined): string | undefined => d?.toFixed();

describe('a MARGIN bot portfolio keeps its loans as the simulator does', () => {
  it('a short borrows the base coin at the fill value and accrues interest at each period boundary', () => {
    const p = margin('1000');
    p.applyFill(fill('sell', '2', '100', 1500)); // proceeds 200 - fee 0.2
    expect(s(p.cash('USDT'))).toBe('1199.8');
    expect(s(p.position('AAPLUSDT').quantity)).toBe('-2');
    const [loan] = p.margin(1999)?.loans ?? [];
    expect({
      coin: loan?.coin,
      qty: s(loan?.qty),
      basis: s(loan?.basis),
      interest: s(loan?.interest),
    }).toEqual({
      coin: 'AAPL',
      qty: '2',
      basis: '200',
      interest: '0', // no boundary in (1500, 1999]
    });
    expect(s(p.margin(2000)?.interest)).toBe('2'); // one boundary: 200 x 1%
    expect(s(p.margin(4500)?.interest)).toBe('6'); // 2000, 3000, 4000
  });

  it('a cover repays pro rata, and the last part pays the whole interest from cash', () => {
    const p = margin('1000');
    p.applyFill(fill('sell', '2', '100', 1500));
    p.applyFill(fill('buy', '1', '90', 2500)); // 90.09 out; interest 2 so far, owed on
    let m = p.margin(2500);
    expect([s(m?.loans[0]?.qty), s(m?.loans[0]?.basis), s(m?.interest)]).toEqual(['1', '100', '2']);
    expect(s(p.cash('USDT'))).toBe('1109.71');
    p.applyFill(fill('buy', '1', '95', 3200)); // 95.095 out, interest 2 + 100 x 1% at 3000 = 3 paid
    m = p.margin(9000);
    expect(m?.loans).toEqual([]);
    expect([s(m?.interest), s(m?.interestPaid), s(m?.riskRatio)]).toEqual(['0', '3', '0']);
    expect(s(p.cash('USDT'))).toBe('1011.615');
    expect(s(p.position('AAPLUSDT').quantity)).toBe('0');
  });

  it('a sell beyond the long held borrows only the rest', () => {
    const p = margin('1000');
    p.applyFill(fill('buy', '1', '100', 1000));
    p.applyFill(fill('sell', '3', '100', 1100));
    const loan = p.margin(1100)?.loans[0];
    expect([loan?.coin, s(loan?.qty), s(loan?.basis)]).toEqual(['AAPL', '2', '200']);
  });

  it('a buy beyond cash borrows the quote coin; the sale repays it with its interest', () => {
    const p = margin('100');
    p.applyFill(fill('buy', '2', '100', 1500)); // costs 200.2: 100.2 borrowed
    const loan = p.margin(1500)?.loans[0];
    expect([loan?.coin, s(loan?.qty), s(loan?.basis)]).toEqual(['USDT', '100.2', '100.2']);
    expect(s(p.cash('USDT'))).toBe('-100.2');
    p.applyFill(fill('sell', '2', '110', 3500)); // 219.78 in; interest 100.2 x 1% x 2 = 2.004
    expect(s(p.cash('USDT'))).toBe('117.576');
    expect([p.margin(3500)?.loans.length, s(p.margin(3500)?.interestPaid)]).toEqual([0, '2.004']);
  });

  it('the risk ratio is the loans at their marks plus interest over the positive balances', () => {
    const p = margin('1000');
    p.applyFill(fill('sell', '2', '100', 1500));
    p.mark('AAPLUSDT', '110');
    const m = p.margin(4500); // liabilities 2 x 110 + 6; assets the cash 1199.8
    expect([s(m?.liabilities), s(m?.assets)]).toEqual(['226', '1199.8']);
    expect(m?.riskRatio.eq(new Decimal('226').div('1199.8'))).toBe(true);
  });

  it('a SPOT portfolio has no margin account', () => {
    expect(new Portfolio({ quoteCoin: 'USDT' }).margin(0)).toBeUndefined();
  });
});
