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
//
// It measures the product too, from the journal (scripts/endurance-report.ts) and the daemon's log: per
// simulated day the orders, fills, intents, STALE_SIGNAL denials, `fill not booked` lines, bots stuck on dust,
// rejected orders and the decision lateness (p50/p99, venue seconds) of the orders placed; it fails on any
// unbooked fill, any bot stuck on dust, orders per open hour drifting more than 15% across days 2-7, or
// STALE_SIGNAL above 1% of intents. Before the run a short trial checks the daemon keeps up at --speed (the
// orders' p99 lateness within half the signal age, STALE_SIGNAL at most 1%); when it does not, the run says
// so and goes at the fastest halved speed that does. `--ceiling` measures the decision throughput ceiling
// (candles decided per real second) with trials at doubling speeds, and exits.
//   npm run endurance -- [--minutes 30] [--bots 60] [--symbols 6] [--speed 600] [--max-slope 2] [--sample-s 5] [--trial-s 60] [--ceiling] [--keep]
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { syntheticRealityCodes } from '../src/sim/instruments.js';
import {
  DAY_MS,
  decidedCandles,
  journalDays,
  trialSince,
  type DayFigures,
  type Trial,
} from './endurance-report.js';
import {
  freePort,
  scrapeMetrics,
  startDaemon,
  startSimProcess,
  writeDeployment,
  type BenchBot,
  type CliProcess,
} from '../bench/lib/processes.js';

