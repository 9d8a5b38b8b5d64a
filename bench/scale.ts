// Scale: the built daemon with 10, 50 and 200 bots over 5, 20 and 50 symbols (synthetic Reality pairs,
// `tradebot sim --extra-pairs`) against `tradebot sim` in another process at speed 60, through the
// timestamping proxy (bench/lib/timing-proxy.ts). Per step, over a measuring window after a warm-up: the
// daemon's CPU (process_cpu_seconds_total) and RSS per bot, polls per second, 429s (its
// tradebot_rate_limited_total, and answers with status 429 at the proxy), and tick-to-order from outside:
// from the last candles answer of the order's symbol to the order request's first byte, p50 and p99.
// The baseline is the same run's 10-bot step: the goal (issue 33) is 200 bots on 50 symbols within one core
// and 400 MB, 0 x 429, tick-to-order p99 no worse than twice the 10-bot figure. Bots run ma-crossover (they
// trade now and then, as users' bots do); --every-candle gives each the bench fixture that orders on every
// candle instead (then the venue's order rate limit is the bound, not the daemon).
//   npm run bench -- scale [--short] [--every-candle]   (--short: 20 s per step after 10 s of warm-up)
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
const STEPS = [
  { bots: 10, symbols: 5 },
  { bots: 50, symbols: 20 },
  { bots: 200, symbols: 50 },
] as const;
const WARMUP_S = SHORT ? 10 : 30;
const WINDOW_S = SHORT ? 20 : 120;
const CANDLE_MS = 60_000 / SPEED;
const ORDER_PATH = '/api/v3/trade/place-reality-order';
const isCandles = (x: TimedExchange) =>
  x.path.startsWith('/api/v3/market/candles') || x.path.startsWith('/api/v3/market/history-candles');
const pause = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

interface StepResult {
  readonly bots: number;
  readonly symbols: number;
  /** Seconds from `tradebot run` to its "running". */
  readonly startS: number;
  readonly cpuShare: number;
  readonly rssMb: number;
  readonly pollsPerS: number;
  readonly limited: number;
  readonly t2o: number[];
  /** Intents denied STALE_SIGNAL in the window: decided too late to trade (issue 38). */
  readonly stale: number;
  /** candles and history-candles requests in the window (history only for real gaps, issue 38). */
  readonly candleReads: { readonly candles: number; readonly history: number };
}

/** The sum of a labelled counter's series whose labels include `label`. */
const sumWhere = (m: Map<string, number>, name: string, label: string): number =>
  [...m].reduce((n, [k, v]) => (k.startsWith(`${name}{`) && k.includes(label) ? n + v : n), 0);

/** Tick to order from outside: each order from the last candles answer of its symbol before it. */
function tickToOrder(xs: readonly TimedExchange[], from: number, to: number): number[] {
  const lastCandles = new Map<string, number>();
  const out: number[] = [];
  for (const x of [...xs].sort((a, b) => a.firstByteAt - b.firstByteAt)) {
    if (
      x.path.startsWith(ORDER_PATH) &&
      x.symbol !== undefined &&
      x.firstByteAt >= from &&
      x.firstByteAt <= to
    ) {
      const c = lastCandles.get(x.symbol);
      if (c !== undefined && x.firstByteAt - c <= CANDLE_MS) out.push(x.firstByteAt - c);
    }
    // Answers are placed by when they ended; an answer ending after this order's first byte is not its trigger.
    if (isCandles(x) && x.symbol !== undefined && Number.isFinite(x.answeredAt)) {
      const prev = lastCandles.get(x.symbol);
      if (prev === undefined || x.answeredAt > prev) lastCandles.set(x.symbol, x.answeredAt);
    }
  }
  return out;
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
    // Bots start one after another (about a second each on a busy 2-core machine): allow for it.
    const daemon = await startDaemon(cfg, 60_000 + bots * 3_000);
    const startS = (performance.now() - starting) / 1000;
    try {
      await pause(WARMUP_S);
      const m0 = await scrapeMetrics(metricsPort);
      const t0 = performance.timeOrigin + performance.now();
      await pause(WINDOW_S);
      const m1 = await scrapeMetrics(metricsPort);
      const t1 = performance.timeOrigin + performance.now();
      const d = (k: string) => (m1.get(k) ?? 0) - (m0.get(k) ?? 0);
      const seconds = (t1 - t0) / 1000;
      const at429 = proxy.exchanges.filter((x) => x.status === 429 && x.firstByteAt >= t0).length;
      const inWindow = proxy.exchanges.filter((x) => x.firstByteAt >= t0 && x.firstByteAt <= t1);
      const stale = (m: Map<string, number>) => sumWhere(m, 'tradebot_denials_total', 'code="STALE_SIGNAL"');
      return {
        bots,
        symbols,
        startS,
        cpuShare: d('process_cpu_seconds_total') / seconds,
        rssMb: (m1.get('process_resident_memory_bytes') ?? 0) / 1024 / 1024,
        pollsPerS: d('tradebot_polls_total') / seconds,
        limited: Math.max(d('tradebot_rate_limited_total'), at429),
        t2o: tickToOrder(proxy.exchanges, t0, t1),
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
    `${String(r.bots).padStart(3)} bots / ${String(r.symbols).padStart(2)} symbols: running after ${f(r.startS)} s, CPU ${f(r.cpuShare * 100)}% of a core (${f((r.cpuShare * 1000) / r.bots, 2)} ms/s per bot), RSS ${f(r.rssMb)} MB (${f(r.rssMb / r.bots, 2)} MB per bot), polls ${f(r.pollsPerS)}/s, 429s ${r.limited}, tick-to-order ${r.t2o.length} orders p50 ${f(pct(r.t2o, 50), 2)} ms p99 ${f(pct(r.t2o, 99), 2)} ms, STALE_SIGNAL ${r.stale}, candles reads ${r.candleReads.candles} / history-candles ${r.candleReads.history}`,
  );
}
const base = results[0];
const top = results.at(-1);
if (base !== undefined && top !== undefined) {
  const ratio = pct(top.t2o, 99) / pct(base.t2o, 99);
  console.log(
    `${top.bots} bots vs ${base.bots} (same run): tick-to-order p99 ${f(ratio, 2)}x (goal <= 2), CPU ${f(top.cpuShare, 2)} cores (goal <= 1), RSS ${f(top.rssMb)} MB (goal <= 400), 429s ${top.limited} (goal 0)`,
  );
}
