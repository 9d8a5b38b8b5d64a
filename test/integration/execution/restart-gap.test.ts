// A restart with a signal in its gap: the bot is stopped, candles close while it is down, and the restarted
// bot warms up on the candles up to the last one it decided (the journal's mark), then decides every later
// one as live, in order: the candles of the gap are traded (or their denial journaled, with the reason),
// exactly as the backtest of the venue's own candles decides them.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, defineStrategy } from '../../../src/strategy/index.js';
import { barsSource, type TimedBar } from '../../helpers/candle-series.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';

const CREDS = { apiKey: 'bot-key', apiSecret: 'bot-secret', passphrase: 'bot-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const SPEED = 120;
const M = 60_000;
const WARM = 5;

/** Buys 10 USDT on every candle, its open time and close as the reason: the signal names its candle's data. */
const eager = defineStrategy({
  name: 'eager',
  description: 'Buys on every candle, for tests.',
  params: z.object({}),
  intervals: ['1m'],
  startupCandles: WARM,
  onCandle(c, _ctx, emit) {
    emit(buyMarket(c.symbol, new Decimal('10'), 'eager', `${c.openTime} ${c.close.toString()}`));
  },
});
const risk = RiskLimitsSchema.parse({
  allowedSessions: ['regular'],
  whitelisted: true,
  maxDataAgeMs: 60_000,
});
const openOf = (reason: string | undefined) => Number(reason?.split(' ')[0]);

describe('a restart with candles closed while the bot was down', () => {
  it('decides the candles of the gap as live, as the backtest of the venue’s candles does', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 5, speed: SPEED, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    try {
      const events: TraderEvent[] = [];
      const spec = { name: 'eager', strategy: eager, risk, fillPollMs: 200, maxSignalAgeMs: 3 * M };
      const intents = () => events.filter((e) => e.type === 'intent').map((e) => e.intent.reason);
      const first = await venue.createLiveBot(spec, { onEvent: (e) => events.push(e) });
      first.bot.start();
      await waitFor(() => intents().length >= 2, { timeoutMs: 20_000, what: 'two intents sent' });
      await first.bot.stop();
      await venue.restart();
      const mark = Number(venue.store.meta.get('candle:eager:AAPLUSDT:1m'));
      expect(openOf(intents().at(-1))).toBe(mark);
      // Two candles close while the bot is down: the first of them is the signal in flight at the stop.
      await waitFor(() => venue.clock.now() >= mark + 3 * M, {
        timeoutMs: 20_000,
        what: 'two candles closed after the mark',
      });
      const second = await venue.createLiveBot(spec, { onEvent: (e) => events.push(e) });
      second.bot.start();
      await waitFor(() => intents().some((r) => openOf(r) >= mark + 3 * M), {
        timeoutMs: 20_000,
        what: 'the first candle after the gap decided',
      });
      await second.bot.stop();

      const live = intents();
      // The gap's candles were decided, once each, in order: none swallowed by the second warm-up.
      const after = live.filter((r) => openOf(r) > mark).map(openOf);
      expect(after.slice(0, 3)).toEqual([mark + M, mark + 2 * M, mark + 3 * M]);
      // Each went through the gate: an order, or a denial journaled with its reason.
      for (const r of live.filter((x) => openOf(x) > mark && openOf(x) <= mark + 2 * M)) {
        const outcome = events.find(
          (e) => (e.type === 'order' || e.type === 'denied') && e.intent.reason === r,
        );
        expect(outcome, r).toBeDefined();
        if (outcome?.type === 'denied') expect(outcome.message.length).toBeGreaterThan(0);
      }

      // The backtest of the venue's candles over the same span decides the same candles, with the same data.
      const firstOpen = openOf(live[0]) - (WARM - 1) * M;
      const lastOpen = openOf(live.at(-1));
      const rows = await venue.runtime.client.historyCandles({
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        interval: '1m',
        startTime: String(firstOpen),
        endTime: String(lastOpen),
        limit: '100',
      });
      const bars: TimedBar[] = rows
        .map((w) => w.slice(0, 5).map(Number) as unknown as TimedBar)
        .filter((b) => b[0] >= firstOpen && b[0] <= lastOpen)
        .sort((a, b) => a[0] - b[0]);
      const [aapl] = await venue.runtime.client.instruments({ category: 'SPOT', symbol: 'AAPLUSDT' });
      const backtest: (string | undefined)[] = [];
      await runBacktest({
        source: barsSource(bars, aapl!),
        dataset: 'the venue’s candles',
        strategy: eager,
        risk,
        capital: '10000',
        feeRate: '0.001',
        bot: 'eager',
        onEvent: (e) => {
          if (e.type === 'intent') backtest.push(e.intent.reason);
        },
      });
      expect(live).toEqual(backtest);
    } finally {
      await venue.close();
    }
  }, 90_000);
});
