// The tradebot library entry point: the wire catalogue, the REST client, the simulator, the strategy
// contract, the risk gate and the backtester. A strategy imports everything it needs from here
// (`import { defineStrategy, buyMarket, z } from 'tradebot'`), wherever its file lives.
export * from './api/index.js';
export * from './client/index.js';
export { startSimulator, type Simulator, type SimulatorOptions } from './sim/index.js';
// The whole strategy API: contract, callback style, intent builders, parameters, state, indicators, loader.
export * from './strategy/index.js';
// Testing a strategy on scripted candles without a venue.
export * from './strategy/testing.js';
export * from './risk/index.js';
export { Decimal, dec, toWire, ZERO } from './market/decimal.js';
export { closeTimeOf, type Candle } from './market/candle.js';
export {
  etParts,
  etToUtc,
  isTradingDay,
  usRegularSession,
  usSessionAt,
  type EtParts,
  type SessionOrClosed,
  type SessionState,
} from './market/sessions.js';
export { parseInstrument, type InstrumentRules } from './market/instrument-rules.js';
export type { PortfolioView, PositionView } from './portfolio/view.js';
export type { StrategyPortfolioView } from './portfolio/dust-view.js';
export { VirtualClock, type Clock } from './feeds/clock.js';
export { runBacktest, type BacktestOptions } from './backtest/engine.js';
export { openDataset, listDatasets } from './data/datasets.js';
export { loadConfig, ConfigError } from './config/index.js';
// What strategies are written with, so a strategy folder needs no dependencies of its own: zod for the
// parameters. The common trading-signals indicators (ATR, BollingerBands, EMA, MACD, RSI, SMA) come with the
// strategy API above, each answering null until it is stable (src/strategy/indicators.ts); wrap any other
// one the same way: `nullUntilStable(WMA)` with WMA from 'trading-signals'.
export { z } from 'zod';
