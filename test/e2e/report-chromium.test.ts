// The HTML report opens in a real headless Chromium (the one shipped in the @sparticuz/chromium npm
// package, see test/helpers/browser.ts), offline, under the locales users have, and draws its charts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataset } from '../../src/data/datasets.js';
import { metricsOf } from '../../src/research/metrics.js';
import { MAX_MARKERS, TRADES_PER_PAGE, exchangeTimeZone, renderReport } from '../../src/research/report.js';
import { type BacktestJob } from '../../src/backtest/run-config.js';
import { analyseRun, runJob } from '../../src/research/run-job.js';
import { afterPaint, drawnPixels, launchBrowser, openPage } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const risk = {
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'] as (
    'pre_market' | 'regular' | 'after_hours' | 'overnight'
  )[],
  maxDataAgeMs: 604_800_000,
};

/** The report as `tradebot backtest` writes it: run, second pass for benchmark and excursions, render. */
async function writeReport(job: BacktestJob, file: string): Promise<{ trades: number; fills: number }> {
  const { result } = await runJob(job);
  const source = openDataset(job.dataset);
  const analysis = await analyseRun(source, result);
  const instrument = source.meta.instrument;
  const m = metricsOf(result, { benchmark: analysis.benchmark, timeZone: exchangeTimeZone(instrument).zone });
  writeFileSync(
    file,
    renderReport(result, m, { instrument, benchmark: analysis.benchmark, excursions: analysis.excursions }),
  );
  return { trades: result.trades.length, fills: result.fills.length };
}

/** What the page shows, read in the browser. */
async function readPage(page: Page) {
  return (await page.evaluate(`({
    markers: Number(document.body.dataset.markers),
    total: Number(document.querySelector('#trades').dataset.total),
    rows: document.querySelectorAll('#trades tbody tr').length,
    firstNo: document.querySelector('#trades tbody tr td') ? document.querySelector('#trades tbody tr td').textContent : '',
    // Entry price, exit price and quantity of the shown rows (cells 6, 7, 8).
    numbers: Array.from(document.querySelectorAll('#trades tbody tr')).map((r) => [6, 7, 8].map((i) => r.cells[i].textContent)),
    monthlyYears: document.querySelectorAll('#monthly tbody tr').length,
    header: document.querySelector('#header').textContent,
    tiles: document.querySelector('.grid').textContent,
    bars: candles.data().length,
    range: c1.timeScale().getVisibleLogicalRange(),
  })`)) as {
    markers: number;
    total: number;
    rows: number;
    firstNo: string;
    numbers: string[][];
    monthlyYears: number;
    header: string;
    tiles: string;
    bars: number;
    range: { from: number; to: number } | null;
  };
}