const USAGE = `usage: npm run endurance -- [--minutes N] [--bots N] [--symbols N] [--speed N] [--max-slope MB] [--sample-s N] [--trial-s N] [--ceiling] [--keep]
  --minutes N     real minutes of the run (1-1440, default 30: 12.5 simulated days at speed 600)
  --bots N        bots (1-1000, default 60), spread over the symbols in turn
  --symbols N     synthetic Reality pairs traded (1-1000, default 6)
  --speed N       simulated seconds per real second (1-3600, default 600)
  --max-slope MB  the most RSS and heap used may grow per simulated day over days 2-7 (default 2)
  --sample-s N    real seconds between samples (1-600, default 5)
  --trial-s N     real seconds of the trial that checks the daemon keeps up at a speed (0-600, default 60; 0: none)
  --ceiling       measure the decision throughput ceiling (trials at --speed, then doubling), print it and exit
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
      'trial-s': s,
      ceiling: { type: 'boolean' },
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
const TRIAL_S = numberArg(f['trial-s'], 'trial-s', 0, 600, 60);
if (TRIAL_S > 0 && TRIAL_S < 15) fail(`--trial-s must be 0 or from 15 to 600, got ${TRIAL_S}`);
/** The deployment's signal age (the config's default, maxSignalAgeMs): a later decision is STALE_SIGNAL. */
const SIGNAL_AGE_S = 180;
/** A speed keeps up when its orders' p99 lateness is within this, and STALE_SIGNAL within 1% of intents. */
const KEEP_UP_P99_S = SIGNAL_AGE_S / 2;
const MAX_STALE = 0.01;
const MAX_DRIFT = 0.15;
const START = '2026-11-23T14:25:00Z'; // Monday 09:25 ET; Thanksgiving is that Thursday
const START_MS = Date.parse(START);
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

/** The simulator and the daemon of one run (a trial or the endurance run itself), in a temp folder of its own. */
interface Run {
  readonly dir: string;
  readonly journal: string;
  readonly metricsPort: number;
  readonly daemon: CliProcess;
  readonly speed: number;
  /** The venue's time now, from the speed and when the simulator started. */
  venueNow(): number;
  /** Venue times of the daemon's `fill not booked` lines (a fill of the account that no bot booked). */
  readonly unbookedAt: number[];
  stop(): Promise<void>;
}

async function launch(speed: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-endurance-'));
  const codes = syntheticRealityCodes(SYMBOLS);
  const bots: BenchBot[] = Array.from({ length: BOTS }, (_, i) => ({
    name: `bot${i + 1}`,
    symbols: [`${codes[i % codes.length] ?? 'XAAA'}USDT`],
    strategy: 'ma-crossover',
    params: { fast: 3, slow: 8, quoteAmount: '200' },
  }));
  const simStartedAt = Date.now();
  const { sim, baseUrl } = await startSimProcess({ speed, startTime: START, extraPairs: SYMBOLS });
  const metricsPort = await freePort();
  const cfg = writeDeployment(dir, { baseUrl, speed, metricsPort, bots });
  const venueNow = () => START_MS + (Date.now() - simStartedAt) * speed;
  const daemon = await startDaemon(cfg).catch(async (err: unknown) => {
    await sim.stop();
    throw err;
  });
  const unbookedAt: number[] = [];
  // Every line, not the last 64 kB the process keeps: a run of 18 minutes logs far more.
  let partial = '';
  const onData = (b: Buffer) => {
    const lines = (partial + b.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l.includes('fill not booked')) unbookedAt.push(venueNow());
  };
  daemon.proc.stdout?.on('data', onData);
  daemon.proc.stderr?.on('data', onData);
  return {
    dir,
    journal: join(dir, 'journal.db'),
    metricsPort,
    daemon,
    speed,
    venueNow,
    unbookedAt,
    async stop() {
      await daemon.stop();
      await sim.stop();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface TrialResult extends Trial {
  readonly speed: number;
  /** Candles the bots decided per real second over the measured part of the trial. */
  readonly decidedPerSecond: number;
  readonly keepsUp: boolean;
}

/** A short run at `speed`: after a third of it (warm-up), whether the bots decide in time, and how many candles. */
async function trial(speed: number): Promise<TrialResult> {
  const run = await launch(speed);
  try {
    await sleep((TRIAL_S * 1000) / 3);
    const from = run.venueNow();
    const c0 = decidedCandles(run.journal, START_MS);
    const t0 = Date.now();
    await sleep((TRIAL_S * 2000) / 3);
    const t = trialSince(run.journal, from);
    const decided = decidedCandles(run.journal, START_MS) - c0;
    const decidedPerSecond = decided / ((Date.now() - t0) / 1000);
    const keepsUp =
      t.orders > 0 && t.latenessP99 <= KEEP_UP_P99_S && t.staleSignal <= MAX_STALE * Math.max(1, t.intents);
    process.stdout.write(
      `trial at speed ${speed}: ${t.intents} intents, ${t.orders} orders, STALE_SIGNAL ${t.staleSignal}, decision lateness p50 ${t.latenessP50.toFixed(1)} s p99 ${t.latenessP99.toFixed(1)} s (venue), ${decidedPerSecond.toFixed(0)} candles decided per real second (${((BOTS * speed) / 60).toFixed(0)} due): ${keepsUp ? 'keeps up' : 'does NOT keep up'}\n`,
    );
    return { ...t, speed, decidedPerSecond, keepsUp };
  } finally {
    await run.stop();
    rmSync(run.dir, { recursive: true, force: true });
  }
}

/** The speed the run goes at: --speed when a trial says the daemon keeps up, else the fastest halved one that does. */
async function chooseSpeed(): Promise<number> {
  if (TRIAL_S === 0) return SPEED;
  process.stdout.write(
    `checking the daemon keeps up (trials of ${TRIAL_S} s: the orders' p99 decision lateness within ${KEEP_UP_P99_S} s, half the signal age, and STALE_SIGNAL at most ${MAX_STALE * 100}% of intents; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')})\n`,
  );
  for (let speed = SPEED; speed >= 10; speed = Math.floor(speed / 2)) {
    if ((await trial(speed)).keepsUp) {
      if (speed !== SPEED)
        process.stdout.write(
          `endurance: this machine cannot keep ${BOTS} bots at speed ${SPEED} within the signal age; running at speed ${speed}, the fastest that keeps up (--minutes ${Math.ceil((7.5 * DAY_MS) / speed / 60_000)} would cover 7.5 simulated days at it)\n`,
        );
      return speed;
    }
  }
  throw new Error(`the daemon keeps up at no speed from ${SPEED} down to 10: see the trials above`);
}

/**
 * --ceiling: trials at --speed, then doubling, until one does not keep up, then one at the speed halfway between
 * the last that kept up and it; the ceiling is the candles decided per real second of the fastest that kept up.
 */
async function ceiling(): Promise<number> {
  const t = TRIAL_S === 0 ? 60 : TRIAL_S;
  process.stdout.write(
    `decision throughput ceiling: ${BOTS} bots on ${SYMBOLS} symbols, trials of ${t} s (load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')})\n`,
  );
  let best: TrialResult | undefined;
  let failed: number | undefined;
  for (let speed = SPEED; speed <= 3600; speed *= 2) {
    const r = await trial(speed);
    if (!r.keepsUp) {
      failed = speed;
      break;
    }
    best = r;
  }
  if (best !== undefined && failed !== undefined) {
    const mid = await trial(Math.round((best.speed + failed) / 2));
    if (mid.keepsUp) best = mid;
    else failed = mid.speed;
  }
  process.stdout.write(
    best === undefined
      ? `ceiling: below speed ${SPEED} (no trial kept up)\n`
      : `ceiling: ${best.decidedPerSecond.toFixed(0)} candles decided per real second (${BOTS} bots at speed ${best.speed}, the fastest trial that kept up${failed === undefined ? '' : `; speed ${failed} did not`})\n`,
  );
  return best === undefined ? 1 : 0;
}

