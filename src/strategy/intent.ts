// The order intent types live in market/intent.ts (the lowest layer that needs them); strategies import
// them from here.
export * from '../market/intent.js';
