// Sweeps across machines on BullMQ, for real: a redis-server on loopback, `tradebot worker` processes, the
// sweep command with --queue. One worker is SIGKILLed while it holds a run: the run is retried by the other,
// every run's trade hash equals the local sweep's and no run is counted twice. A worker with another file
// under the same name refuses with a sentence. Walk-forward on the queue equals walk-forward on threads.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCandles } from '../../../src/data/convert.js';
import { checkGrid } from '../../../src/research/grid.js';
import { jobFromConfig } from '../../../src/backtest/run-config.js';
import { formatSweep, parseGrid, runSweep, type SweepRow } from '../../../src/research/sweep.js';
import { syntheticSource } from '../../../src/data/synthetic.js';
import { walkForward } from '../../../src/research/walk-forward.js';
import { BacktestConfigSchema, loadYaml } from '../../../src/config/index.js';
import { loadStrategy } from '../../../src/strategy/loader.js';
import { startCli, type Running } from '../../helpers/cli.js';
import { redisMissing, startRedis, type RedisServer } from '../../helpers/redis.js';

const GRID = 'fast=5,8,11,14 slow=40,60';
const dir = mkdtempSync(join(tmpdir(), 'tradebot-queue-'));
const env = { TRADEBOT_CACHE_DIR: join(dir, 'cache') };
let redis: RedisServer | undefined;
const workers: Running[] = [];

const suite = redisMissing ? describe.skip : describe;
const title = `sweeps on a BullMQ queue${redisMissing ? ` (${redisMissing})` : ''}`;

// Said when the file loads, so the skip shows in the run's output and not only in a verbose listing.
if (redisMissing) console.warn(`sweep-queue.test.ts: ${redisMissing}`);

beforeAll(async () => {
  if (redisMissing) return;
  redis = await startRedis();
  mkdirSync(join(dir, 'data'));
  // Long enough that a run is still going when its worker is killed.
  await writeCandles(join(dir, 'data', 'syn.csv'), syntheticSource({ seed: 11, count: 100_000 }));
  writeFileSync(
    join(dir, 'bt.yaml'),
    `name: q\ndataset: data/syn.csv\nstrategy: ma-crossover\nparams: { quoteAmount: '1000' }\ncapital: '100000'\nrisk:\n  allowedSessions: [pre_market, regular, after_hours, overnight]\n  maxDataAgeMs: 604800000\n`,
  );
}, 60_000);

