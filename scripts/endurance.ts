// The endurance run (`npm run endurance`, not part of npm test): the built daemon with 60 bots on 6 symbols
// against `tradebot sim` in another process at speed 600 (30 real minutes are 12.5 simulated days from a
// Monday: a weekend and Thanksgiving included), sampling the daemon's RSS, heap, active handles (its /metrics:
// prom-client's process and nodejs series), the journal's size (journal.db and its WAL) and each bot's state
// sizes (tradebot_bot_state_size: entries it holds in memory by part, the largest over the bots, and the
// strategy's stored state in bytes). At the end it fits a least-squares line of each
// series over simulated days 2-7 (elapsed 1.0 to 7.0 days) and fails if RSS or heap used still grows faster
// than --max-slope MB per simulated day, and prints what grows. A run shorter than 7 simulated days fits over
// the part of the window it covered, and says so.
//
// The default bound, 2 MB per simulated day: a daemon meant to run a month may then gain at most 60 MB over
// its first day's level, which keeps 60 bots (about 140 MB after the first day, issue 33) inside the 400 MB
// the scale goal allows, and is above the noise of a regression over a week of 5-second samples of a heap
// the collector keeps between about 20 and 40 MB.
//   npm run endurance -- [--minutes 30] [--bots 60] [--symbols 6] [--speed 600] [--max-slope 2] [--sample-s 5] [--keep]
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { syntheticRealityCodes } from '../src/sim/instruments.js';
import {
  freePort,
  scrapeMetrics,
  startDaemon,
  startSimProcess,
  writeDeployment,
  type BenchBot,
} from '../bench/lib/processes.js';

const USAGE = `usage: npm run endurance -- [--minutes N] [--bots N] [--symbols N] [--speed N] [--max-slope MB] [--sample-s N] [--keep]
  --minutes N     real minutes of the run (1-1440, default 30: 12.5 simulated days at speed 600)
  --bots N        bots (1-1000, default 60), spread over the symbols in turn
  --symbols N     synthetic Reality pairs traded (1-1000, default 6)
  --speed N       simulated seconds per real second (1-3600, default 600)
  --max-slope MB  the most RSS and heap used may grow per simulated day over days 2-7 (default 2)
  --sample-s N    real seconds between samples (1-600, default 5)
  --keep          keep the temp folder with the journal and the deployment`;

