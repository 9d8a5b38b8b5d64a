// A bot's feed health for status fixtures: every feed fresh (OK), or starving (DEGRADED) with the sentences the
// FeedWatch writes.
import { feedLimits, type FeedHealth } from '../../src/execution/feed-watch.js';

const limits = feedLimits({ intervalMs: 60_000, maxDataAgeMs: 15_000, fillsPollMs: 2_000 });

export const OK_HEALTH: FeedHealth = {
  state: 'OK',
  ages: { candles: 0, tickers: 0, fills: 0 },
  limits,
  problems: [],
};

export const degradedHealth = (...problems: string[]): FeedHealth => ({
  state: 'DEGRADED',
  ages: { candles: limits.candles + 1, tickers: 0, fills: 0 },
  limits,
  problems,
});
