// A bot's money figures, computed once: every surface (terminal, logs, /readyz, metrics, CLI, dashboard,
// notifications) shows these, formatted by the one money formatter (formatMoney: 2 places, half-even).
import type { Decimal } from '../market/decimal.js';
import type { Portfolio } from './portfolio.js';

/** The valuation rule, as surfaces state it. */
export const VALUATION_RULE =
  "positions are valued at the mark: the venue's last traded price of their symbol (its age is shown)";

/** Exact figures (Decimal); rounding belongs to the formatter, never here. */
export interface MoneyFigures {
  /** Cash plus positions at their marks, in the quote coin. */
  readonly equity: Decimal;
  /** Before fees. */
  readonly realisedPnl: Decimal;
  /** At the marks. */
  readonly unrealisedPnl: Decimal;
  readonly fees: Decimal;
  /** realised + unrealised - fees. */
  readonly net: Decimal;
}

/** The figures of a portfolio whose marks are the venue's last traded prices. */
export function moneyFigures(p: Portfolio): MoneyFigures {
  const realisedPnl = p.realisedPnl();
  const unrealisedPnl = p.unrealisedPnl();
  const fees = p.fees();
  return {
    equity: p.equity(),
    realisedPnl,
    unrealisedPnl,
    fees,
    net: realisedPnl.plus(unrealisedPnl).minus(fees),
  };
}
