// A start of many bots on one feed hub, against the simulator on loopback: 200 bots on 50 symbols (four
// bots a symbol, as a deployment of four strategies on the same list) ask the venue for candles through one
// poll a symbol, one candles read a boundary, and history-candles only for the warm-up backfill: at most one
// request a symbol for that one real gap, none for a poll that ran a little late. A bot that joins a symbol's
// candles after another bot's warm-up hears that warm-up at once, without a request of its own.
import { describe, expect, it } from 'vitest';
import type { ParamsIn } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { FeedHub } from '../../../src/feeds/hub.js';
import type { MarketDataSource } from '../../../src/feeds/source.js';
import { ScaledScheduler, scaledSleep } from '../../../src/feeds/time-scale.js';
import type { Candle } from '../../../src/market/candle.js';
import { startSimulator } from '../../../src/sim/index.js';
import { waitFor } from '../../helpers/wait-for.js';

const START = Date.UTC(2026, 10, 23, 15); // a Monday, US regular hours
const SPEED = 60;
const M = 60_000;

describe('closed candles of a 200-bot start', () => {
  it('reads candles once a boundary per symbol, and history-candles once per symbol for the warm-up gap', async () => {
    const sim = await startSimulator({ seed: 9, speed: SPEED, startTime: START, extraPairs: 50 });
    const clock = { now: () => sim.engine.now() };
    const client = new RestClient({
      baseUrl: sim.baseUrl,
      clock,
      sleep: scaledSleep(SPEED),
      rateLimit: { timeScale: SPEED },
    });
    try {
      const symbols = (await client.instruments({ category: 'SPOT' }))
        .filter((i) => i.isReality === 'yes')
        .map((i) => i.symbol)
        .slice(0, 50);
      expect(symbols).toHaveLength(50);
      const asked = { candles: new Map<string, number>(), historyCandles: new Map<string, number>() };
      // The client as the feeds' source, each candles request counted by endpoint and symbol.
      const source = new Proxy(client, {
        get(target, key, receiver) {
          if (key !== 'timed') return Reflect.get(target, key, receiver) as unknown;
          return (name: 'candles' | 'historyCandles', p: ParamsIn<'candles'>) => {
            asked[name].set(p.symbol, (asked[name].get(p.symbol) ?? 0) + 1);
            return client.timed(name, p);
          };
        },
      }) as unknown as MarketDataSource;
      const hub = new FeedHub({ source, clock, scheduler: new ScaledScheduler(clock, SPEED) });
      const start = clock.now();
      const seen = new Map<string, Candle[]>();
      const subs = [];
      for (let bot = 0; bot < 200; bot++) {
        const symbol = symbols[bot % 50] as string;
        subs.push(
          hub.closedCandlesWithInformative$('SPOT', symbol, '1m', [], undefined, 30).subscribe((c) => {
            if (bot < 50) seen.set(symbol, [...(seen.get(symbol) ?? []), c]);
          }),
        );
      }
      // Five venue minutes after the start: the warm-up and five boundaries' candles of every symbol.
      const end = Math.floor(start / M) * M + 5 * M;
      await waitFor(() => symbols.every((s) => (seen.get(s)?.at(-1)?.openTime ?? 0) >= end - M), {
        timeoutMs: 60_000,
        what: 'the candle that closed five venue minutes after the start, for every symbol',
      });
      for (const sub of subs) sub.unsubscribe();
      const boundaries = Math.ceil((clock.now() - start) / M);
      for (const s of symbols) {
        expect(asked.historyCandles.get(s), s).toBe(1);
        expect(asked.candles.get(s) ?? 0, s).toBeLessThanOrEqual(boundaries + 1);
        const opens = (seen.get(s) ?? []).map((c) => c.openTime);
        expect(opens.length, s).toBeGreaterThanOrEqual(35);
        expect(opens, s).toEqual(opens.map((_, k) => (opens[0] as number) + k * M));
      }
    } finally {
      client.close();
      await sim.stop();
    }
  });

  it('gives a bot joining a symbol after the warm-up the last warm-up candles at once, with no request of its own', async () => {
    const sim = await startSimulator({ seed: 9, speed: SPEED, startTime: START, extraPairs: 1 });
    const clock = { now: () => sim.engine.now() };
    const client = new RestClient({
      baseUrl: sim.baseUrl,
      clock,
      sleep: scaledSleep(SPEED),
      rateLimit: { timeScale: SPEED },
    });
    try {
      const symbol = (await client.instruments({ category: 'SPOT' })).find((i) => i.isReality === 'yes')
        ?.symbol as string;
      let history = 0;
      const source = new Proxy(client, {
        get(target, key, receiver) {
          if (key !== 'timed') return Reflect.get(target, key, receiver) as unknown;
          return (name: 'candles' | 'historyCandles', p: ParamsIn<'candles'>) => {
            if (name === 'historyCandles') history++;
            return client.timed(name, p);
          };
        },
      }) as unknown as MarketDataSource;
      const hub = new FeedHub({ source, clock, scheduler: new ScaledScheduler(clock, SPEED) });
      const first: Candle[] = [];
      const a = hub.closedCandlesWithInformative$('SPOT', symbol, '1m', [], undefined, 30).subscribe((c) => {
        first.push(c);
      });
      // The warm-up and two live candles: the joiner comes well after the backfill.
      await waitFor(() => first.length >= 32, {
        timeoutMs: 60_000,
        what: 'the warm-up and two live candles',
      });
      const asked = history;
      const joiner: Candle[] = [];
      const b = hub.closedCandlesWithInformative$('SPOT', symbol, '1m', [], undefined, 30).subscribe((c) => {
        joiner.push(c);
      });
      const heard = joiner.map((c) => c.openTime);
      const last = (first.at(-1) as Candle).openTime;
      // At once: the 30 candles up to the last one the first bot heard, in order.
      expect(heard).toEqual(Array.from({ length: 30 }, (_, k) => last - (29 - k) * M));
      // Then the live candles as the first bot hears them.
      await waitFor(() => first.length >= 34, { timeoutMs: 60_000, what: 'two more live candles' });
      expect(joiner.map((c) => c.openTime)).toEqual(first.slice(-joiner.length).map((c) => c.openTime));
      expect(history).toBe(asked);
      a.unsubscribe();
      b.unsubscribe();
    } finally {
      client.close();
      await sim.stop();
    }
  });
});
