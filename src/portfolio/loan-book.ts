// A MARGIN bot's own account of its loans, from its fills and the venue's clock, with the margin model's
// functions (src/market/margin.ts) as the simulator's margin accounts book them (docs/margin.md): the spec
// has no endpoint for an account's loans.
import { Decimal, ONE, ZERO, aboveZero } from '../market/decimal.js';
import {
  accrueInterest,
  borrow,
  emptyLoan,
  repay,
  riskRatio,
  type Loan,
  type MarginModel,
} from '../market/margin.js';
import type { MarginFigures } from './view.js';

/** One MARGIN fill as the loans see it: what it moved of each coin, and the balances before. */
export interface LoanFill {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  readonly ts: number;
  readonly price: Decimal;
  /** Base coin in (+, a buy) or out (-, a sell). */
  readonly baseMove: Decimal;
  /** Quote coin in (+, a sell's proceeds less fee) or out (-, a buy's cost and fee). */
  readonly quoteMove: Decimal;
  readonly baseBefore: Decimal;
  readonly quoteBefore: Decimal;
  /**
   * The venue's liquidation of the position: it repays, and borrows nothing (what it costs beyond the cash is a
   * deficit of the account, a negative balance, as the simulator books it, not a loan).
   */
  readonly liquidation?: boolean | undefined;
}

/** The loans of one bot, one per coin (cross margin). */
export class LoanBook {
  private readonly loans = new Map<string, Loan>();
  private paid = ZERO;

  constructor(private readonly model: MarginModel) {}

  /** Whether any loan is open (interest aside, nothing to value). */
  get owing(): boolean {
    return this.loans.size > 0;
  }

  /**
   * Books a MARGIN fill: what the bot lacks of the coin it pays with is borrowed (a sell beyond the base held
   * borrows the base coin at the fill's price; a buy beyond the quote cash borrows the quote coin at 1), and
   * what it brings in repays the loan of that coin, the interest with its last part. Answers the interest
   * then due, which the caller takes from quote cash.
   */
  book(f: LoanFill): Decimal {
    for (const [coin, loan] of this.loans) this.loans.set(coin, accrueInterest(loan, f.ts, this.model));
    let due = ZERO;
    if (aboveZero(f.baseMove)) {
      due = this.repayLoan(f.baseCoin, f.baseMove);
      const lack = f.quoteMove.neg().minus(Decimal.max(f.quoteBefore, ZERO));
      if (aboveZero(lack) && f.liquidation !== true) this.borrowLoan(f.quoteCoin, f.symbol, lack, ONE, f.ts);
    } else {
      const lack = f.baseMove.neg().minus(Decimal.max(f.baseBefore, ZERO));
      if (aboveZero(lack) && f.liquidation !== true)
        this.borrowLoan(f.baseCoin, f.symbol, lack, f.price, f.ts);
      due = this.repayLoan(f.quoteCoin, f.quoteMove);
    }
    this.paid = this.paid.plus(due);
    return due;
  }

  private borrowLoan(coin: string, symbol: string, qty: Decimal, price: Decimal, ts: number): void {
    this.loans.set(coin, borrow(this.loans.get(coin) ?? emptyLoan(coin, symbol, ts), qty, price));
  }

  private repayLoan(coin: string, amount: Decimal): Decimal {
    const loan = this.loans.get(coin);
    if (loan === undefined || !aboveZero(amount)) return ZERO;
    const r = repay(loan, amount);
    if (r.loan.qty.isZero()) this.loans.delete(coin);
    else this.loans.set(coin, r.loan);
    return r.interestDue;
  }

  /**
   * The loans with their interest accrued up to venue time `now`, and the risk ratio: every positive balance
   * and every loan valued by `mark` (the quote coin at 1), the interest added to the liabilities.
   */
  figures(
    now: number,
    balances: Iterable<[string, Decimal]>,
    mark: (coin: string) => Decimal,
  ): MarginFigures {
    const loans = [...this.loans.keys()]
      .sort()
      .map((coin) => accrueInterest(this.loans.get(coin) as Loan, now, this.model));
    let assets = ZERO;
    for (const [coin, held] of balances) if (aboveZero(held)) assets = assets.plus(held.mul(mark(coin)));
    let interest = ZERO;
    let liabilities = ZERO;
    for (const l of loans) {
      interest = interest.plus(l.interest);
      liabilities = liabilities.plus(l.qty.mul(mark(l.coin))).plus(l.interest);
    }
    return {
      loans,
      interest,
      interestPaid: this.paid,
      assets,
      liabilities,
      riskRatio: riskRatio(assets, liabilities),
    };
  }
}
