// The read-only view of the portfolio that strategies and the risk gate see.
import type { Decimal } from '../market/decimal.js';

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
}
