// The risk gate, its limits and the trading state machine.
export * from './gate.js';
export * from './limits.js';
export * from './trading-state.js';
