// The HTML report opens in a real headless Chromium (the one shipped in the @sparticuz/chromium npm
// package, see test/helpers/browser.ts), offline, under the locales users have, and draws its charts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataset } from '../../src/backtest/datasets.js';
import { runBacktest } from '../../src/backtest/engine.js';
import { metricsOf } from '../../src/backtest/metrics.js';
import { renderReport } from '../../src/backtest/report.js';
import { RiskLimitsSchema } from '../../src/risk/index.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { afterPaint, drawnPixels, launchBrowser, openPage } from '../helpers/browser.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const risk = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});

describe('backtest report in Chromium', () => {
  let file: string;
  let trades: number;
  beforeAll(async () => {
    const r = await runBacktest({
      source: openDataset('sp500-daily'),
      dataset: 'sp500-daily',
      strategy: await loadStrategy('ma-crossover'),
      params: { fast: 20, slow: 100, quoteAmount: '5000' },
      risk,
      capital: '10000',
      slippageBps: 2,
    });
    trades = r.trades.length;
    file = join(dir, 'report.html');
    writeFileSync(file, renderReport(r, metricsOf(r)));
  });

  it('is one self-contained file (no CDN, no external script)', () => {
    expect(readFileSync(file, 'utf8')).not.toMatch(/<script[^>]+src=/);
  });

  // C.UTF-8 is the default of most Docker images and CI machines: Chromium then reports the language
  // "en-US@posix", which Intl refuses; the report must not depend on the browser's locale.
  for (const lang of ['C.UTF-8', 'C', 'en_US.UTF-8']) {
    it(`draws every chart and lists every trade under LANG=${lang}`, async () => {
      let browser: Browser | undefined;
      try {
        browser = await launchBrowser({ lang });
        const { page, errors } = await openPage(browser, `file://${file}`);
        expect(await page.evaluate('document.body.dataset.rendered')).toBe('ok');
        await afterPaint(page);
        expect(errors).toEqual([]);
        const pixels = await drawnPixels(page, '[data-chart]');
        expect(Object.keys(pixels).sort()).toEqual(['candles', 'drawdown', 'equity']);
        for (const [chart, n] of Object.entries(pixels))
          expect(n, `chart ${chart} has drawn pixels`).toBeGreaterThan(1000);
        expect(await page.$$eval('#trades tbody tr', (rows) => rows.length)).toBe(trades);
      } finally {
        await browser?.close();
      }
    }, 90_000);
  }
});
