// The strategy's own series (ctx.plot) in the HTML report, drawn by headless Chromium under LANG=C.UTF-8:
// a series over the price sits in the candles' pane, one of its own in a pane below, each named in the legend,
// and over several symbols the select swaps them with the bars.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../src/backtest/engine.js';
import { expandDatasetRef, openDatasets } from '../../src/data/datasets.js';
import { metricsOf } from '../../src/research/metrics.js';
import { renderReport } from '../../src/research/report.js';
import { RiskLimitsSchema } from '../../src/risk/index.js';
import { defineStrategy } from '../../src/strategy/contract.js';
import { SMA } from '../../src/strategy/indicators.js';
import { toDecimal } from '../../src/strategy/intent-builders.js';
import { afterPaint, launchBrowser, openPage } from '../helpers/browser.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-plot-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plotting = defineStrategy({
  name: 'plotting',
  description: 'Plots an SMA over the price and the candle range below; never trades.',
  params: z.object({ period: z.number().int().min(2).default(20).describe('SMA period') }),
  intervals: ['1m'],
  init: () => new Map<string, SMA>(),
  onCandle(c, ctx, _emit, bySymbol) {
    let sma = bySymbol.get(c.symbol);
    if (sma === undefined) bySymbol.set(c.symbol, (sma = new SMA(ctx.params.period)));
    const v = sma.update(c.close);
    ctx.plot('sma(20)', v === null ? null : toDecimal(v), { pane: 'price' });
    ctx.plot('range', toDecimal(c.high - c.low));
  },
});

async function report(dataset: string, file: string): Promise<number> {
  const r = await runBacktest({
    source: openDatasets(expandDatasetRef(dataset)),
    dataset,
    strategy: plotting,
    params: {},
    risk: RiskLimitsSchema.parse({
      allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
      maxDataAgeMs: 604_800_000,
    }),
  });
  writeFileSync(file, renderReport(r, metricsOf(r), {}));
  return r.chart.length;
}

interface Drawn {
  rendered: string;
  plots: number;
  legend: string;
  panes: number;
  priceSeries: number;
  points: number[];
}

const drawn = `({
  rendered: document.body.dataset.rendered,
  plots: Number(document.body.dataset.plots),
  legend: document.querySelector('#plot-legend').textContent,
  panes: c1.panes().length,
  priceSeries: c1.panes()[0].getSeries().length,
  points: plotted.map((s) => s.data().filter((d) => d.value !== undefined).length),
})`;

describe('the strategy’s plotted series in the report, in Chromium', () => {
  it('draws a price overlay and a series in its own pane, named in the legend', async () => {
    const file = join(dir, 'one.html');
    const bars = await report('synthetic-1m:3:400', file);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser({ lang: 'C.UTF-8' });
      const { page, errors } = await openPage(browser, `file://${file}`);
      await afterPaint(page);
      expect(errors).toEqual([]);
      const d = (await page.evaluate(drawn)) as Drawn;
      expect(d.rendered).toBe('ok');
      expect(d.plots).toBe(2);
      expect(d.legend).toContain('sma(20) (over the price)');
      expect(d.legend).toContain('range (own panel)');
      expect(d.panes).toBe(2); // the candles with the SMA, and the range below
      expect(d.priceSeries).toBe(2); // candles and the SMA
      // The SMA from its 20th candle on, the range on every candle.
      expect(d.points).toEqual([bars - 19, bars]);
    } finally {
      await browser?.close();
    }
  }, 90_000);

  it('over several symbols, the select swaps the series with the bars', async () => {
    const file = join(dir, 'two.html');
    await report('synthetic-1m:7:300:AAAUSDT,BBBUSDT', file);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser({ lang: 'C.UTF-8' });
      const { page, errors } = await openPage(browser, `file://${file}`);
      await afterPaint(page);
      expect(errors).toEqual([]);
      const first = (await page.evaluate(`plotted[1].data()[0].value`)) as number;
      await page.select('#symbol', 'BBBUSDT');
      const d = (await page.evaluate(drawn)) as Drawn;
      expect(d.plots).toBe(2);
      expect(d.panes).toBe(2);
      expect(d.points).toEqual([281, 300]);
      expect(await page.evaluate(`plotted[1].data()[0].value`)).not.toBe(first);
    } finally {
      await browser?.close();
    }
  }, 90_000);
});