function fail(msg: string): never {
  process.stderr.write(`endurance: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function numberArg(v: string | undefined, name: string, min: number, max: number, dflt: number, int = true) {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (int && !Number.isInteger(n)))
    fail(`--${name} must be a ${int ? 'whole ' : ''}number, got ${JSON.stringify(v)}`);
  if (n < min || n > max) fail(`--${name} must be from ${min} to ${max}, got ${n}`);
  return n;
}

let parsed: ReturnType<typeof parse>;
function parse() {
  const s = { type: 'string' } as const;
  return parseArgs({
    options: {
      minutes: s,
      bots: s,
      symbols: s,
      speed: s,
      'max-slope': s,
      'sample-s': s,
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}
try {
  parsed = parse();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const f = parsed.values;
if (f.help === true) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const MINUTES = numberArg(f.minutes, 'minutes', 1, 1440, 30);
const BOTS = numberArg(f.bots, 'bots', 1, 1000, 60);
const SYMBOLS = numberArg(f.symbols, 'symbols', 1, 1000, 6);
const SPEED = numberArg(f.speed, 'speed', 1, 3600, 600);
const MAX_SLOPE = numberArg(f['max-slope'], 'max-slope', 0, 10_000, 2, false);
const SAMPLE_S = numberArg(f['sample-s'], 'sample-s', 1, 600, 5);
const START = '2026-11-23T14:25:00Z'; // Monday 09:25 ET; Thanksgiving is that Thursday
const DAY_MS = 86_400_000;
const MB = 1024 * 1024;

interface Sample {
  /** Simulated days since the start. */
  readonly day: number;
  readonly values: Readonly<Record<string, number>>;
}

/** Least-squares slope of y over x, per unit of x. */
function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    num += dx * ((ys[i] as number) - my);
    den += dx * dx;
  }
  return den === 0 ? 0 : num / den;
}

/** The series sampled, their unit, and whether growth fails the run. */
const SERIES = [
  { key: 'rss', metric: 'process_resident_memory_bytes', unit: 'MB', scale: MB, bounded: true },
  { key: 'heapUsed', metric: 'nodejs_heap_size_used_bytes', unit: 'MB', scale: MB, bounded: true },
  { key: 'heapTotal', metric: 'nodejs_heap_size_total_bytes', unit: 'MB', scale: MB, bounded: false },
  { key: 'external', metric: 'nodejs_external_memory_bytes', unit: 'MB', scale: MB, bounded: false },
  { key: 'handles', metric: 'nodejs_active_handles_total', unit: 'handles', scale: 1, bounded: false },
  { key: 'requests', metric: 'nodejs_active_requests_total', unit: 'requests', scale: 1, bounded: false },
  { key: 'journal', metric: '', unit: 'MB', scale: MB, bounded: false },
] as const;

/** The largest bot's value of each part of tradebot_bot_state_size, from a scrape's `name{labels}` keys. */
function largestStateSizes(m: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, v] of m) {
    const part = /^tradebot_bot_state_size\{.*part="([^"]+)"/.exec(key)?.[1];
    if (part !== undefined) out.set(part, Math.max(out.get(part) ?? 0, v));
  }
  return out;
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-endurance-'));
  const codes = syntheticRealityCodes(SYMBOLS);
  const bots: BenchBot[] = Array.from({ length: BOTS }, (_, i) => ({
    name: `bot${i + 1}`,
    symbols: [`${codes[i % codes.length] ?? 'XAAA'}USDT`],
    strategy: 'ma-crossover',
    params: { fast: 3, slow: 8, quoteAmount: '200' },
  }));
  const simStartedAt = Date.now();
  const { sim, baseUrl } = await startSimProcess({ speed: SPEED, startTime: START, extraPairs: SYMBOLS });
  const metricsPort = await freePort();
  const cfg = writeDeployment(dir, { baseUrl, speed: SPEED, metricsPort, bots });
  const journal = join(dir, 'journal.db');
  const journalBytes = () =>
    [journal, `${journal}-wal`].reduce((a, p) => a + (existsSync(p) ? statSync(p).size : 0), 0);
  const samples: Sample[] = [];
  let last: Map<string, number> | undefined;
  process.stdout.write(
    `endurance: ${BOTS} bots on ${SYMBOLS} symbols, speed ${SPEED}, ${MINUTES} real minutes (${((MINUTES * 60 * SPEED) / 86_400).toFixed(1)} simulated days), a sample every ${SAMPLE_S} s; journal in ${dir}\n`,
  );
  const daemon = await startDaemon(cfg).catch(async (err: unknown) => {
    await sim.stop();
    throw err;
  });
  try {
    const end = Date.now() + MINUTES * 60_000;
    let nextReport = 0;
    while (Date.now() < end) {
      if (daemon.proc.exitCode !== null)
        throw new Error(`the daemon exited:\n${daemon.output().slice(-3000)}`);
      const m = await scrapeMetrics(metricsPort);
      last = m;
      const day = ((Date.now() - simStartedAt) * SPEED) / DAY_MS;
      const values: Record<string, number> = {};
      for (const s of SERIES)
        values[s.key] = (s.metric === '' ? journalBytes() : (m.get(s.metric) ?? NaN)) / s.scale;
      for (const [part, n] of largestStateSizes(m)) values[`state:${part}`] = n;
      samples.push({ day, values });
      if (day >= nextReport) {
        process.stdout.write(
          `day ${day.toFixed(2)}: rss ${values.rss?.toFixed(1)} MB, heap ${values.heapUsed?.toFixed(1)} MB, handles ${values.handles}, journal ${values.journal?.toFixed(2)} MB, polls ${m.get('tradebot_polls_total') ?? 0}, orders ${m.get('tradebot_orders_total') ?? 0}, 429s ${m.get('tradebot_rate_limited_total') ?? 0}\n`,
        );
        nextReport = Math.floor(day * 4 + 1) / 4; // every quarter of a simulated day
      }
      await new Promise((r) => setTimeout(r, SAMPLE_S * 1000));
    }
  } finally {
    await daemon.stop();
    await sim.stop();
  }

  const window = samples.filter((s) => s.day >= 1 && s.day <= 7);
  const covered =
    window.length > 0
      ? `${(window[0]?.day ?? 0).toFixed(2)}-${(window.at(-1)?.day ?? 0).toFixed(2)}`
      : 'none';
  const partial = (window.at(-1)?.day ?? 0) < 6.9;
  process.stdout.write(
    `\nregression over simulated days 2-7 (elapsed days ${covered}${partial ? ', a PARTIAL window: the run was shorter than 7 simulated days' : ''}; ${window.length} samples):\n`,
  );
  if (window.length < 10) {
    process.stdout.write(
      `endurance: FAILED: ${window.length} samples after the first simulated day, 10 needed (run longer: --minutes)\n`,
    );
    return 1;
  }
  let failed = false;
  const xs = window.map((s) => s.day);
  for (const s of SERIES) {
    const ys = window.map((w) => w.values[s.key] ?? NaN);
    const k = slope(xs, ys);
    const over = s.bounded && k > MAX_SLOPE;
    failed ||= over;
    const grows =
      k > 0 && Math.abs(k) * ((xs.at(-1) ?? 0) - (xs[0] ?? 0)) > 0.02 * Math.max(1, Math.abs(ys[0] ?? 0));
    process.stdout.write(
      `  ${s.key.padEnd(9)} ${(ys[0] ?? NaN).toFixed(2)} -> ${(ys.at(-1) ?? NaN).toFixed(2)} ${s.unit}, slope ${k >= 0 ? '+' : ''}${k.toFixed(3)} ${s.unit}/day${s.bounded ? ` (bound ${MAX_SLOPE})` : ''}${over ? '  GROWS PAST THE BOUND' : grows ? '  grows' : ''}\n`,
    );
  }
  // Per-bot state, the largest bot's of each part: entries (or bytes) that grow with time are a leak.
  const parts = [
    ...new Set(window.flatMap((w) => Object.keys(w.values).filter((k) => k.startsWith('state:')))),
  ];
  if (parts.length === 0)
    process.stdout.write('  per-bot state: not exposed by this daemon (no tradebot_bot_state_size)\n');
  for (const key of parts.sort()) {
    const ys = window.map((w) => w.values[key] ?? 0);
    const k = slope(xs, ys);
    const max = Math.max(...ys);
    const grows = k > 0 && k * ((xs.at(-1) ?? 0) - (xs[0] ?? 0)) > Math.max(2, 0.1 * (ys[0] ?? 0));
    process.stdout.write(
      `  ${key.padEnd(28)} ${(ys[0] ?? 0).toFixed(0)} -> ${(ys.at(-1) ?? 0).toFixed(0)} (max ${max}), slope ${k >= 0 ? '+' : ''}${k.toFixed(2)}/day${grows ? '  GROWS' : ''}\n`,
    );
  }
  const m = last ?? new Map<string, number>();
  process.stdout.write(
    `totals: polls ${m.get('tradebot_polls_total') ?? 0}, poll errors ${m.get('tradebot_poll_errors_total') ?? 0}, 429s ${m.get('tradebot_rate_limited_total') ?? 0}, orders ${m.get('tradebot_orders_total') ?? 0}, fills ${m.get('tradebot_fills_total') ?? 0}, STALE_SIGNAL ${staleSignals(m)}, bot restarts ${m.get('tradebot_bot_restarts_total') ?? 0}\n`,
  );
  process.stdout.write(failed ? 'endurance: FAILED\n' : 'endurance: OK\n');
  if (f.keep === true) process.stdout.write(`kept ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return failed ? 1 : 0;
}

/** Intents denied STALE_SIGNAL, all bots: decided too late to trade (issue 38). */
function staleSignals(m: Map<string, number>): number {
  let n = 0;
  for (const [k, v] of m)
    if (k.startsWith('tradebot_denials_total{') && k.includes('code="STALE_SIGNAL"')) n += v;
  return n;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`endurance: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
