// A bot that starts after another on the same venue shares its polls (one feed hub): the session, the rules
// and the prices the first bot already has must reach it too. The session is said only at a transition,
// so a bot that waited for the next one got no candle for hours (the demo's second and third bots sat
// DEGRADED until the 09:30 open; the starvation e2e test's second bot never traded under load).
import { describe, expect, it } from 'vitest';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { idle } from './fixtures/strategies.js';

const CREDS = { apiKey: 'late-key', apiSecret: 'late-secret', passphrase: 'late-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET: the next transition is the 16:00 close
const SPEED = 60;

describe('a bot started after another on the same venue', () => {
  it('gets its candles at once, without waiting for the next session transition', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 7, speed: SPEED, startTime: START },
      runtime: { staleAfterMs: 60_000 },
    });
    try {
      const risk = RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 60_000 });
      const first = await venue.createLiveBot({ name: 'first', strategy: idle, risk });
      first.bot.start();
      await waitFor(() => first.bot.status().lastCandle, {
        timeoutMs: 30_000,
        what: "the first bot's candle",
      });
      const startedAt = venue.clock.now();
      const late = await venue.createLiveBot({ name: 'late', strategy: idle, risk, symbols: ['TSLAUSDT'] });
      late.bot.start();
      // Two venue minutes is time for the next candle to close; the next transition is six venue hours away.
      await waitFor(() => late.bot.status().lastCandle, {
        timeoutMs: 30_000,
        what: "the late bot's first candle",
      });
      expect(venue.clock.now() - startedAt).toBeLessThan(3 * 60_000);
    } finally {
      await venue.close();
    }
  }, 60_000);
});
