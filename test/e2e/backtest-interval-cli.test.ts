// `interval:` in a backtest file through the tradebot command (issue 30): it was accepted and ignored; now the run
// is at that interval (finer data resampled, and the summary and result.json say so) or refused with a sentence.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCandles } from '../../src/data/convert.js';
import { syntheticSource } from '../../src/data/synthetic.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-interval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { TRADEBOT_CACHE_DIR: join(dir, 'cache') };
const file5m = join(dir, 'syn-5m.csv');
const file3m = join(dir, 'syn-3m.csv');
beforeAll(async () => {
  await writeCandles(file5m, syntheticSource({ seed: 3, count: 500, interval: '5m' }));
  await writeCandles(file3m, syntheticSource({ seed: 3, count: 500, interval: '3m' }));
});

const RISK = `risk:\n  allowedSessions: [pre_market, regular, after_hours, overnight]\n  maxDataAgeMs: 604800000\n`;
const yaml = (name: string, dataset: string, interval: string): string => {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(
    f,
    `name: ${name}\ndataset: ${dataset}\ninterval: ${interval}\nstrategy: ma-crossover\nparams: { fast: 5, slow: 20, quoteAmount: '1000' }\n${RISK}`,
  );
  return f;
};

describe('tradebot backtest with interval: in the file', () => {
  it('runs 1m data at 5m, resampled: result.json meta and the summary say so, and the candles are counted at 5m', async () => {
    const r = await runCli(
      ['backtest', '--config', yaml('five', 'synthetic-1m:3:3000', '5m'), '--out', dir],
      env,
      60_000,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^interval +5m \(resampled from 1m\)$/m);
    expect(r.stdout).toMatch(/SYNUSDT 5m, 600 candles/);
    const result = JSON.parse(readFileSync(join(dir, 'five', 'result.json'), 'utf8')) as {
      meta: { interval: string; resampledFrom?: string; candles: number };
      trades: unknown[];
    };
    expect(result.meta).toMatchObject({ interval: '5m', resampledFrom: '1m', candles: 600 });
    expect(result.trades.length).toBeGreaterThan(0);
    // The report says it too: in its title and in the header a user pastes into an issue.
    const report = readFileSync(join(dir, 'five', 'report.html'), 'utf8');
    expect(report).toContain('<h1>ma-crossover on SYNUSDT (5m (resampled from 1m))</h1>');
    expect(report).toMatch(/dataset {4}synthetic-1m:3:3000: SYNUSDT 5m \(resampled from 1m\), 600 candles/);
  });

  it('refuses a 1m run on a 5m file and a 5m run on a 3m file, naming the file and the fix (exit 2)', async () => {
    const finer = await runCli(['backtest', '--config', yaml('one', file5m, '1m'), '--out', dir], env);
    expect(finer.code).toBe(2);
    expect(finer.stderr).toContain(
      `dataset ${file5m} holds 5m candles and the run's interval is 1m: 1m candles cannot be made from longer 5m ones; give 1m data, or set interval to one this data makes that the strategy declares (5m, 15m, 30m, 1H, 4H, 6H, 12H, 1D)`,
    );
    const odd = await runCli(['backtest', '--config', yaml('odd', file3m, '5m'), '--out', dir], env);
    expect(odd.code).toBe(2);
    expect(odd.stderr).toContain(
      `dataset ${file3m} holds 3m candles and the run's interval is 5m: 5m is not a whole number of 3m candles; give 5m data or data that divides it (1m)`,
    );
  });

  it('refuses an interval that is none, naming the field and the intervals there are (exit 2)', async () => {
    const r = await runCli(
      ['backtest', '--config', yaml('two', 'synthetic-1m:3:3000', '2m'), '--out', dir],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/interval.*interval must be one of 1m, 3m, 5m, 15m, 30m, 1H, 4H, 6H, 12H, 1D/);
  });

  it('validate refuses what backtest refuses, at the interval line, and passes what it runs', async () => {
    const bad = yaml('check-one', file5m, '1m');
    const refused = await runCli(['validate', bad], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `${bad}:3:11 interval: dataset ${file5m} holds 5m candles and the run's interval is 1m`,
    );
    const good = await runCli(['validate', yaml('check-five', 'synthetic-1m:3:3000', '5m')], env);
    expect(good.stderr).toBe('');
    expect(good.stdout).toMatch(/: ok \(backtest\)/);
  });
});
