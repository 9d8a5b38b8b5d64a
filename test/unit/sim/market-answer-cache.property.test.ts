// The public market answers are kept per millisecond (the gateway), per closed-candle run and per second
// of ticker fields (the market model). A simulator that has answered many queries at earlier instants
// answers each one with the same bytes as a simulator made cold for that instant, whatever the order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { Gateway, SimEngine } from '../../../src/sim/index.js';

const START = Date.UTC(2026, 10, 23, 15);

const QUERIES: readonly (readonly [string, string])[] = [
  ['/api/v3/market/tickers', 'category=SPOT'],
  ['/api/v3/market/tickers', 'category=SPOT&symbol=TSLAUSDT'],
  ['/api/v3/market/tickers', 'category=USDT-FUTURES&symbol=BTCUSDT'],
  ['/api/v3/market/orderbook', 'category=SPOT&symbol=BTCUSDT&limit=3'],
  ['/api/v3/market/rpi-orderbook', 'category=SPOT&symbol=BTCUSDT'],
  ['/api/v3/market/fills', 'category=SPOT&symbol=TSLAUSDT&limit=5'],
  ['/api/v3/market/candles', 'category=SPOT&symbol=BTCUSDT&interval=1m&limit=30'],
  ['/api/v3/market/candles', 'category=SPOT&symbol=TSLAUSDT&interval=5m&limit=20'],
  ['/api/v3/market/candles', 'category=USDT-FUTURES&symbol=BTCUSDT&interval=1H&limit=10&type=mark'],
  ['/api/v3/market/candles', 'category=USDT-FUTURES&symbol=BTCUSDT&interval=3m&limit=12&type=premium'],
  ['/api/v3/market/candles', `category=SPOT&symbol=BTCUSDT&interval=1m&startTime=${START + 90_000}`],
  ['/api/v3/market/history-candles', `category=SPOT&symbol=BTCUSDT&interval=1m&endTime=${START - 61_234}`],
];

function simulator(cadence: number) {
  const clock = new VirtualClock(START);
  const gateway = new Gateway(new SimEngine({ seed: 5, clock, rateLimits: false, bookCadenceMs: cadence }));
  const ask = (q: readonly [string, string]) =>
    gateway.handle({ method: 'GET', path: q[0], rawQuery: q[1], rawBody: '', headers: {}, ip: '127.0.0.1' });
  return { clock, ask };
}

describe('cached market answers', () => {
  it('are the bytes a cold simulator answers at the same instant', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1000, 250),
        fc.array(
          fc.oneof(
            fc.constant(0),
            fc.integer({ min: 1, max: 1500 }),
            fc.integer({ min: 50_000, max: 70_000 }),
            fc.integer({ min: 0, max: 7_200_000 }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        (cadence, steps) => {
          const warm = simulator(cadence);
          let t = START;
          for (const step of steps) {
            t += step;
            warm.clock.set(t);
            const cold = simulator(cadence);
            cold.clock.set(t);
            for (const q of QUERIES) {
              const first = warm.ask(q);
              expect(first.status).toBe(200);
              expect(warm.ask(q)).toEqual(first);
              expect(first).toEqual(cold.ask(q));
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
