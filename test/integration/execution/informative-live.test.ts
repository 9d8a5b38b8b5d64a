// Informative timeframes on the live path: a bot on 1m candles that declares 5m gets each 5m candle
// resampled from the polled 1m stream (FeedHub -> LiveBot), never before it closed and never partial.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Candle } from '../../../src/market/candle.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { defineStrategy } from '../../../src/strategy/index.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';

const CREDS = { apiKey: 'bot-key', apiSecret: 'bot-secret', passphrase: 'bot-pass' };
const START = Date.UTC(2026, 10, 23, 15, 2); // Monday 10:02 ET: inside a 5m bucket
const SPEED = 120;
const M = 60_000;

interface Seen {
  readonly candle: Candle;
  /** The venue's time when the strategy got it. */
  readonly at: number;
}

describe('informative candles on the live feed path', () => {
  it('reach the strategy only after their close, built from the five 1m candles it saw before', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 11, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const seen: Seen[] = [];
    const recorder = defineStrategy({
      name: 'recorder',
      description: 'Records every candle it is handed, for tests.',
      params: z.object({}),
      intervals: ['1m'],
      informative: ['5m'],
      // Ten closed 5m candles before the first live one: the backfill reaches back for them.
      startupCandles: 10,
      onCandle(candle, ctx) {
        seen.push({ candle, at: ctx.clock.now() });
      },
    });
    const { bot } = await venue.createLiveBot({
      name: 'rec',
      strategy: recorder,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
      fillPollMs: 200,
      maxSignalAgeMs: 3 * M,
    });
    const live5m = () => seen.filter((s) => s.candle.interval === '5m' && s.candle.openTime + 5 * M > START);
    bot.start();
    try {
      // Backfilled history first, then at least one 5m candle that closed while the bot was running.
      await waitFor(() => live5m().length >= 1, { timeoutMs: 25_000, what: 'a 5m candle closed live' });
    } finally {
      await venue.close();
    }
    const higher = seen.filter((s) => s.candle.interval === '5m');
    // The warm-up's ten 5m candles, each closed when the bot started, then the live ones.
    const backfilled = higher.filter((h) => h.candle.openTime + 5 * M <= (seen[0] as Seen).at);
    expect(backfilled.length).toBeGreaterThanOrEqual(10);
    expect(backfilled.length).toBeLessThanOrEqual(11); // a 5m boundary may pass before the backfill arrives
    for (const h of higher) {
      const c = h.candle;
      // Never before its close.
      expect(h.at).toBeGreaterThanOrEqual(c.openTime + 5 * M);
      // Never partial: the five 1m candles of its bucket, four before it and the one that closes the
      // bucket right after it (a strategy deciding on that one already knows the 5m candle).
      const i = seen.indexOf(h);
      const parts = seen
        .slice(0, i + 2)
        .map((s) => s.candle)
        .filter((b) => b.interval === '1m' && b.openTime >= c.openTime && b.openTime < c.openTime + 5 * M);
      expect(parts.map((b) => (b.openTime - c.openTime) / M)).toEqual([0, 1, 2, 3, 4]);
      expect(c.open).toBe(parts[0]?.open);
      expect(c.close).toBe(parts[4]?.close);
      expect(c.high).toBe(Math.max(...parts.map((b) => b.high)));
      expect(c.low).toBe(Math.min(...parts.map((b) => b.low)));
      expect(seen[i + 1]?.candle).toMatchObject({ interval: '1m', openTime: c.openTime + 4 * M });
    }
    // The 5m bucket the backfill starts in is never handed out (it would be partial).
    const first1m = seen.find((s) => s.candle.interval === '1m')?.candle.openTime ?? 0;
    expect(higher.every((h) => h.candle.openTime >= first1m)).toBe(true);
  }, 40_000);
});