afterAll(async () => {
  for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const worker = (cwd = dir) => {
  const w = startCli(['worker', '--queue', redis?.url ?? '', '--lock-ms', '2000'], env, cwd);
  workers.push(w);
  return w;
};

/**
 * The local sweep of the same grid, in this process (cwd-relative dataset resolved against `dir`), on the
 * grid checked as the sweep command checks it (its sets typed as the strategy takes them).
 */
async function localRows(): Promise<SweepRow[]> {
  const { config } = loadYaml(BacktestConfigSchema, join(dir, 'bt.yaml'));
  const base = { ...jobFromConfig(config), dataset: join(dir, 'data', 'syn.csv') };
  const grid = parseGrid(GRID);
  const { sets } = checkGrid(await loadStrategy(base.strategy), base.params, grid);
  return runSweep({ base, grid, sets, workers: 2 });
}

suite(title, () => {
  it('runs an 8-run grid on two workers, survives one SIGKILLed mid-run, and matches the local sweep', async () => {
    const a = worker();
    const b = worker();
    await Promise.all([a.waitFor(/worker ready/, 30_000), b.waitFor(/worker ready/, 30_000)]);
    const sweep = startCli(
      ['sweep', '-c', 'bt.yaml', '--grid', GRID, '--queue', redis?.url ?? '', '--out', join(dir, 'queued')],
      env,
      dir,
    );
    // Kill whichever worker takes a run first, while it holds it.
    const [, victimJob] = await Promise.race([
      a.waitFor(/started job (\S+)/, 60_000).then((m) => [a, m[1]] as const),
      b.waitFor(/started job (\S+)/, 60_000).then((m) => [b, m[1]] as const),
    ]);
    const victim = a.stdout.includes(`started job ${victimJob}`) ? a : b;
    const survivor = victim === a ? b : a;
    victim.proc.kill('SIGKILL');
    await victim.exited;
    expect(victim.stdout).not.toContain(`finished job ${victimJob}`);

    const { code } = await sweep.exited;
    expect(sweep.stderr).not.toMatch(/error|refused/i);
    expect(code).toBe(0);
    // The killed worker's run was taken up again by the survivor.
    expect(survivor.stdout).toMatch(
      new RegExp(`started job ${victimJob} \\(attempt \\d\\)[\\s\\S]*finished job ${victimJob}`),
    );

    const queued = JSON.parse(
      readFileSync(join(dir, 'queued', 'q-sweep', 'sweep.json'), 'utf8'),
    ) as SweepRow[];
    const local = await localRows();
    expect(queued).toHaveLength(8);
    // No run counted twice: eight distinct parameter sets.
    expect(new Set(queued.map((r) => JSON.stringify(r.params))).size).toBe(8);
    const byParams = (rows: SweepRow[]) =>
      Object.fromEntries(rows.map((r) => [JSON.stringify(r.params), r.tradeHash]));
    expect(byParams(queued)).toEqual(byParams(local));
    // The same sweep.json as a local sweep writes: every row, metrics included, in the same order.
    expect(queued).toEqual(JSON.parse(JSON.stringify(local)));
    expect(queued.every((r) => r.metrics !== undefined && (r.metrics.trades ?? 0) > 0)).toBe(true);
    // The same table as a local sweep prints.
    expect(sweep.stdout).toContain(formatSweep(local, 'sharpe'));
    // SIGTERM stops the idle survivor cleanly.
    survivor.proc.kill('SIGTERM');
    expect((await survivor.exited).code).toBe(0);
    expect(survivor.stdout).toContain('stopping after the current run');
  }, 180_000);

  it('a worker whose file differs refuses the run with a sentence, and the sweep says so', async () => {
    const other = join(dir, 'elsewhere');
    mkdirSync(join(other, 'data'), { recursive: true });
    await writeCandles(join(other, 'data', 'syn.csv'), syntheticSource({ seed: 12, count: 1000 }));
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
    const w = worker(other);
    await w.waitFor(/worker ready/, 30_000);
    const r = startCli(
      [
        'sweep',
        '-c',
        'bt.yaml',
        '--grid',
        'fast=5 slow=40',
        '--queue',
        redis?.url ?? '',
        '--out',
        join(dir, 'refused'),
      ],
      env,
      dir,
    );
    expect((await r.exited).code).not.toBe(0);
    expect(r.stderr).toMatch(
      /worker refused the job: its data\/syn\.csv is not the sweep's dataset \(SHA-256/,
    );
    expect(w.stdout).toMatch(/refused job/);
    w.proc.kill('SIGKILL');
  }, 120_000);

  it('walk-forward on the queue equals walk-forward on local threads', async () => {
    const w = worker();
    await w.waitFor(/worker ready/, 30_000);
    const { config } = loadYaml(BacktestConfigSchema, join(dir, 'bt.yaml'));
    const base = { ...jobFromConfig(config), dataset: join(dir, 'data', 'syn.csv') };
    const o = {
      base,
      grid: parseGrid('fast=5,8 slow=40'),
      inSampleMs: 30 * 86_400_000,
      outOfSampleMs: 20 * 86_400_000,
    };
    const local = await walkForward({ ...o, workers: 2 });
    const { QueueRunner } = await import('../../../src/research/sweep-queue.js');
    const queued = await walkForward({
      ...o,
      runner: await QueueRunner.open({ url: redis?.url ?? '', dataset: base.dataset }),
    });
    expect(local.steps.length).toBeGreaterThan(1);
    expect(queued.steps.map((s) => [s.best, s.tradeHash])).toEqual(
      local.steps.map((s) => [s.best, s.tradeHash]),
    );
    expect(queued.metrics).toEqual(local.metrics);
  }, 120_000);

  it('a sweep over two symbol files with an exit in the grid runs on the queue as it runs locally', async () => {
    const datasets = [join(dir, 'data', 'aaa.csv'), join(dir, 'data', 'bbb.csv')];
    await writeCandles(datasets[0]!, syntheticSource({ seed: 21, count: 3000, symbol: 'AAAUSDT' }));
    await writeCandles(datasets[1]!, syntheticSource({ seed: 22, count: 3000, symbol: 'BBBUSDT' }));
    const w = worker();
    await w.waitFor(/worker ready/, 30_000);
    const { config } = loadYaml(BacktestConfigSchema, join(dir, 'bt.yaml'));
    const base = { ...jobFromConfig(config), dataset: datasets[0]!, datasets };
    const grid = parseGrid('fast=5 slow=40 exits.stopLoss=0.002,0.05');
    const { sets } = checkGrid(await loadStrategy(base.strategy), base.params, grid);
    const local = await runSweep({ base, grid, sets, workers: 2 });
    const { QueueRunner } = await import('../../../src/research/sweep-queue.js');
    const runner = await QueueRunner.open({ url: redis?.url ?? '', dataset: base.dataset, datasets });
    let queued: SweepRow[];
    try {
      queued = await runSweep({ base, grid, sets, pool: runner });
    } finally {
      await runner.close();
    }
    // Each job carried both files and the stop: the same rows, per-symbol figures included.
    expect(queued).toEqual(local);
    expect(new Set(queued.map((r) => r.tradeHash)).size).toBe(2);
    for (const r of queued) expect(Object.keys(r.bySymbol ?? {})).toEqual(['AAAUSDT', 'BBBUSDT']);
    expect(w.stdout).toMatch(/finished job/);
    w.proc.kill('SIGKILL');
  }, 120_000);
});
