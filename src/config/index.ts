// YAML deployments: schema, loading with positions, JSON Schema export.
export * from './schema.js';
export * from './load.js';
export * from './backtest-schema.js';
export * from './deployment.js';
export * from './notify-schema.js';
export * from './paper.js';
