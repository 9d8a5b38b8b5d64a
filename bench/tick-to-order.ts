// Tick to order, live: the daemon's pipeline (feeds, strategy, risk gate, clientOid, SQLite journal,
// executor, RestClient) against the simulator on loopback, with a strategy that orders on every candle.
// The simulator runs in a child process (bench/lib/sim-process.ts), as a venue is remote: its request
// handling and market model never run on the bot's event loop between a poll answer and the order.
// For each order: from the moment the poll answer that completes its candle is parsed (the candles
// request's promise resolves in the feed) to
//   - the venue port's call (RestVenue.placeOrder: signing and the socket write follow synchronously
//     unless the rate limiter holds the order), and
//   - the order's arrival at the simulator's engine (after loopback, HTTP parsing, authentication and
//     validation: an upper bound of "the request is written"), on the absolute clock
//     performance.timeOrigin + performance.now() of both processes.
// Baseline in the same run: what the client itself spends from placeOrder's call to the write (the
// synchronous part: validation, signing, the socket write), on the same connection.
//   npx tsx bench/tick-to-order.ts [--orders 240] [--sync-normal]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { RestClient } from '../src/client/index.js';
import { createLiveBot, followVenueClock, type VenueRuntime } from '../src/execution/runtime.js';
import { RestVenue } from '../src/execution/rest-venue.js';
import { FeedHub } from '../src/feeds/hub.js';
import type { MarketDataSource } from '../src/feeds/source.js';
import { ScaledScheduler, scaledSleep } from '../src/feeds/time-scale.js';
import { Decimal } from '../src/market/decimal.js';
import { RiskLimitsSchema } from '../src/risk/index.js';
import { openStore } from '../src/store/index.js';
import { buyMarket, defineStrategy, sellMarket } from '../src/strategy/index.js';
import { silentLogger } from '../src/strategy/testing.js';
import { numberFlag } from './lib/flags.js';
import { absoluteNow, forkSimulator } from './lib/sim-process.js';

const ORDERS = numberFlag('orders', 240);
// The journal's durability: FULL (the default: fsync before every order is sent) or NORMAL.
const SYNC = process.argv.includes('--sync-normal') ? 'NORMAL' : 'FULL';
const SPEED = 240; // four one-minute candles per second (reality-fills allows 10 requests a second)
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const CREDS = { apiKey: 'b-key', apiSecret: 'b-secret', passphrase: 'b-pass' };

const everyCandle = defineStrategy({
  name: 'every-candle',
  description: 'Buys on one candle and sells on the next, for the benchmark.',
  params: z.object({}),
  intervals: ['1m'],
  onCandle(c, ctx, emit) {
    const held = ctx.portfolio.position(c.symbol).quantity;
    emit(
      held.gt(0)
        ? sellMarket(c.symbol, held, 'out', 'bench')
        : buyMarket(c.symbol, new Decimal('100'), 'in', 'bench'),
    );
  },
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
const ms = (x: number) => `${x.toFixed(3)} ms`;

const sim = await forkSimulator({
  seed: 11,
  speed: SPEED,
  startTime: START,
  rateLimits: false,
  accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '1000000' } }],
});
// The bot follows the simulator's accelerated time as the daemon does with a simulator of its own.
const venueClock = await followVenueClock(sim.baseUrl, SPEED);

/** A runtime whose candle answers are timed as the feed parses them. */
function timedRuntime(answers: number[]): VenueRuntime {
  const clock = venueClock;
  const client = new RestClient({
    baseUrl: sim.baseUrl,
    credentials: CREDS,
    clock,
    sleep: scaledSleep(SPEED),
    whitelisted: true,
  });
  const timed = async <T>(p: Promise<T>): Promise<T> => {
    const r = await p;
    answers.push(absoluteNow());
    return r;
  };
  const source: MarketDataSource = {
    tickers: (a) => client.tickers(a),
    candles: (a) => timed(client.candles(a)),
    historyCandles: (a) => timed(client.historyCandles(a)),
    orderbook: (a) => client.orderbook(a),
    instruments: (a) => client.instruments(a),
    suspensionResumptionInfo: (a) => client.suspensionResumptionInfo(a),
    marketStates: () => client.marketStates(),
    marketCalendar: () => client.marketCalendar(),
    timed: ((name: 'candles' | 'historyCandles', a: Parameters<RestClient['candles']>[0]) =>
      timed(client.timed(name, a))) as MarketDataSource['timed'],
  };
  const scheduler = new ScaledScheduler(clock, SPEED);
  const hub = new FeedHub({
    source,
    clock,
    scheduler,
    cadences: { tickersMs: 30_000 },
    staleAfterMs: 600_000,
  });
  return {
    client,
    venue: new RestVenue(client),
    clock,
    scheduler,
    hub,
    speed: SPEED,
    close: () => client.close(),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'tradebot-t2o-'));
