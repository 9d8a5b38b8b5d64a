// The HTML report opens in a real browser (Debian's headless Chromium), offline, and renders its charts.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDataset } from '../../src/backtest/datasets.js';
import { runBacktest } from '../../src/backtest/engine.js';
import { metricsOf } from '../../src/backtest/metrics.js';
import { renderReport } from '../../src/backtest/report.js';
import { RiskLimitsSchema } from '../../src/risk/index.js';
import { loadStrategy } from '../../src/strategy/loader.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const dir = mkdtempSync(join(tmpdir(), 'tradebot-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(process.env.TRADEBOT_SKIP_BROWSER === '1')('backtest report in Chromium', () => {
  it('is one self-contained file that renders candles with markers, equity, drawdown and the trade table', async () => {
    if (!CHROMIUM)
      throw new Error(
        'Chromium is not installed: run `apt-get install chromium` (or set TRADEBOT_SKIP_BROWSER=1)',
      );
    const strategy = await loadStrategy('ma-crossover');
    const risk = RiskLimitsSchema.parse({
      allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
      maxDataAgeMs: 604_800_000,
    });
    const r = await runBacktest({
      source: openDataset('sp500-daily'),
      dataset: 'sp500-daily',
      strategy,
      params: { fast: 20, slow: 100, quoteAmount: '5000' },
      risk,
      capital: '10000',
      slippageBps: 2,
    });
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReport(r, metricsOf(r)));
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=/); // no CDN, no external script
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${join(dir, 'profile')}`,
      '--virtual-time-budget=5000',
    ];
    const dom = execFileSync(CHROMIUM, [...args, '--dump-dom', `file://${file}`], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(dom).toContain('data-rendered="ok"');
    expect((dom.match(/<canvas/g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(dom).toContain('Trades (latest 29 of 29)');
    const shot = spawnSync(
      CHROMIUM,
      [...args, '--window-size=1200,1400', `--screenshot=${join(dir, 'report.png')}`, `file://${file}`],
      { timeout: 60_000 },
    );
    expect(shot.status).toBe(0);
    expect(readFileSync(join(dir, 'report.png')).length).toBeGreaterThan(20_000);
  }, 120_000);
});
