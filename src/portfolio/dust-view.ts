// The portfolio as a strategy sees it: a position that is dust (src/market/dust.ts) reads as flat, and
// `dust(symbol)` says what is left behind. Built once per strategy context (src/strategy/context.ts).
import { ZERO, type Decimal } from '../market/decimal.js';
import { isDust } from '../market/dust.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { PortfolioView, PositionView } from './view.js';

/** The strategy's portfolio: dust reads as flat, and is asked for apart. */
export interface StrategyPortfolioView extends PortfolioView {
  /**
   * The dust held of a symbol: a position below the venue's minimum tradable quantity, which no order can
   * sell alone (zero when the position is flat or tradable). `position(symbol)` reads such a position as flat.
   */
  dust(symbol: string): Decimal;
}

type Rules = (symbol: string) => InstrumentRules | undefined;

const flat = (p: PositionView): PositionView => ({
  symbol: p.symbol,
  quantity: ZERO,
  avgPrice: ZERO,
  realisedPnl: p.realisedPnl,
});

/** `view` with its dust positions read as flat (see StrategyPortfolioView). */
export function withoutDust(view: PortfolioView, rules: Rules): StrategyPortfolioView {
  const dustOf = (p: PositionView): boolean => !p.quantity.isZero() && isDust(rules(p.symbol), p.quantity);
  return {
    position(symbol) {
      const p = view.position(symbol);
      return dustOf(p) ? flat(p) : p;
    },
    positions: () => view.positions().map((p) => (dustOf(p) ? flat(p) : p)),
    cash: (coin) => view.cash(coin),
    equity: () => view.equity(),
    margin: (now) => view.margin?.(now),
    dust(symbol) {
      const p = view.position(symbol);
      return dustOf(p) ? p.quantity : ZERO;
    },
  };
}

/** The dust of every symbol that holds some, sorted by symbol (the status, the dashboard, result.json). */
export function dustPositions<P extends PositionView>(positions: readonly P[], rules: Rules): P[] {
  return positions.filter((p) => !p.quantity.isZero() && isDust(rules(p.symbol), p.quantity));
}
