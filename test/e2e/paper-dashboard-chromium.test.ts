// A paper run's dashboard in a real headless Chromium under LANG=C.UTF-8: its header says PAPER, and a paper
// fill shows on the page like a live one. The simulator on loopback stands in for the real venue (pinned start).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { launchBrowser, openPage } from '../helpers/browser.js';
import { dashboardUrl, startCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-paper-dashboard-'));
const TOKEN = 'e2e-paper-dashboard-token-7f3a9c';
const LANG = 'C.UTF-8';

describe('the dashboard of a paper run in Chromium under C.UTF-8', () => {
  let sim: Simulator;
  beforeAll(async () => {
    // Monday 09:25 ET at 60x: the regular session opens 5 simulated minutes in (the demo's market).
    sim = await startSimulator({ seed: 42, speed: 60, startTime: Date.UTC(2026, 10, 23, 14, 25) });
  });
  afterAll(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says PAPER in its header and shows the paper fills', async () => {
    const demo = parse(readFileSync('config/demo.yaml', 'utf8')) as { bots: Record<string, unknown>[] };
    const f = join(dir, 'paper.yaml');
    writeFileSync(
      f,
      stringify({
        venue: { kind: 'paper', baseUrl: sim.baseUrl, timeScale: 60 },
        store: { path: join(dir, 'paper.db') },
        logging: { level: 'info', format: 'json' },
        metrics: { enabled: false },
        dashboard: { enabled: true, port: 0, token: '${TRADEBOT_DASHBOARD_TOKEN}' },
        bots: [{ ...demo.bots[0], poll: { tickersMs: 15000, fillsMs: 2000 } }],
      }),
    );
    const d = startCli(['run', '--config', f], { TRADEBOT_DASHBOARD_TOKEN: TOKEN, LANG, LC_ALL: LANG });
    const browser = await launchBrowser({ lang: LANG });
    try {
      const url = await dashboardUrl(d, 60_000);
      const { page, errors } = await openPage(browser, `${url}#token=${TOKEN}`);
      await page.waitForFunction(`document.getElementById('venue').textContent.startsWith('PAPER')`, {
        timeout: 60_000,
        polling: 100,
      });
      expect(await page.$eval('#venue', (e) => e.textContent)).toBe('PAPER at 60x');
      // The stream's state beside it says streaming, never "live" next to PAPER (issue 40).
      await page.waitForFunction(`document.body.dataset.mode === 'streaming'`, { timeout: 30_000 });
      expect(await page.$eval('#mode', (e) => e.textContent)).toBe('streaming');
      await page.waitForFunction(`document.querySelectorAll('table.fills tbody tr').length > 0`, {
        timeout: 120_000,
        polling: 100,
      });
      const shots = join('test-output', 'dashboard-paper', LANG);
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: join(shots, 'paper-header-and-fill.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      d.proc.kill('SIGTERM');
      await d.exited;
    }
    expect(d.stderr).not.toContain(TOKEN);
  }, 240_000);
});
