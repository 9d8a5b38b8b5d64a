// Scale: the built daemon with 10, 50 and 200 bots over 5, 20 and 50 symbols (synthetic Reality pairs,
// `tradebot sim --extra-pairs`) against `tradebot sim` in another process at speed 60, through the
// timestamping proxy (bench/lib/timing-proxy.ts). Per step, over a measuring window after a warm-up: the
// daemon's CPU (process_cpu_seconds_total) and RSS per bot, polls per second, 429s (its
// tradebot_rate_limited_total, and answers with status 429 at the proxy), and tick-to-order from outside:
// from the last candles answer of the order's symbol to the order request's first byte, p50 and p99.
// The baseline is the same run's 10-bot step: the goal (issue 33) is 200 bots on 50 symbols within one core
// and 400 MB, 0 x 429, tick-to-order p99 no worse than twice the 10-bot figure. Bots run ma-crossover (they
// trade now and then, as users' bots do); --every-candle gives each the bench fixture that orders on every
// candle instead (then the venue's order rate limit is the bound, not the daemon). A step's window is
// lengthened (up to 4 times) until it holds at least 100 orders.
// The start is timed from outside twice: to the daemon's "running" (every bot built and subscribed) and to
// the last bot's "warm-up done" (every bot has its warm-up candles and decides live ones).
//   npm run bench -- scale [--short] [--every-candle] [--only=200]
//   (--short: 20 s per step after 10 s of warm-up; --only=N: the N-bot step alone, e.g. for a profile)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticRealityCodes } from '../src/sim/instruments.js';
import {
  freePort,
  pct,
  scrapeMetrics,
  startDaemon,
  startSimProcess,
  writeDeployment,
  type BenchBot,
} from './lib/processes.js';
import { startTimingProxy, type TimedExchange } from './lib/timing-proxy.js';

const SHORT = process.argv.includes('--short');
const EVERY_CANDLE = process.argv.includes('--every-candle');
const SPEED = 60;
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const STEPS = [
  { bots: 10, symbols: 5 },
  { bots: 50, symbols: 20 },
  { bots: 200, symbols: 50 },
].filter((s) => ONLY === undefined || String(s.bots) === ONLY);
if (STEPS.length === 0) {
  process.stderr.write(`--only=${ONLY}: no such step (10, 50 or 200 bots)\n`);
  process.exit(2);
}
const WARMUP_S = SHORT ? 10 : 30;
const WINDOW_S = SHORT ? 20 : 120;
const CANDLE_MS = 60_000 / SPEED;
/** Orders a step measures at least (issue 43), its window made longer when its bots trade less. */
const MIN_ORDERS = 100;
const ORDER_PATH = '/api/v3/trade/place-reality-order';
const isCandles = (x: TimedExchange) =>
  x.path.startsWith('/api/v3/market/candles') || x.path.startsWith('/api/v3/market/history-candles');
const pause = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

interface StepResult {
  readonly bots: number;
  readonly symbols: number;
  /** Seconds from `tradebot run` to its "running". */
  readonly startS: number;
  /** Seconds from `tradebot run` to the last bot's "warm-up done" (undefined: not every bot said it). */
  readonly liveS: number | undefined;
  readonly cpuShare: number;
  readonly rssMb: number;
  readonly pollsPerS: number;
  readonly limited: number;
  readonly t2o: number[];
  /**
   * Tick-to-order of the first order after each candles answer of a symbol: the later ones wait for the
   * symbol's market turn on the account (FillRouter.marketTurn: the order before, answered and its fills read).
   */
  readonly t2oFirst: number[];
  /** Intents denied STALE_SIGNAL in the window: decided too late to trade (issue 38). */
  readonly stale: number;
  /** candles and history-candles requests in the window (history only for real gaps, issue 38). */
  readonly candleReads: { readonly candles: number; readonly history: number };
}

/** The sum of a labelled counter's series whose labels include `label`. */
const sumWhere = (m: Map<string, number>, name: string, label: string): number =>
  [...m].reduce((n, [k, v]) => (k.startsWith(`${name}{`) && k.includes(label) ? n + v : n), 0);

