// Decision throughput: the built daemon with 6, 60 and 200 bots (ma-crossover, spread over --symbols synthetic
// Reality pairs) against `tradebot sim` in another process at --speed, measured from outside the daemon: the
// candles its bots' strategies decided per real second (the journal's decided_candles rows after the warm-up,
// read from its SQLite file: a candle skipped while behind is not counted) over a window after a warm-up, and the
// share of them decided within the signal age (phase live; the others are late: replay). The same-run baseline is
// what the venue's clock asks for: bots x speed / 60 candles due per real second; a ratio below 1 means the
// daemon falls behind (its ceiling is then the figure), about 1 that it keeps up (raise --speed to find it).
//   npm run bench -- decisions [--speed 3600] [--symbols 6] [--seconds 30] [--warmup 10] [--bots 6,60,200]
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticRealityCodes } from '../src/sim/instruments.js';
import { numberFlag } from './lib/flags.js';
import { freePort, startDaemon, startSimProcess, writeDeployment, type BenchBot } from './lib/processes.js';

const SPEED = numberFlag('speed', 3600);
const SYMBOLS = numberFlag('symbols', 6);
const SECONDS = numberFlag('seconds', 30);
const WARMUP = numberFlag('warmup', 10);
const botsAt = process.argv.indexOf('--bots');
const STEPS = (botsAt > 0 ? (process.argv[botsAt + 1] ?? '') : '6,60,200').split(',').map(Number);
for (const [name, v, min, max] of [
  ['speed', SPEED, 1, 3600],
  ['symbols', SYMBOLS, 1, 1000],
  ['seconds', SECONDS, 1, 3600],
  ['warmup', WARMUP, 0, 3600],
  ...STEPS.map((b) => ['bots', b, 1, 1000] as const),
] as const)
  if (!Number.isInteger(v) || v < min || v > max) {
    process.stderr.write(`decisions: --${name} must be a whole number from ${min} to ${max}, got ${v}\n`);
    process.exit(2);
  }

const START = '2026-11-23T14:25:00Z'; // Monday 09:25 ET

/** The candles decided so far over every bot, and those within the signal age (read-only beside the daemon). */
function decided(journal: string): { all: number; live: number } {
  const db = new Database(journal, { readonly: true, fileMustExist: true });
  try {
    const n = (phase: string) =>
      (db.prepare('SELECT COUNT(*) AS n FROM decided_candles WHERE phase = ?').get(phase) as { n: number }).n;
    const live = n('live');
    return { all: live + n('replay'), live };
  } finally {
    db.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Step {
  readonly bots: number;
  readonly decidedPerSecond: number;
  readonly duePerSecond: number;
  /** The share of the window's decisions within the signal age. */
  readonly liveShare: number;
}

async function step(bots: number): Promise<Step> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-bench-decisions-'));
  const codes = syntheticRealityCodes(SYMBOLS);
  const list: BenchBot[] = Array.from({ length: bots }, (_, i) => ({
    name: `bot${i + 1}`,
    symbols: [`${codes[i % codes.length] ?? 'XAAA'}USDT`],
    strategy: 'ma-crossover',
    params: { fast: 3, slow: 8, quoteAmount: '200' },
  }));
  const { sim, baseUrl } = await startSimProcess({ speed: SPEED, startTime: START, extraPairs: SYMBOLS });
  try {
    const cfg = writeDeployment(dir, { baseUrl, speed: SPEED, metricsPort: await freePort(), bots: list });
    const daemon = await startDaemon(cfg, 300_000);
    try {
      await sleep(WARMUP * 1000);
      const journal = join(dir, 'journal.db');
      const c0 = decided(journal);
      const t0 = performance.now();
      await sleep(SECONDS * 1000);
      const c1 = decided(journal);
      const s = (performance.now() - t0) / 1000;
      const all = c1.all - c0.all;
      return {
        bots,
        decidedPerSecond: all / s,
        duePerSecond: (bots * SPEED) / 60,
        liveShare: all === 0 ? 0 : (c1.live - c0.live) / all,
      };
    } finally {
      await daemon.stop();
    }
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.stdout.write(
  `decision throughput: bots on ${SYMBOLS} symbols at speed ${SPEED}, ${SECONDS} s after ${WARMUP} s of warm-up (load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')})\n`,
);
for (const bots of STEPS) {
  const r = await step(bots);
  process.stdout.write(
    `${String(r.bots).padStart(4)} bots: ${r.decidedPerSecond.toFixed(0).padStart(6)} candles decided per real second, ${r.duePerSecond.toFixed(0)} due: ratio ${(r.decidedPerSecond / r.duePerSecond).toFixed(2)}, ${(r.liveShare * 100).toFixed(0)}% within the signal age\n`,
  );
}
