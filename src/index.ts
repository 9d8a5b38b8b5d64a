// The tradebot library entry point: the wire catalogue, the REST client, the simulator, the strategy
// contract, the risk gate and the backtester.
export * from './api/index.js';
export * from './client/index.js';
export { startSimulator, type Simulator, type SimulatorOptions } from './sim/index.js';
export * from './strategy/index.js';
export * from './risk/index.js';
export { Decimal, dec, toWire } from './market/decimal.js';
export { usSessionAt, type SessionState } from './market/sessions.js';
export { parseInstrument, type InstrumentRules } from './market/instrument-rules.js';
export { runBacktest, type BacktestOptions } from './backtest/engine.js';
export { openDataset, listDatasets } from './backtest/datasets.js';
export { loadConfig, ConfigError } from './config/index.js';
