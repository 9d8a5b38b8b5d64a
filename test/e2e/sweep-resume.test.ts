// A sweep stopped part way (Ctrl-C) and started again takes up where it stopped: it says how many runs it
// kept, runs the others, writes the same sweep.json as a sweep that was never stopped, and removes its
// checkpoint once the results are written.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-sweep-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tradebot sweep, stopped and started again', () => {
  it('resumes from its checkpoint and ends with the results of an uninterrupted sweep', async () => {
    const f = join(dir, 'bt.yaml');
    writeFileSync(
      f,
      `name: r\ndataset: synthetic-1m:5:200000\nstrategy: ma-crossover\nparams: { quoteAmount: '1000' }\ncapital: '100000'\nrisk:\n  allowedSessions: [pre_market, regular, after_hours, overnight]\n  maxDataAgeMs: 604800000\n`,
    );
    const args = (out: string) => [
      'sweep',
      '-c',
      f,
      '--grid',
      'fast=5,10 slow=30,60,90,120',
      '--workers',
      '1',
      '--out',
      join(dir, out),
    ];
    const partial = join(dir, 'stopped', 'r-sweep', 'sweep.partial.jsonl');
    const lines = () => (existsSync(partial) ? readFileSync(partial, 'utf8').trim().split('\n').length : 0);
    const first = startCli(args('stopped'));
    await waitFor(() => lines() >= 2, { timeoutMs: 60_000, what: 'two runs in the checkpoint' });
    first.proc.kill('SIGINT');
    await first.exited;
    const kept = lines();
    expect(kept).toBeLessThan(8);

    const again = await runCli(args('stopped'), {}, 90_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `resuming: ${kept} of 8 runs were finished by an earlier attempt (${partial}; delete it to run them again)`,
    );
    expect(existsSync(partial)).toBe(false);

    const whole = await runCli(args('whole'), {}, 90_000);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).not.toContain('resuming');
    const json = (out: string) => readFileSync(join(dir, out, 'r-sweep', 'sweep.json'), 'utf8');
    expect(json('stopped')).toBe(json('whole'));
  }, 180_000);
});