/**
 * Tick to order from outside: each order from the last candles answer of its symbol before it; `first`, the
 * first order after each answer only.
 */
function tickToOrder(
  xs: readonly TimedExchange[],
  from: number,
  to: number,
): { all: number[]; first: number[] } {
  const lastCandles = new Map<string, number>();
  /** The candles answers that already led to an order. */
  const ordered = new Set<string>();
  const all: number[] = [];
  const first: number[] = [];
  for (const x of [...xs].sort((a, b) => a.firstByteAt - b.firstByteAt)) {
    if (
      x.path.startsWith(ORDER_PATH) &&
      x.symbol !== undefined &&
      x.firstByteAt >= from &&
      x.firstByteAt <= to
    ) {
      const c = lastCandles.get(x.symbol);
      if (c !== undefined && x.firstByteAt - c <= CANDLE_MS) {
        all.push(x.firstByteAt - c);
        const answer = `${x.symbol}@${c}`;
        if (!ordered.has(answer)) first.push(x.firstByteAt - c);
        ordered.add(answer);
      }
    }
    // Answers are placed by when they ended; an answer ending after this order's first byte is not its trigger.
    if (isCandles(x) && x.symbol !== undefined && Number.isFinite(x.answeredAt)) {
      const prev = lastCandles.get(x.symbol);
      if (prev === undefined || x.answeredAt > prev) lastCandles.set(x.symbol, x.answeredAt);
    }
  }
  return { all, first };
}

/** Counts the daemon's "warm-up done" lines from its start; `done` resolves when `bots` were said. */
function warmUps(bots: number): { onLine: (line: string) => void; done: Promise<number> } {
  let seen = 0;
  let resolve: (at: number) => void = () => undefined;
  const done = new Promise<number>((r) => (resolve = r));
  const onLine = (line: string) => {
    if (line.includes('"message":"warm-up done"') && ++seen === bots) resolve(performance.now());
  };
  return { onLine, done };
}

