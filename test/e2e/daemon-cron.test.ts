// Cron on the venue's clock, through the real CLI: the deployment's 16:00 ET task fires when the
// accelerated embedded simulator reads 16:00 ET (a simulated minute after start, about a real second),
// not at the wall clock's 16:00 ET.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-cron-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cron on the venue clock', () => {
  it('the 16:00 ET report of an accelerated embedded simulator fires at simulated 16:00 ET', async () => {
    const f = join(dir, 'cron.yaml');
    writeFileSync(
      f,
      stringify({
        venue: { kind: 'simulator', seed: 7, speed: 60, startTime: '2026-11-23T20:59:00Z' }, // 15:59 ET
        store: { path: join(dir, 'cron.db') },
        logging: { level: 'info', format: 'json' },
        metrics: { enabled: false },
        bots: [
          {
            name: 'close-report',
            strategy: 'reality-session',
            symbols: ['NVDAUSDT'],
            schedules: [{ cron: '0 16 * * 1-5', timezone: 'America/New_York', task: 'report' }],
          },
        ],
      }),
    );
    const d = startCli(['run', '--config', f]);
    try {
      await d.waitFor(/"message":"running"/, 30_000);
      const started = performance.now();
      // A simulated minute is a real second at 60x: well inside the cap, where the wall clock's 16:00 is not.
      const [line] = await d.waitFor(/.*"message":"scheduled task".*/, 20_000);
      const realMs = performance.now() - started;
      const task = JSON.parse(line) as { bot: string; task: string; venueTime: string };
      expect(task).toMatchObject({
        bot: 'close-report',
        task: 'report',
        venueTime: '2026-11-23 16:00:00 EST',
      });
      expect(realMs).toBeLessThan(15_000);
      await d.waitFor(/"message":"daily report".*"name":"close-report"/, 5_000);
    } finally {
      d.proc.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
    }
  }, 60_000);
});
