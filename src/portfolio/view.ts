// The read-only view of the portfolio that strategies and the risk gate see.
import type { Decimal } from '../market/decimal.js';
import type { Loan } from '../market/margin.js';

export interface PositionView {
  readonly symbol: string;
  /** Signed base-coin quantity (negative = short, where the category allows it). */
  readonly quantity: Decimal;
  /** Average entry price of the open quantity; zero when flat. */
  readonly avgPrice: Decimal;
  readonly realisedPnl: Decimal;
}

export interface PortfolioView {
  /** The position of a symbol (zero quantity when none). */
  position(symbol: string): PositionView;
  positions(): readonly PositionView[];
  /** Free balance of a coin. */
  cash(coin: string): Decimal;
  /** Equity in the quote coin at the last marks. */
  equity(): Decimal;
  /**
   * A MARGIN bot's loans at venue time `now` (interest accrued up to it, the simulator's model in
   * src/market/margin.ts) and its risk ratio at the marks; undefined for a SPOT bot (docs/margin.md).
   */
  margin?(now: number): MarginFigures | undefined;
}

/** A MARGIN bot's own account of its loans, at one venue time. */
export interface MarginFigures {
  /** One loan per coin owed (a short owes the base coin, a buy beyond cash the quote coin), sorted by coin. */
  readonly loans: readonly Loan[];
  /** Interest owed on every loan (quote coin), paid from cash with the last of its loan. */
  readonly interest: Decimal;
  /** Interest paid so far (quote coin; already out of cash). */
  readonly interestPaid: Decimal;
  /** Every positive balance at its mark (quote coin). */
  readonly assets: Decimal;
  /** Every loan at its mark, plus the interest owed (quote coin). */
  readonly liabilities: Decimal;
  /** liabilities / assets (0 without a loan); the pair's warningRiskRatio warns. */
  readonly riskRatio: Decimal;
}
