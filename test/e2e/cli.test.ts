// The tradebot command from the outside: help, exit codes, validation messages, schema, api calls.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tradebot CLI', () => {
  it('lists every command in --help', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['run', 'sim', 'validate', 'schema', 'api', 'account']) expect(r.stdout).toContain(c);
  });

  it('validate accepts the demo and exits 0', async () => {
    const r = await runCli(['validate', 'config/demo.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('config/demo.yaml: ok (3 bots)');
  });

  it('a broken YAML file prints its line and column and exits non-zero', async () => {
    const f = join(dir, 'broken.yaml');
    writeFileSync(
      f,
      'venue:\n  kind: simulator\nbots:\n  - name: a\n    strategy: ma-crossover\n    symbols: [AAPLUSDT]\n    risk:\n      maxOrderNotional: 500\n',
    );
    const v = await runCli(['validate', f]);
    expect(v.code).toBe(2);
    expect(v.stderr).toContain(`${f}:8:25 bots[0].risk.maxOrderNotional`);
    const run = await runCli(['run', '--config', f]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the daemon did not start/);
    expect(run.stderr).toContain(`${f}:8:25`);
  });

  it('schema prints a JSON Schema', async () => {
    const r = await runCli(['schema']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { type?: string }).type).toBe('object');
  });

  it('api calls an endpoint of the catalogue and prints its data', async () => {
    const r = await runCli(['api', 'tickers', '--sim', '--category', 'SPOT', '--symbol', 'AAPLUSDT']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { symbol: string }[])[0]?.symbol).toBe('AAPLUSDT');
  });

  it('api refuses a bad parameter naming it, with exit code 2', async () => {
    const r = await runCli([
      'api',
      'orderbook',
      '--sim',
      '--category',
      'SPOT',
      '--symbol',
      'AAPLUSDT',
      '--limit',
      '5000',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/limit = "5000": limit must be from 1 to 1000/);
  });

  it('sim refuses a bad flag with a sentence', async () => {
    const r = await runCli(['sim', '--port', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--port must be a number/);
  });
});

describe('one daemon per journal', () => {
  it('refuses a second daemon on the same journal, and takes over a lock left by a dead process', async () => {
    const { startCli } = await import('../helpers/cli.js');
    const { parse, stringify } = await import('yaml');
    const { readFileSync } = await import('node:fs');
    const cfg = parse(readFileSync('config/demo.yaml', 'utf8')) as {
      store: { path: string };
      metrics: { port: number };
    };
    cfg.store.path = join(dir, 'locked.db');
    cfg.metrics.port = 0;
    const f = join(dir, 'locked.yaml');
    writeFileSync(f, stringify(cfg));
    writeFileSync(`${cfg.store.path}.lock`, '999999'); // a dead pid: a stale lock
    const first = startCli(['run', '--config', f]);
    await first.waitFor(/"message":"running"/, 20_000);
    const second = await runCli(['run', '--config', f]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another tradebot \(pid \d+\) is running with the journal/);
    first.proc.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
  }, 60_000);
});
