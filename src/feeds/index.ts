// RxJS market-data streams built from polling, and the Clock port.
export * from './clock.js';
export * from './poll.js';
export * from './source.js';
export * from './closed-candles.js';
export * from './informative.js';
export * from './session.js';
export * from './hub.js';
export * from './time-scale.js';
export * from './venue-clock.js';
