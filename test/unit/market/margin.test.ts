// The simulator's margin model: interest per whole period on the borrowed value, repayment releasing the
// basis pro rata and charging the interest with the last of the loan, the risk ratio and liquidation price.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/market/decimal.js';
import {
  accrueInterest,
  borrow,
  emptyLoan,
  liquidationPrice,
  marginState,
  maxLiabilities,
  periodsCrossed,
  repay,
  riskRatio,
} from '../../../src/market/margin.js';

const H = 3_600_000;
const model = { interestRate: new Decimal('0.0001'), interestPeriodMs: H };
const d = (s: string) => new Decimal(s);

describe('margin model', () => {
  it('charges interest at each period boundary crossed, on the value borrowed', () => {
    expect(periodsCrossed(H - 1, H, H)).toBe(1);
    expect(periodsCrossed(H, 2 * H - 1, H)).toBe(0);
    let loan = borrow(emptyLoan('AAPL', 'AAPLUSDT', H / 2), d('2'), d('190'));
    loan = accrueInterest(loan, 3 * H + 5, model);
    expect(loan.interest.toFixed()).toBe('0.114'); // 380 x 0.0001 x 3
    expect(accrueInterest(loan, 3 * H + 9, model).interest.toFixed()).toBe('0.114');
  });

  it('repays part of a loan pro rata and charges the interest with the last of it', () => {
    const loan = { ...borrow(emptyLoan('AAPL', 'AAPLUSDT', 0), d('4'), d('100')), interest: d('0.5') };
    const half = repay(loan, d('1'));
    expect([half.repaid.toFixed(), half.loan.basis.toFixed(), half.interestDue.toFixed()]).toEqual([
      '1',
      '300',
      '0',
    ]);
    const all = repay(half.loan, d('10'));
    expect([all.repaid.toFixed(), all.loan.qty.toFixed(), all.interestDue.toFixed()]).toEqual([
      '3',
      '0',
      '0.5',
    ]);
  });

  it('rises toward risk: liabilities over assets, warning then liquidation', () => {
    expect(riskRatio(d('100'), d('0')).toFixed()).toBe('0');
    expect(riskRatio(d('0'), d('1')).isFinite()).toBe(false);
    expect(marginState(riskRatio(d('100'), d('85')), d('0.8'), d('1'))).toBe('warning');
    expect(marginState(d('1'), d('0.8'), d('1'))).toBe('liquidation');
    expect(maxLiabilities(d('1000'), d('3')).toFixed()).toBe('2000');
    expect(maxLiabilities(d('1000'), d('1')).toFixed()).toBe('0');
  });

  it('finds the price at which a short or a leveraged long is liquidated', () => {
    // short 10 with 2900 of cash: (10 P) / 2900 = 1 at P = 290
    expect(liquidationPrice(d('-10'), d('2900'), d('0'), d('1'))?.toFixed()).toBe('290');
    // long 10 owing 1500 of quote: 1500 / (10 P) = 1 at P = 150
    expect(liquidationPrice(d('10'), d('0'), d('1500'), d('1'))?.toFixed()).toBe('150');
    expect(liquidationPrice(d('0'), d('1'), d('1'), d('1'))).toBeUndefined();
  });
});