describe('backtest report in Chromium', () => {
  let file: string;
  let trades: number;
  beforeAll(async () => {
    file = join(dir, 'report.html');
    ({ trades } = await writeReport(
      {
        dataset: 'sp500-daily',
        strategy: 'ma-crossover',
        params: { fast: 20, slow: 100, quoteAmount: '5000' },
        capital: '10000',
        feeRate: '0.001',
        slippageBps: 2,
        risk,
      },
      file,
    ));
  });

  it('is one self-contained file (no CDN, no external script)', () => {
    expect(readFileSync(file, 'utf8')).not.toMatch(/<script[^>]+src=/);
  });

  // C.UTF-8 is the default of most Docker images and CI machines: Chromium then reports the language
  // "en-US@posix", which Intl refuses; the report must not depend on the browser's locale.
  for (const lang of ['C.UTF-8', 'C', 'en_US.UTF-8']) {
    it(`draws every chart, the benchmark, the monthly table and the trades under LANG=${lang}`, async () => {
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
        const p = await readPage(page);
        expect(p.monthlyYears).toBe(21); // 2000 to 2020
        expect(p.tiles).toMatch(/Buy & hold return\s*95\.\d\d%/);
        expect(p.tiles).toMatch(/Alpha \(annual\)/);
        expect(p.header).toMatch(/span\s+2000-01-03 09:30 ET to 2020-04-17 09:30 ET \(America\/New_York\)/);
        expect(p.header).toMatch(/trade hash [0-9a-f]{64}/);
        expect(p.total).toBe(trades);
        expect(p.rows).toBe(Math.min(TRADES_PER_PAGE, trades));
        expect(p.firstNo).toBe(String(trades)); // newest first
        // Prices at the instrument's 2 decimals and quantities at its 4, so each column's points line up.
        const places = (x: string) => x.split('.')[1]?.length ?? 0;
        expect(new Set(p.numbers.map((r) => r.map(places).join(' ')))).toEqual(new Set(['2 2 4']));
        expect(p.markers).toBeGreaterThan(0);
        expect(p.markers).toBeLessThanOrEqual(MAX_MARKERS);
        // The price chart shows the whole run, not its last years.
        expect(p.range?.from).toBeLessThanOrEqual(0.5);
        expect(p.range?.to).toBeGreaterThanOrEqual(p.bars - 1.5);
      } finally {
        await browser?.close();
      }
    }, 90_000);
  }

  it('on a 2M-candle run with tens of thousands of fills: at most MAX_MARKERS markers, the whole span, every trade paged', async () => {
    const big = join(dir, 'big.html');
    const { trades: n, fills } = await writeReport(
      {
        dataset: 'synthetic-1m:7:2000000',
        strategy: 'ma-crossover',
        params: { fast: 10, slow: 30 },
        capital: '10000',
        feeRate: '0.001',
        slippageBps: 0,
        risk: {},
      },
      big,
    );
    expect(fills).toBeGreaterThan(10 * MAX_MARKERS);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser({ lang: 'C.UTF-8' });
      const { page, errors } = await openPage(browser, `file://${big}`, 60_000);
      await afterPaint(page);
      expect(errors).toEqual([]);
      const p = await readPage(page);
      expect(p.markers).toBeGreaterThan(0);
      expect(p.markers).toBeLessThanOrEqual(MAX_MARKERS);
      expect(p.total).toBe(n);
      expect(p.range?.from).toBeLessThanOrEqual(0.5);
      expect(p.range?.to).toBeGreaterThanOrEqual(p.bars - 1.5);
      // The last page holds the first trade.
      await page.evaluate(`showTradesPage(${Math.ceil(n / TRADES_PER_PAGE) - 1})`);
      const last = (await page.evaluate(
        `Array.from(document.querySelectorAll('#trades tbody tr')).map((r) => r.cells[0].textContent)`,
      )) as string[];
      expect(last[last.length - 1]).toBe('1');
    } finally {
      await browser?.close();
    }
  }, 180_000);
});

describe('the report of a run over several symbols in Chromium', () => {
  it('shows the first symbol, and another one picked in the select, each with its own bars and fills', async () => {
    const cfg = join(dir, 'two.yaml');
    writeFileSync(
      cfg,
      `name: two\ndataset: synthetic-1m:7:4000:AAAUSDT,BBBUSDT\nstrategy: ma-crossover\nparams: { fast: 10, slow: 40, quoteAmount: '1000' }\nrisk: { allowedSessions: [pre_market, regular, after_hours, overnight], maxDataAgeMs: 604800000 }\n`,
    );
    const r = await runCli(['backtest', '--config', cfg, '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'two', 'result.json'), 'utf8')) as {
      bySymbol: Record<string, { fills: number; candles: number }>;
    };
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser({ lang: 'C.UTF-8' });
      const { page, errors } = await openPage(browser, `file://${join(dir, 'two', 'report.html')}`);
      await afterPaint(page);
      expect(errors).toEqual([]);
      const shown = async () =>
        (await page.evaluate(`({
          options: [...document.querySelectorAll('#symbol option')].map((o) => o.textContent),
          caption: document.querySelector('#chart-caption').textContent,
          markers: Number(document.body.dataset.markers),
          firstClose: candles.data()[0].close,
        })`)) as { options: string[]; caption: string; markers: number; firstClose: number };
      const a = await shown();
      expect(a.options).toEqual(['AAAUSDT', 'BBBUSDT']);
      expect(a.caption).toContain(`markers for ${result.bySymbol.AAAUSDT?.fills} fills`);
      await page.select('#symbol', 'BBBUSDT');
      const b = await shown();
      expect(b.caption).toContain(`markers for ${result.bySymbol.BBBUSDT?.fills} fills`);
      // Another series (seed 8, not 7): other prices on the chart.
      expect(b.firstClose).not.toBe(a.firstClose);
      expect(b.markers).toBeGreaterThan(0);
      expect((await drawnPixels(page, '#candles')).candles).toBeGreaterThan(1000);
      expect(errors).toEqual([]);
    } finally {
      await browser?.close();
    }
  }, 120_000);
});

