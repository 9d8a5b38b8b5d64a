// Types of eslint.config.js for the tests that read its layer list (test/unit/house/rooms.test.ts).
export declare const LAYERS: readonly (readonly string[])[];
declare const config: unknown;
export default config;
