// The demo deployment with five bots for 30 simulated minutes at speed 60, through the real CLI: the
// embedded simulator (which enforces the spec's limits, the reality group shared) answers not one 429,
// counted at the simulator itself, while every bot's candles and the venue polls stay fresh.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startCli } from '../helpers/cli.js';
import { demoConfig } from '../helpers/demo-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SIM_MINUTES = 30;
/** A next step of the loop below; the test waits on simulated time, this only paces the look. */
const tick = () => new Promise((r) => setTimeout(r, 200));

interface ReadyDetail {
  status: string;
  bots: ({ name: string; lastCandle?: number } | undefined)[];
}

describe('one rate limiter per venue', () => {
  it('runs the five-bot demo for 30 simulated minutes at speed 60 with zero 429 at the simulator and fresh feeds', async () => {
    const demo = demoConfig(join(dir, 'demo.db'));
    expect(demo.venue.speed).toBe(60);
    demo.logging = { format: 'json', level: 'info' };
    const template = demo.bots[0]!;
    for (const [name, sym] of [
      ['msft-ma', 'MSFTUSDT'],
      ['amzn-ma', 'AMZNUSDT'],
    ] as const)
      demo.bots.push({ ...template, name, symbols: [sym] });
    expect(demo.bots).toHaveLength(5);
    const f = join(dir, 'demo5.yaml');
    writeFileSync(f, stringify(demo));

    const d = startCli(['run', '--config', f]);
    try {
      const [, simUrl] = await d.waitFor(/"message":"embedded simulator started".*?"url":"([^"]+)"/, 30_000);
      const [, url] = await d.waitFor(/"health and metrics listening".*?"url":"([^"]+)"/, 30_000);
      const simNow = async () =>
        ((await (await fetch(`${simUrl}/sim/time`)).json()) as { data: { now: number } }).data.now;
      const start = await simNow();
      let checkedAt: number | undefined;
      let checks = 0;
      const stale: string[] = [];
      // Startup replays each bot's warm-up candles one bot after another (minutes of simulated time at
      // speed 60); from the moment every bot has a candle, every 5 simulated minutes each bot's last
      // candle must be at most 3 minutes old.
      for (let now = start; now - start < SIM_MINUTES * 60_000; now = await simNow()) {
        if (checkedAt === undefined || now - checkedAt >= 5 * 60_000) {
          const r = (await (await fetch(`${url}/readyz`)).json()) as ReadyDetail;
          const started = r.bots.every((b) => b?.lastCandle !== undefined);
          if (checkedAt === undefined && started) checkedAt = now;
          else if (checkedAt !== undefined) {
            checkedAt = now;
            checks++;
            for (const b of r.bots)
              if (!b || b.lastCandle === undefined || now - b.lastCandle > 3 * 60_000)
                stale.push(
                  `${b?.name ?? '?'} at +${Math.round((now - start) / 60_000)} min (last candle ${b?.lastCandle === undefined ? 'none' : `${Math.round((now - b.lastCandle) / 1000)} s old`})`,
                );
          }
        }
        await tick();
      }
      expect(checkedAt, 'every bot had a candle within the 30 minutes').toBeDefined();
      expect(checks).toBeGreaterThanOrEqual(3);
      const stats = (await (await fetch(`${simUrl}/sim/stats`)).json()) as {
        data: { rateLimited: Record<string, number> };
      };
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(stats.data.rateLimited).toEqual({});
      expect(stale).toEqual([]);
      expect(metrics).not.toMatch(/tradebot_rate_limited_total\{[^}]*\} [1-9]/);
      expect(metrics).not.toMatch(/tradebot_poll_errors_total\{[^}]*\} [1-9]/);
      expect(d.stderr).not.toMatch(/"code":"429"|Too Many Requests/);
      // The feeds did poll: tickers and suspension of all five symbols, fills of all five bots.
      expect(metrics).toMatch(/tradebot_polls_total\{feed="suspension"\} ([5-9]|\d\d+)/);
      d.proc.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
    } finally {
      d.proc.kill('SIGKILL');
    }
  }, 180_000);
});