const answers: number[] = [];
const calls: { answer: number; call: number }[] = [];
const runtime = timedRuntime(answers);
const place = runtime.venue.placeOrder.bind(runtime.venue);
let recording = true;
runtime.venue.placeOrder = (o) => {
  if (recording) calls.push({ answer: answers[answers.length - 1] ?? Number.NaN, call: absoluteNow() });
  return place(o);
};
const store = openStore(join(dir, 'bench.db'), { clock: runtime.clock, synchronous: SYNC });
store.meta.set('candle:bench:AAPLUSDT:1m', String(Math.floor(START / 60_000) * 60_000 - 60_000));
const { bot } = await createLiveBot({
  runtime,
  store,
  logger: silentLogger,
  spec: {
    name: 'bench',
    strategy: everyCandle,
    params: {},
    category: 'SPOT',
    symbols: ['AAPLUSDT'],
    interval: '1m',
    risk: RiskLimitsSchema.parse({
      allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
      maxDataAgeMs: 3_600_000,
      whitelisted: true,
    }),
    quoteCoin: 'USDT',
    capital: '1000000',
    feeRate: '0.001',
    fillPollMs: 3_600_000,
  },
});
await sim.takeArrivals(); // none expected: reconciliation sends nothing on a fresh journal
bot.start();
while (calls.length < ORDERS + 5) await new Promise((r) => setTimeout(r, 50));
await bot.stop();
recording = false;
const arrivals = await sim.takeArrivals();

// Baseline: the client's own send, from placeOrder's call to its return (the request is written by then).
const base: number[] = [];
for (let i = 0; i < 100; i++) {
  await runtime.client.candles({ category: 'SPOT', symbol: 'AAPLUSDT', interval: '1m', limit: '2' });
  const t0 = performance.now();
  const p = runtime.venue.placeOrder({
    category: 'SPOT',
    symbol: 'AAPLUSDT',
    side: 'buy',
    orderType: 'market',
    qty: '10',
    clientOid: `base${i}`,
  });
  base.push(performance.now() - t0);
  await p;
}
runtime.close();
store.close();
await sim.stop();
rmSync(dir, { recursive: true, force: true });

// The first five orders include start-up (JIT, first requests): left out.
const toCall = calls.slice(5, ORDERS + 5).map((c) => c.call - c.answer);
const toArrival = calls
  .slice(5, 5 + arrivals.length)
  .map((c, i) => (arrivals[i + 5] ?? Number.NaN) - c.answer);
if (process.env.T2O_DEBUG)
  console.log(
    toCall
      .map((x, i) => `${i}:${x.toFixed(1)}`)
      .filter((_, i) => (toCall[i] as number) > 5)
      .join(' '),
  );
console.log(`orders measured: ${toCall.length}, journal synchronous=${SYNC}`);
console.log(
  `poll answer -> venue port call:      p50 ${ms(pct(toCall, 50))}  p99 ${ms(pct(toCall, 99))}  max ${ms(Math.max(...toCall))}`,
);
const arr = toArrival.filter((x) => Number.isFinite(x));
console.log(
  `poll answer -> arrival at the engine: p50 ${ms(pct(arr, 50))}  p99 ${ms(pct(arr, 99))}  max ${ms(Math.max(...arr))}`,
);
console.log(
  `baseline, the client's send (call -> written):  p50 ${ms(pct(base, 50))}  p99 ${ms(pct(base, 99))}`,
);
console.log(
  `ratio pipeline (answer -> call) / client send, at p50: ${(pct(toCall, 50) / pct(base, 50)).toFixed(1)}x`,
);