describe('sweep.html and walk-forward.html in Chromium', () => {
  it('sweep.html: a heatmap of the chosen metric for two parameters and a table that sorts on click', async () => {
    const out = join(dir, 'sweeps');
    const r = await runCli(
      [
        ...[
          'sweep',
          '-c',
          'config/backtest.yaml',
          '--grid',
          'fast=10,20 slow=100,150',
          '--metric',
          'totalReturn',
        ],
        ...['--workers', '2', '--out', out],
      ],
      {},
      120_000,
    );
    expect(r.code, r.stderr).toBe(0);
    const file = join(out, 'sp500-ma-sweep', 'sweep.html');
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser({ lang: 'C.UTF-8' });
      const { page, errors } = await openPage(browser, `file://${file}`);
      expect(errors).toEqual([]);
      const heat = (await page.evaluate(
        `Array.from(document.querySelectorAll('#heatmap tbody td')).map((td) => td.textContent)`,
      )) as string[];
      expect(heat).toHaveLength(4);
      for (const v of heat) expect(v).toMatch(/^-?\d+\.\d\d%$/);
      const column = `Array.from(document.querySelectorAll('#runs tbody tr')).map((r) => Number(r.cells[0].dataset.v))`;
      // Ranked by the metric first; a click on "fast" sorts by it, a second click reverses.
      await page.click('#runs th:nth-child(1)');
      const desc = (await page.evaluate(column)) as number[];
      expect(desc).toEqual([20, 20, 10, 10]);
      await page.click('#runs th:nth-child(1)');
      expect(await page.evaluate(column)).toEqual([10, 10, 20, 20]);
    } finally {
      await browser?.close();
    }
  }, 180_000);

  it('walk-forward.html: the stitched equity drawn and one row of in-sample against out-of-sample per window', async () => {
    const out = join(dir, 'wf');
    const r = await runCli(
      [
        ...['sweep', '-c', 'config/backtest.yaml', '--grid', 'fast=20,50 slow=200', '--walk-forward'],
        ...['--in-sample', '730d', '--out-of-sample', '730d', '--workers', '2', '--out', out],
      ],
      {},
      180_000,
    );
    expect(r.code, r.stderr).toBe(0);
    const windows = r.stdout.split('\n').filter((l) => /^\d{4}-\d\d-\d\d\.\.\d{4}/.test(l));
    expect(windows.length).toBeGreaterThanOrEqual(8);
    expect(r.stdout).toMatch(/stitched out-of-sample: .* trades \d+/);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser({ lang: 'C' });
      const { page, errors } = await openPage(
        browser,
        `file://${join(out, 'sp500-ma-walk-forward', 'walk-forward.html')}`,
      );
      await afterPaint(page);
      expect(errors).toEqual([]);
      expect((await drawnPixels(page, '[data-chart]')).equity).toBeGreaterThan(1000);
      expect(await page.evaluate(`document.querySelectorAll('#windows tbody tr').length`)).toBe(
        windows.length,
      );
      // The chosen parameters are the swept ones; the fixed one is named once, above.
      const chosen = (await page.evaluate(
        `[...document.querySelectorAll('#windows tbody tr')].map((tr) => tr.cells[2].textContent)`,
      )) as string[];
      for (const c of chosen) expect(c).toMatch(/^fast (20|50), slow 200$/);
      expect(await page.evaluate(`document.querySelector('p').textContent`)).toContain(
        'Fixed parameters: quoteAmount 5000.',
      );
      // A window's dates read on one line ("2010-01-04 to 2011-12-30"), not broken at a hyphen.
      expect(
        await page.evaluate(`(() => {
          const r = document.createRange();
          r.selectNodeContents(document.querySelector('#windows tbody td'));
          return r.getClientRects().length;
        })()`),
      ).toBe(1);
      const tiles = (await page.evaluate(
        `[...document.querySelectorAll('.m')].map((m) => m.textContent)`,
      )) as string[];
      expect(tiles.find((t) => t.startsWith('In the market'))).toMatch(/^In the market\d+\.\d\d%$/);
    } finally {
      await browser?.close();
    }
  }, 240_000);
});