const fmtS = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));

/** The per-day table and the product's checks; answers the failures, each a sentence. */
function productReport(days: readonly DayFigures[], metricUnbooked: number): string[] {
  process.stdout.write(
    `\nper simulated day (venue time; lateness: an order's journal time minus its candle's close, venue seconds):\n` +
      `  day  covered  open h  intents  orders  per open h  fills  rejected  STALE_SIGNAL  BELOW_MIN_QTY  acked-no-fill  unbooked  dust-stopped  lateness p50/p99\n`,
  );
  for (const d of days) {
    const rate = d.openHours > 0 ? (d.orders / d.openHours).toFixed(1) : '-';
    process.stdout.write(
      `  ${String(d.day).padStart(3)}  ${d.covered.toFixed(2).padStart(7)}  ${d.openHours.toFixed(1).padStart(6)}  ${String(d.intents).padStart(7)}  ${String(d.orders).padStart(6)}  ${rate.padStart(10)}  ${String(d.fills).padStart(5)}  ${String(d.rejected).padStart(8)}  ${String(d.staleSignal).padStart(12)}  ${String(d.belowMinQty).padStart(13)}  ${String(d.ackedWithoutFill).padStart(13)}  ${String(d.unbooked).padStart(8)}  ${String(d.dustStopped.length).padStart(12)}  ${fmtS(d.latenessP50)}/${fmtS(d.latenessP99)}\n`,
    );
  }
  const failures: string[] = [];
  const unbooked = Math.max(
    days.reduce((n, d) => n + d.unbooked, 0),
    metricUnbooked,
  );
  if (unbooked > 0) failures.push(`${unbooked} fills not booked (the daemon's "fill not booked" lines)`);
  const stuck = [...new Set(days.flatMap((d) => d.dustStopped))];
  if (stuck.length > 0)
    failures.push(
      `${stuck.length} bots stuck on dust (a day with no order while holding only dust or denied BELOW_MIN_QTY): ${stuck.slice(0, 10).join(', ')}${stuck.length > 10 ? ' ...' : ''}`,
    );
  const intents = days.reduce((n, d) => n + d.intents, 0);
  const stale = days.reduce((n, d) => n + d.staleSignal, 0);
  if (stale > MAX_STALE * intents)
    failures.push(
      `STALE_SIGNAL ${stale} of ${intents} intents (${((100 * stale) / Math.max(1, intents)).toFixed(2)}%, above ${MAX_STALE * 100}%)`,
    );
  // Orders per open hour of the US market (a Reality pair makes no candle while it is closed), over days 2-7
  // that had at least 6 open hours and were at least half covered by the run.
  const judged = days.filter((d) => d.day >= 2 && d.day <= 7 && d.openHours >= 6 && d.covered >= 0.5);
  if (judged.length < 2) {
    process.stdout.write(
      `orders per day: not judged (${judged.length} of days 2-7 with 6 open hours or more covered; run longer: --minutes)\n`,
    );
  } else {
    const rates = judged.map((d) => d.orders / d.openHours);
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    const worst = Math.max(...rates.map((r) => Math.abs(r / mean - 1)));
    process.stdout.write(
      `orders per open hour over days ${judged.map((d) => d.day).join(', ')}: mean ${mean.toFixed(1)}, the farthest day ${(worst * 100).toFixed(1)}% from it (bound ${MAX_DRIFT * 100}%)\n`,
    );
    if (worst > MAX_DRIFT)
      failures.push(
        `orders per open hour drift ${(worst * 100).toFixed(1)}% across days 2-7 (bound ${MAX_DRIFT * 100}%)`,
      );
  }
  return failures;
}

