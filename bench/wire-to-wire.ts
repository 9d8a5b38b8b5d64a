// Wire to wire: the built daemon (dist/) against `tradebot sim` in another process, through a timestamping
// proxy on loopback (bench/lib/timing-proxy.ts), one bot ordering on every candle (bench/fixtures/
// every-candle.ts), the journal at its default synchronous=FULL. Per order: from the moment the proxy wrote
// the last byte of the candles answer that completed the candle (the last candles answer before the order)
// to the moment the order request's first byte reached the proxy: what a user's venue sees, socket to socket.
// Beside it, in the same run and on the journal's file system, the disk's flush floor (4 KB write +
// fdatasync, and a one-row SQLite commit at synchronous=FULL), half before the daemon runs and half after.
// Goal (issue 33): p50 <= floor + 0.5 ms and p99 <= floor + 2 ms.
//   npm run bench -- wire-to-wire [--orders 200] [--speed 240] [--floor-samples 100] [--explain N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { numberFlag } from './lib/flags.js';
import { measureFlushFloor } from './lib/flush-floor.js';
import { freePort, pct, startDaemon, startSimProcess, writeDeployment } from './lib/processes.js';
import { startTimingProxy, type TimedExchange } from './lib/timing-proxy.js';

const ORDERS = numberFlag('orders', 200);
const SPEED = numberFlag('speed', 240); // four 1m candles a second
const FLOOR_SAMPLES = numberFlag('floor-samples', 100);
const EXPLAIN = numberFlag('explain', 0);
for (const [name, v, lo, hi] of [
  ['orders', ORDERS, 10, 100_000],
  ['speed', SPEED, 10, 3600],
  ['floor-samples', FLOOR_SAMPLES, 10, 100_000],
  ['explain', EXPLAIN, 0, 100_000],
] as const)
  if (!Number.isInteger(v) || v < lo || v > hi) {
    console.error(`--${name} must be a whole number from ${lo} to ${hi}, got ${v}`);
    process.exit(2);
  }
const WARMUP = 5; // the first orders include start-up (JIT, first connections): left out
const CANDLE_MS = 60_000 / SPEED;
const ORDER_PATH = '/api/v3/trade/place-reality-order';
/** A candles answer: the feed's recent candles, or its history request for a candle it missed. */
const isCandles = (x: TimedExchange) =>
  x.path.startsWith('/api/v3/market/candles') || x.path.startsWith('/api/v3/market/history-candles');
const ms = (x: number) => `${x.toFixed(3)} ms`;

const dir = mkdtempSync(`${tmpdir()}/tradebot-wire-`);
const { sim, baseUrl } = await startSimProcess({ speed: SPEED, startTime: '2026-11-23T15:00:00Z' });
const proxy = await startTimingProxy(baseUrl);
const floorBefore = await measureFlushFloor(dir, Math.ceil(FLOOR_SAMPLES / 2), 50);
const cfg = writeDeployment(dir, {
  baseUrl: proxy.baseUrl,
  speed: SPEED,
  metricsPort: await freePort(),
  bots: [{ name: 'wire', symbols: ['AAPLUSDT'] }],
});
const orders = () => proxy.exchanges.filter((x) => x.path.startsWith(ORDER_PATH));
let daemonLog = '';
try {
  const daemon = await startDaemon(cfg);
  const capMs = (ORDERS + WARMUP) * CANDLE_MS * 3 + 60_000;
  const t0 = Date.now();
  while (orders().length < ORDERS + WARMUP && Date.now() - t0 < capMs)
    await new Promise((r) => setTimeout(r, 100));
  await daemon.stop();
  daemonLog = daemon.output();
} finally {
  await proxy.stop();
  await sim.stop();
}
const floorAfter = await measureFlushFloor(dir, Math.floor(FLOOR_SAMPLES / 2), 50);
rmSync(dir, { recursive: true, force: true });

const candles = proxy.exchanges.filter((x) => isCandles(x) && Number.isFinite(x.answeredAt));
const lat: number[] = [];
let unattributed = 0;
for (const o of orders().slice(WARMUP, WARMUP + ORDERS)) {
  let last: number | undefined;
  for (const c of candles) if (c.answeredAt <= o.firstByteAt) last = c.answeredAt;
  // No candles answer within a candle before the order: not an order a candle triggered.
  if (last === undefined || o.firstByteAt - last > CANDLE_MS) unattributed++;
  else lat.push(o.firstByteAt - last);
}
if (lat.length === 0) {
  console.error(
    `no order could be timed (${orders().length} order requests seen); the daemon said:\n${daemonLog.slice(-3000)}`,
  );
  process.exit(1);
}
// --explain N: what the proxy answered just before each of the first N timed orders (where the time goes).
for (const o of orders().slice(WARMUP, WARMUP + EXPLAIN)) {
  const before = proxy.exchanges.filter((x) => x.answeredAt <= o.firstByteAt).slice(-3);
  const said = before.map((b) => `${b.path.split('?')[0] ?? ''} ${ms(o.firstByteAt - b.answeredAt)} before`);
  console.log(`order: ${said.join(' | ')}`);
}
const fd = [...floorBefore.fdatasync, ...floorAfter.fdatasync];
const sq = [...floorBefore.sqliteFull, ...floorAfter.sqliteFull];
const line = (name: string, xs: number[]) =>
  `${name} p50 ${ms(pct(xs, 50))}  p99 ${ms(pct(xs, 99))}  max ${ms(Math.max(...xs))}`;
console.log(
  `wire to wire: ${lat.length} orders timed (${unattributed} without a candles answer within a candle), speed ${SPEED}, journal synchronous=FULL on ${tmpdir()}`,
);
console.log(line('candles answer written -> order request first byte:', lat));
console.log(line("the disk's floor, 4 KB write + fdatasync:          ", fd));
console.log(line("the disk's floor, SQLite commit synchronous=FULL:  ", sq));
const floor50 = pct(sq, 50);
const floor99 = pct(sq, 99);
console.log(
  `above the floor (SQLite FULL commit): p50 +${ms(pct(lat, 50) - floor50)} (goal +0.5 ms), p99 +${ms(pct(lat, 99) - floor99)} (goal +2 ms); ratio p50 ${(pct(lat, 50) / floor50).toFixed(2)}x`,
);
