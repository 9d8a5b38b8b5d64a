// `tradebot hyperopt` end to end on the built CLI: a search killed part way and started again ends with the
// results of an uninterrupted one of the same seed; a search over parameters, exits and protections gives the
// same trials on two `tradebot worker` processes through Redis as in one process; a bad space exits 2.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type Running } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { redisMissing, startRedis, type RedisServer } from '../helpers/redis.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-hyperopt-'));
let redis: RedisServer | undefined;
const workers: Running[] = [];
afterAll(async () => {
  for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited));
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const config = join(dir, 'bt.yaml');
writeFileSync(
  config,
  `name: h\ndataset: synthetic-1H:5:3000\nstrategy: ma-crossover\nparams: { quoteAmount: '1000' }\ncapital: '100000'\nrisk:\n  allowedSessions: [pre_market, regular, after_hours, overnight]\n  maxDataAgeMs: 604800000\n`,
);
const SPACE =
  'fast=int(5,30) slow=int(40,120) exits.stopLoss=real(0.02,0.2) protections.cooldownAfterStop=int(1,5)';
const args = (out: string, more: string[] = []) => [
  'hyperopt',
  '-c',
  config,
  '--space',
  SPACE,
  '--budget',
  '12',
  '--batch',
  '4',
  '--startup',
  '4',
  '--seed',
  '7',
  '--out',
  join(dir, out),
  ...more,
];
const json = (out: string) => readFileSync(join(dir, out, 'h-hyperopt', 'hyperopt.json'), 'utf8');

describe('tradebot hyperopt', () => {
  it('killed part way and started again, ends with the results of an uninterrupted search', async () => {
    const partial = join(dir, 'stopped', 'h-hyperopt', 'hyperopt.partial.jsonl');
    const lines = () => (existsSync(partial) ? readFileSync(partial, 'utf8').trim().split('\n').length : 0);
    const first = startCli(args('stopped', ['--workers', '1']));
    await waitFor(() => lines() >= 5, { timeoutMs: 120_000, what: 'five trials in the checkpoint' });
    first.proc.kill('SIGKILL');
    await first.exited;
    const kept = lines();
    expect(kept).toBeLessThan(12);

    const again = await runCli(args('stopped', ['--workers', '1']), {}, 180_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resumed: \d+ trials were finished by an earlier attempt/);
    expect(existsSync(partial)).toBe(false);

    const whole = await runCli(args('whole', ['--workers', '2']), {}, 180_000);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout).toMatch(
      /^best: trial \d+ \{"fast":\d+,"slow":\d+,"exits\.stopLoss":"[\d.]+","protections\.cooldownAfterStop":\d\}/m,
    );
    expect(whole.stdout).toMatch(/The winner is (likely|unlikely to be|may be) overfit: PBO/);
    expect(json('stopped')).toBe(json('whole'));
    const result = JSON.parse(json('whole')) as { trials: unknown[]; verdict: { pbo: { splits: number } } };
    expect(result.trials).toHaveLength(12);
    expect(result.verdict.pbo.splits).toBe(12870);
    expect(readdirSync(join(dir, 'whole', 'h-hyperopt', 'trials'))).toHaveLength(12);
    const page = readFileSync(join(dir, 'whole', 'h-hyperopt', 'hyperopt.html'), 'utf8');
    expect(page).toContain('Overfitting verdict');
    // The rows are the trials by their loss: the caption says so (it once said "ranked by sharpe").
    expect(page).toMatch(/12 runs, ranked by the \w+ loss, lowest first\./);
  }, 400_000);

  (redisMissing ? it.skip : it)(
    'over parameters, exits and protections, gives the same trials on two workers through Redis as in one process',
    async () => {
      redis = await startRedis();
      for (let i = 0; i < 2; i++)
        workers.push(startCli(['worker', '--queue', redis.url, '--lock-ms', '5000']));
      await Promise.all(workers.map((w) => w.waitFor(/worker ready/, 30_000)));
      const queued = await runCli(args('queued', ['--queue', redis.url]), {}, 300_000);
      expect(queued.code, queued.stderr).toBe(0);
      const local = existsSync(join(dir, 'whole', 'h-hyperopt', 'hyperopt.json'))
        ? 'whole'
        : (await runCli(args('local', ['--workers', '1']), {}, 180_000), 'local');
      expect(json('queued')).toBe(json(local));
    },
    400_000,
  );

  it('ends a sweep with the verdict too: the sentence, verdict.json and the page, the winner walked forward', async () => {
    const r = await runCli(
      [
        'sweep',
        '-c',
        config,
        '--grid',
        'fast=5,10,20 slow=60,90',
        '--workers',
        '2',
        '--in-sample',
        '60d',
        '--out-of-sample',
        '15d',
        '--out',
        join(dir, 'sweep'),
      ],
      {},
      120_000,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /The winner (is likely|may be|is unlikely to be) overfit: PBO [\d.]+% .*; deflated Sharpe ratio [\d.]+, .* after 6 trials .*; walked forward over \d+ windows/,
    );
    const v = JSON.parse(readFileSync(join(dir, 'sweep', 'h-sweep', 'verdict.json'), 'utf8')) as {
      pbo: { splits: number };
      deflatedSharpe: { trials: number };
    };
    expect(v.deflatedSharpe.trials).toBe(6);
    expect(v.pbo.splits).toBe(12870);
    expect(readFileSync(join(dir, 'sweep', 'h-sweep', 'sweep.html'), 'utf8')).toContain('<p id="verdict"');
  }, 200_000);

  it('refuses a bad space naming the dimension and the fix, exit 2', async () => {
    const r = await runCli(['hyperopt', '-c', config, '--space', 'fast=int(50,5)', '--budget', '5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fast=int(50,5): low must be below high; write fast=int(5,50)');
    const u = await runCli(['hyperopt', '-c', config, '--space', 'fats=int(5,50)', '--budget', '5']);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('the search space does not fit ma-crossover');
    expect(u.stderr).toContain('fats');
  });
});
