// The typed REST client of the v3 API.
export * from './rest-client.js';
export * from './pagination.js';
export * from './candles-range.js';
export * from './decimals.js';
export * from './venue-limiter.js';
export * from './retry.js';
export { parseLossless } from './json.js';
export { baseUrlProblem } from './base-url.js';
