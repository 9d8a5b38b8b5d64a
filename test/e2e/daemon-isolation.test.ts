// A bot that throws is isolated and restarted with backoff; the other bots keep trading.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { demoConfigFile } from '../helpers/demo-config.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-isolation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bot isolation', () => {
  it('restarts a failing bot with backoff while the others keep trading', async () => {
    const f = demoConfigFile(dir, 'iso', (demo) => {
      const crasher = {
        name: 'crasher',
        strategy: join(import.meta.dirname, 'fixtures', 'crashing-strategy.mjs'),
        symbols: ['TSLAUSDT'],
        interval: '1m',
        capital: '1000',
        maxSignalAgeMs: 0,
      };
      demo.bots = [demo.bots[0]!, crasher];
    });
    const d = startCli(['run', '--config', f]);
    await d.waitFor(
      /"bot":"crasher".*"message":"bot failed; restarting it, the others keep trading"|"message":"bot failed; restarting it, the others keep trading".*"bot":"crasher"/,
      30_000,
    );
    const before = (d.stderr.match(/"message":"order placed"/g) ?? []).length;
    await d.waitFor(
      /"message":"bot started".*"bot":"crasher"[\s\S]*"message":"bot started".*"bot":"crasher"|"bot":"crasher".*"message":"bot started"[\s\S]*"bot":"crasher".*"message":"bot started"/,
      30_000,
    );
    // aapl-ma keeps placing orders after the crash.
    const orders = () => (d.stderr.match(/"message":"order placed"/g) ?? []).length;
    await waitFor(() => orders() > before, {
      timeoutMs: 45_000,
      what: 'aapl-ma to place an order after crasher failed',
      detail: () => d.stderr.slice(-2000),
    });
    expect(d.proc.exitCode).toBeNull();
    expect(d.stderr).toMatch(/strategy bug on candle/);
    d.proc.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 90_000);
});
