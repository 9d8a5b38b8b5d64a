// The wire, pure and I/O-free: resources, catalogue, parameters, signing, envelope and errors.
export * from './resources.js';
export * from './params.js';
export * from './history-windows.js';
export * from './catalogue.js';
export * from './signing.js';
export * from './envelope.js';
export * from './errors.js';
export * from './venue-order.js';
