// Positions, cash, PnL and equity; the read-only PortfolioView that strategies and risk see.
export type { MarginFigures, PortfolioView, PositionView } from './view.js';
export { dustPositions, withoutDust, type StrategyPortfolioView } from './dust-view.js';
export {
  Portfolio,
  type PortfolioFill,
  type PortfolioOptions,
  type PortfolioSnapshot,
  type Position,
  type EquitySample,
} from './portfolio.js';
export {
  feeFor,
  fillFee,
  liquidityOf,
  type FeeRates,
  type FillLiquidityContext,
  type Liquidity,
} from './fees.js';
export { moneyFigures, VALUATION_RULE, type MoneyFigures } from './figures.js';