/** `p`'s value, or undefined when it has not settled within `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function step(bots: number, symbols: number): Promise<StepResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-scale-'));
  const codes = syntheticRealityCodes(symbols);
  const spec: BenchBot[] = Array.from({ length: bots }, (_, i) => ({
    name: `bot${i + 1}`,
    symbols: [`${codes[i % symbols] ?? 'XAAA'}USDT`],
    ...(EVERY_CANDLE ? {} : { strategy: 'ma-crossover', params: { fast: 3, slow: 8, quoteAmount: '200' } }),
  }));
  const { sim, baseUrl } = await startSimProcess({
    speed: SPEED,
    startTime: '2026-11-23T15:00:00Z',
    extraPairs: symbols,
  });
  const proxy = await startTimingProxy(baseUrl);
  const metricsPort = await freePort();
  const cfg = writeDeployment(dir, { baseUrl: proxy.baseUrl, speed: SPEED, metricsPort, bots: spec });
  try {
    const starting = performance.now();
    const warm = warmUps(bots);
    // Bots start one after another (about a second each on a busy 2-core machine): allow for it.
    const daemon = await startDaemon(cfg, 60_000 + bots * 3_000, warm.onLine);
    const startS = (performance.now() - starting) / 1000;
    try {
      // The every-candle fixture has no warm-up to say done.
      const live = EVERY_CANDLE ? undefined : await within(warm.done, WARMUP_S * 6_000);
      const liveS = live === undefined ? undefined : (live - starting) / 1000;
      await pause(WARMUP_S);
      const m0 = await scrapeMetrics(metricsPort);
      const t0 = performance.timeOrigin + performance.now();
      await pause(WINDOW_S);
      // A step's p99 needs orders: the window grows (up to 4 times) until it holds MIN_ORDERS of them.
      const now = () => performance.timeOrigin + performance.now();
      for (let more = 0; more < 3 * WINDOW_S; more += 10) {
        if (tickToOrder(proxy.exchanges, t0, now()).all.length >= MIN_ORDERS) break;
        await pause(10);
      }
      const m1 = await scrapeMetrics(metricsPort);
      const t1 = performance.timeOrigin + performance.now();
      const d = (k: string) => (m1.get(k) ?? 0) - (m0.get(k) ?? 0);
      const seconds = (t1 - t0) / 1000;
      const at429 = proxy.exchanges.filter((x) => x.status === 429 && x.firstByteAt >= t0).length;
      const inWindow = proxy.exchanges.filter((x) => x.firstByteAt >= t0 && x.firstByteAt <= t1);
      const t2o = tickToOrder(proxy.exchanges, t0, t1);
      const stale = (m: Map<string, number>) => sumWhere(m, 'tradebot_denials_total', 'code="STALE_SIGNAL"');
      return {
        bots,
        symbols,
        startS,
        liveS,
        cpuShare: d('process_cpu_seconds_total') / seconds,
        rssMb: (m1.get('process_resident_memory_bytes') ?? 0) / 1024 / 1024,
        pollsPerS: d('tradebot_polls_total') / seconds,
        limited: Math.max(d('tradebot_rate_limited_total'), at429),
        t2o: t2o.all,
        t2oFirst: t2o.first,
        stale: stale(m1) - stale(m0),
        candleReads: {
          candles: inWindow.filter((x) => x.path.startsWith('/api/v3/market/candles')).length,
          history: inWindow.filter((x) => x.path.startsWith('/api/v3/market/history-candles')).length,
        },
      };
    } finally {
      await daemon.stop();
    }
  } finally {
    await proxy.stop();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
console.log(
  `scale: speed ${SPEED}, ${EVERY_CANDLE ? 'every-candle fixture' : 'ma-crossover'} bots, ${WARMUP_S} s warm-up then ${WINDOW_S} s measured per step${SHORT ? ' (--short)' : ''}`,
);
const results: StepResult[] = [];
for (const s of STEPS) {
  const r = await step(s.bots, s.symbols);
  results.push(r);
  console.log(
    `${String(r.bots).padStart(3)} bots / ${String(r.symbols).padStart(2)} symbols: running after ${f(r.startS)} s, all bots live (warm-up done) after ${r.liveS === undefined ? 'n/a' : f(r.liveS)} s, CPU ${f(r.cpuShare * 100)}% of a core (${f((r.cpuShare * 1000) / r.bots, 2)} ms/s per bot), RSS ${f(r.rssMb)} MB (${f(r.rssMb / r.bots, 2)} MB per bot), polls ${f(r.pollsPerS)}/s, 429s ${r.limited}, tick-to-order ${r.t2o.length} orders p50 ${f(pct(r.t2o, 50), 2)} ms p99 ${f(pct(r.t2o, 99), 2)} ms (first order per candles answer: ${r.t2oFirst.length}, p50 ${f(pct(r.t2oFirst, 50), 2)} ms p99 ${f(pct(r.t2oFirst, 99), 2)} ms), STALE_SIGNAL ${r.stale}, candles reads ${r.candleReads.candles} / history-candles ${r.candleReads.history}`,
  );
}
const base = results[0];
const top = results.at(-1);
if (base !== undefined && top !== undefined) {
  const ratio = pct(top.t2o, 99) / pct(base.t2o, 99);
  const firstRatio = pct(top.t2oFirst, 99) / pct(base.t2oFirst, 99);
  console.log(
    `${top.bots} bots vs ${base.bots} (same run): tick-to-order p99 ${f(ratio, 2)}x (first orders per answer ${f(firstRatio, 2)}x; goal <= 2; orders ${base.t2o.length} and ${top.t2o.length}, goal >= ${MIN_ORDERS} each), start ${top.liveS === undefined ? 'n/a' : f(top.liveS)} s to all bots live (goal <= 20), CPU ${f(top.cpuShare, 2)} cores (goal <= 1), RSS ${f(top.rssMb)} MB (goal <= 400), 429s ${top.limited} (goal 0)`,
  );
}
