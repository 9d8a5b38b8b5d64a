// A sweep pointed at a Redis nobody runs ends with a sentence, not a silent hang (it waited forever on
// closing connections that never opened).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('tradebot sweep --queue to an unreachable Redis', () => {
  it('exits 1 naming the queue and the fix (a hang would be killed at 60 s and exit with no code)', async () => {
    const r = await runCli(
      ['sweep', '-c', 'config/backtest.yaml', '--grid', 'fast=5,10', '--queue', 'redis://127.0.0.1:1'],
      {},
      60_000,
    );
    expect(r.stderr).toMatch(
      /no Redis at redis:\/\/127\.0\.0\.1:1 \(.*ECONNREFUSED.*\); start one or fix --queue/,
    );
    expect(r.code).toBe(1);
  }, 70_000);
});