/** The memory regression over simulated days 2-7; answers whether a bounded series grows past the bound. */
function memoryReport(samples: readonly Sample[]): string[] {
  const window = samples.filter((s) => s.day >= 1 && s.day <= 7);
  const covered =
    window.length > 0
      ? `${(window[0]?.day ?? 0).toFixed(2)}-${(window.at(-1)?.day ?? 0).toFixed(2)}`
      : 'none';
  const partial = (window.at(-1)?.day ?? 0) < 6.9;
  process.stdout.write(
    `\nregression over simulated days 2-7 (elapsed days ${covered}${partial ? ', a PARTIAL window: the run was shorter than 7 simulated days' : ''}; ${window.length} samples):\n`,
  );
  if (window.length < 10)
    return [`${window.length} samples after the first simulated day, 10 needed (run longer: --minutes)`];
  const failures: string[] = [];
  const xs = window.map((s) => s.day);
  for (const s of SERIES) {
    const ys = window.map((w) => w.values[s.key] ?? NaN);
    const k = slope(xs, ys);
    const over = s.bounded && k > MAX_SLOPE;
    if (over)
      failures.push(`${s.key} grows ${k.toFixed(3)} ${s.unit} per simulated day (bound ${MAX_SLOPE})`);
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
  return failures;
}

/** Fills the daemon exports as not booked (a metric named so, if it has one), summed; a fill booked to a deployment-level book is booked. */
const metricUnbookedOf = (m: ReadonlyMap<string, number>): number =>
  [...m].reduce((n, [k, v]) => n + (/^tradebot_\w*(unbooked|not_booked)\w*$/.test(k) ? v : 0), 0);

async function main(): Promise<number> {
  if (f.ceiling === true) return ceiling();
  const speed = await chooseSpeed();
  const run = await launch(speed);
  const { dir, journal, metricsPort, daemon } = run;
  const journalBytes = () =>
    [journal, `${journal}-wal`].reduce((a, p) => a + (existsSync(p) ? statSync(p).size : 0), 0);
  const samples: Sample[] = [];
  let last: Map<string, number> | undefined;
  process.stdout.write(
    `endurance: ${BOTS} bots on ${SYMBOLS} symbols, speed ${speed}, ${MINUTES} real minutes (${((MINUTES * 60 * speed) / 86_400).toFixed(1)} simulated days), a sample every ${SAMPLE_S} s; journal in ${dir}\n`,
  );
  let venueEnd = START_MS;
  try {
    const end = Date.now() + MINUTES * 60_000;
    let nextReport = 0;
    while (Date.now() < end) {
      if (daemon.proc.exitCode !== null)
        throw new Error(`the daemon exited:\n${daemon.output().slice(-3000)}`);
      const m = await scrapeMetrics(metricsPort);
      last = m;
      const day = (run.venueNow() - START_MS) / DAY_MS;
      const values: Record<string, number> = {};
      for (const s of SERIES)
        values[s.key] = (s.metric === '' ? journalBytes() : (m.get(s.metric) ?? NaN)) / s.scale;
      for (const [part, n] of largestStateSizes(m)) values[`state:${part}`] = n;
      samples.push({ day, values });
      if (day >= nextReport) {
        process.stdout.write(
          `day ${day.toFixed(2)}: rss ${values.rss?.toFixed(1)} MB, heap ${values.heapUsed?.toFixed(1)} MB, handles ${values.handles}, journal ${values.journal?.toFixed(2)} MB, polls ${m.get('tradebot_polls_total') ?? 0}, orders ${m.get('tradebot_orders_total') ?? 0}, STALE_SIGNAL ${staleOf(m)}, not booked ${run.unbookedAt.length}, 429s ${m.get('tradebot_rate_limited_total') ?? 0}\n`,
        );
        nextReport = Math.floor(day * 4 + 1) / 4; // every quarter of a simulated day
      }
      await sleep(SAMPLE_S * 1000);
    }
  } finally {
    venueEnd = run.venueNow();
    await run.stop();
  }

  const m = last ?? new Map<string, number>();
  const failures = [
    ...productReport(journalDays(journal, START_MS, venueEnd, run.unbookedAt, SYMBOLS), metricUnbookedOf(m)),
    ...memoryReport(samples),
  ];
  process.stdout.write(
    `totals: speed ${speed}, polls ${m.get('tradebot_polls_total') ?? 0}, poll errors ${m.get('tradebot_poll_errors_total') ?? 0}, 429s ${m.get('tradebot_rate_limited_total') ?? 0}, orders ${m.get('tradebot_orders_total') ?? 0}, fills ${m.get('tradebot_fills_total') ?? 0}, STALE_SIGNAL ${staleOf(m)}, bot restarts ${m.get('tradebot_bot_restarts_total') ?? 0}\n`,
  );
  for (const x of failures) process.stdout.write(`endurance: FAILED: ${x}\n`);
  if (failures.length === 0) process.stdout.write(`endurance: OK (speed ${speed})\n`);
  if (f.keep === true) process.stdout.write(`kept ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return failures.length > 0 ? 1 : 0;
}

/** STALE_SIGNAL denials so far, summed over the bots' labels of tradebot_denials_total. */
const staleOf = (m: ReadonlyMap<string, number>): number =>
  [...m].reduce(
    (n, [k, v]) => n + (k.startsWith('tradebot_denials_total{') && k.includes('code="STALE_SIGNAL"') ? v : 0),
    0,
  );

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`endurance: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
