// The strategy package: the contract, the callback style, intent builders, parameters, state and loader.
export * from './intent.js';
export * from './intent-builders.js';
export * from './contract.js';
export * from './params.js';
export * from './state.js';
export * from './loader.js';
export * from './indicators.js';
export * from './catalogue.js';
export * from './time-in-force.js';
export * from './exits.js';
export * from './warm-up.js';
export * from './plot.js';
export type { SearchSpaceInput } from './search-space.js';
