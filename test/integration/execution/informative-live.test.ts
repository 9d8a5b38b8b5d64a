// Informative timeframes on the live path: a bot on 1m candles that declares 5m gets each 5m candle
// resampled from the polled 1m stream (FeedHub -> LiveBot), never before it closed and never partial.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Candle } from '../../../src/market/candle.js';
import { createLiveBot, createVenueRuntime } from '../../../src/execution/runtime.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { startSimulator } from '../../../src/sim/index.js';
import { openStore } from '../../../src/store/index.js';
import { defineStrategy } from '../../../src/strategy/index.js';
import { silentLogger } from '../../../src/strategy/testing.js';
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

const dir = mkdtempSync(join(tmpdir(), 'tradebot-informative-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('informative candles on the live feed path', () => {
  it('reach the strategy only after their close, built from the five 1m candles it saw before', async () => {
    const sim = await startSimulator({
      seed: 11,
      speed: SPEED,
      startTime: START,
      accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '10000' } }],
    });
    const clock = { now: () => sim.engine.now() };
    const seen: Seen[] = [];
    const recorder = defineStrategy({
      name: 'recorder',
      description: 'Records every candle it is handed, for tests.',
      params: z.object({}),
      intervals: ['1m'],
      informative: ['5m'],
      onCandle(candle, ctx) {
        seen.push({ candle, at: ctx.clock.now() });
      },
    });
    const runtime = createVenueRuntime({
      baseUrl: sim.baseUrl,
      credentials: CREDS,
      clock,
      speed: SPEED,
      cadences: { tickersMs: 5_000 },
      staleAfterMs: 60_000,
    });
    const store = openStore(join(dir, 'live.db'), { clock });
    const { bot } = await createLiveBot({
      runtime,
      store,
      logger: silentLogger,
      spec: {
        name: 'rec',
        strategy: recorder,
        params: {},
        category: 'SPOT',
        symbols: ['AAPLUSDT'],
        interval: '1m',
        risk: RiskLimitsSchema.parse({
          allowedSessions: ['regular'],
          whitelisted: true,
          maxDataAgeMs: 60_000,
        }),
        quoteCoin: 'USDT',
        capital: '10000',
        feeRate: '0.001',
        fillPollMs: 200,
        maxSignalAgeMs: 3 * M,
      },
    });
    const live5m = () => seen.filter((s) => s.candle.interval === '5m' && s.candle.openTime + 5 * M > START);
    bot.start();
    try {
      // Backfilled history first, then at least one 5m candle that closed while the bot was running.
      await waitFor(() => live5m().length >= 1, { timeoutMs: 25_000, what: 'a 5m candle closed live' });
    } finally {
      await bot.stop();
      runtime.close();
      store.close();
      await sim.stop();
    }
    const higher = seen.filter((s) => s.candle.interval === '5m');
    expect(higher.length).toBeGreaterThan(5);
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
