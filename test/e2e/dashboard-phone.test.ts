// The dashboard's layout and words in a real headless Chromium (test/helpers/browser.ts), under C.UTF-8 and a
// full locale, on the demo daemon (embedded simulator at 60x, pinned start): nothing wider than the screen at
// 1280 and 390 px (the money line whole, the Flatten button of a position in view), the control-actions
// table laid out as a table, orders with their fills (status, size filled in the base coin, average price),
// times on the venue's clock with the zone, the equity chart showing the whole run, and Flatten all and Halt
// asking for confirmation (dismissed: nothing sent). Screenshots land in test-output/dashboard-phone/<locale>/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, describe, expect, it } from 'vitest';
import { afterPaint, launchBrowser, openPage, until } from '../helpers/browser.js';
import { dashboardUrl, startCli } from '../helpers/cli.js';
import { demoConfigFile } from '../helpers/demo-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-dashboard-phone-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'e2e-dashboard-phone-token-5d2e9a10';
const BOT = 'aapl-ma';
const SECTION = `#bot-${BOT}`;

/** The demo deployment (its simulator pinned to a Monday, 09:25 ET), with its files in the test's folder. */
function demoConfig(name: string): string {
  return demoConfigFile(dir, name, (demo) => expect(demo.venue.startTime).toBe('2026-11-23T14:25:00Z'));
}

/**
 * What is wider than the viewport: the page's scroll width, and every visible element whose box ends right of
 * the viewport (tag, class and text, to say which).
 */
const overflow = async (page: Page) =>
  (await page.evaluate(`(() => {
    const w = window.innerWidth;
    const wide = [];
    for (const e of document.querySelectorAll('body *')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > w + 0.5 || r.left < -0.5)
        wide.push(e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(r.left) + '..' + Math.round(r.right) + ' ' + (e.textContent || '').slice(0, 40));
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: w, wide };
  })()`)) as { scrollWidth: number; innerWidth: number; wide: string[] };

/**
 * The equity chart's plot and axes as drawn: the plot (the largest canvas), the price axis (canvases right of
 * it) and the time axis (canvases below it), each with its size and whether it lies inside the chart's box.
 */
const chartAxes = async (page: Page, id: string) =>
  (await page.evaluate(`(() => {
    const box = document.getElementById(${JSON.stringify(id)}).getBoundingClientRect();
    const shown = Array.from(document.querySelectorAll('#' + ${JSON.stringify(id)} + ' canvas'))
      .map((c) => c.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0);
    const plot = shown.reduce((a, r) => (r.width * r.height > a.width * a.height ? r : a), shown[0]);
    const inside = (r) => r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    const right = shown.filter((r) => r.left >= plot.right - 1 && r.top < plot.bottom);
    const below = shown.filter((r) => r.top >= plot.bottom - 1);
    return {
      priceAxisWidth: Math.round(Math.max(0, ...right.map((r) => r.width))),
      timeAxisHeight: Math.round(Math.max(0, ...below.map((r) => r.height))),
      axesInside: right.concat(below).every(inside),
      plotHeight: Math.round(plot.height),
    };
  })()`)) as { priceAxisWidth: number; timeAxisHeight: number; axesInside: boolean; plotHeight: number };

/** Whether the element is wholly inside the viewport's width and shown. */
const inView = async (page: Page, selector: string) =>
  (await page.evaluate(`(() => {
    const e = document.querySelector(${JSON.stringify(selector)});
    if (!e) return 'missing';
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.left >= 0 && r.right <= window.innerWidth ? 'in view' : 'cut: ' + r.left + '..' + r.right + ' of ' + window.innerWidth;
  })()`)) as string;

describe.each([{ lang: 'C.UTF-8' }, { lang: 'de_DE.UTF-8' }])(
  'the dashboard at 1280 and 390 px under $lang',
  ({ lang }) => {
    it('fits a phone, lays out its tables, shows orders with their fills and zoned times, the whole run, and asks before Flatten all and Halt', async () => {
      const shots = join('test-output', 'dashboard-phone', lang);
      mkdirSync(shots, { recursive: true });
      const d = startCli(['run', '--config', demoConfig(lang.replace(/\W/g, '-')), '--fresh'], {
        TRADEBOT_DASHBOARD_TOKEN: TOKEN,
        LANG: lang,
        LC_ALL: lang,
      });
      const browser = await launchBrowser({ lang });
      try {
        const url = await dashboardUrl(d);
        const api = async (path: string): Promise<unknown> =>
          (await fetch(new URL(path, url), { headers: { authorization: `Bearer ${TOKEN}` } })).json();
        const { page, errors } = await openPage(browser, `${url}#token=${TOKEN}`);
        const posted: string[] = [];
        page.on('request', (r) => {
          if (r.method() === 'POST') posted.push(r.url());
        });
        await page.setViewport({ width: 1280, height: 900 });
        await until(page, `document.body.dataset.mode === 'streaming'`, 'the live stream');

        // A position of aapl-ma: then, at 390 px, nothing is wider than the screen, the money line is whole and
        // the position's Flatten button is in view.
        await until(
          page,
          `document.querySelector('${SECTION} table.positions tbody tr button[data-action="flatten"]') !== null`,
          'a position of aapl-ma with its Flatten button',
        );
        await page.setViewport({ width: 390, height: 844 });
        await afterPaint(page);
        await page.screenshot({ path: join(shots, '390px.png'), fullPage: true });
        const phone = await overflow(page);
        expect(phone.wide, 'elements wider than 390 px').toEqual([]);
        expect(phone.scrollWidth).toBeLessThanOrEqual(phone.innerWidth);
        for (const k of ['equity', 'cash', 'realised PnL', 'unrealised PnL', 'fees'])
          expect(await inView(page, `${SECTION} .summary span[data-k="${k}"]`), k).toBe('in view');
        expect(await inView(page, `${SECTION} table.positions tbody tr button[data-action="flatten"]`)).toBe(
          'in view',
        );
        // The equity chart keeps its price and time axes on a phone, inside its box (the card layout of the
        // data tables once reached the chart's own table and clipped both below the plot).
        const axes = await chartAxes(page, `chart-${BOT}`);
        expect(axes.priceAxisWidth, JSON.stringify(axes)).toBeGreaterThanOrEqual(30);
        expect(axes.timeAxisHeight, JSON.stringify(axes)).toBeGreaterThanOrEqual(15);
        expect(axes.axesInside, JSON.stringify(axes)).toBe(true);
        expect(axes.plotHeight, JSON.stringify(axes)).toBeGreaterThanOrEqual(120);
        await page.setViewport({ width: 1280, height: 900 });
        await afterPaint(page);
        await page.screenshot({ path: join(shots, '1280px.png'), fullPage: true });
        const wide = await overflow(page);
        expect(wide.wide, 'elements wider than 1280 px').toEqual([]);
        expect(wide.scrollWidth).toBeLessThanOrEqual(wide.innerWidth);
        const wideAxes = await chartAxes(page, `chart-${BOT}`);
        expect(wideAxes.priceAxisWidth, JSON.stringify(wideAxes)).toBeGreaterThanOrEqual(30);
        expect(wideAxes.timeAxisHeight, JSON.stringify(wideAxes)).toBeGreaterThanOrEqual(15);
        expect(wideAxes.axesInside, JSON.stringify(wideAxes)).toBe(true);

        // Flatten all and Halt ask first; dismissed, nothing reaches the control API.
        const controlsBefore = ((await api(`/api/bots/${BOT}`)) as { controls: unknown[] }).controls.length;
        const dialogs: string[] = [];
        const answer = { accept: false };
        page.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void (answer.accept ? dialog.accept() : dialog.dismiss());
        });
        for (const action of ['flatten', 'halt']) {
          await page.click(`${SECTION} .controls button[data-action="${action}"]`);
          await until(
            page,
            `document.getElementById('notice').textContent.includes('cancelled')`,
            'the cancel',
          );
        }
        expect(dialogs).toHaveLength(2);
        expect(dialogs[0]).toMatch(
          /^Flatten aapl-ma: every position\? .*pauses new entries until you resume/,
        );
        expect(dialogs[1]).toMatch(/^Halt aapl-ma\? .*until it is re-armed/);
        expect(posted).toEqual([]);
        expect(((await api(`/api/bots/${BOT}`)) as { controls: unknown[] }).controls).toHaveLength(
          controlsBefore,
        );

        // A pause shows in the control-actions table, laid out as a table (its class once collided with the
        // button row's flex layout, which laid it out sideways).
        await page.click(`${SECTION} .controls button[data-action="pause"]`);
        await until(
          page,
          `document.querySelector('${SECTION} table.control-actions tbody tr') !== null`,
          'a pause',
        );
        expect(
          await page.evaluate(
            `getComputedStyle(document.querySelector('${SECTION} table.control-actions')).display`,
          ),
        ).toBe('table');
        // Accepted, Halt is sent, and the page says what it did.
        answer.accept = true;
        await page.click(`${SECTION} .controls button[data-action="halt"]`);
        await until(page, `document.querySelector('${SECTION}').dataset.state === 'HALTED'`, 'the halt');
        expect(await page.$eval('#notice', (e) => e.textContent)).toMatch(/HALTED: nothing is placed/);
        // The halt shows over the pause, and the pause it outlives keeps its own pill (re-armed, it is PAUSED).
        expect(
          await page.evaluate(
            `Array.from(document.querySelectorAll('${SECTION} .title .badge')).filter((b) => !b.hidden && b.textContent !== '').map((b) => b.textContent)`,
          ),
        ).toEqual(['HALTED', 'PAUSED']);
        expect(posted.filter((u) => u.endsWith('/halt'))).toHaveLength(1);

        // The entry that made the position is a market order that filled: its status says so, its size carries
        // its coin (a market buy is a quote amount), the size filled the base coin, with the average price.
        await until(
          page,
          `document.querySelector('${SECTION} table.orders tbody tr[data-status="filled"]') !== null`,
          'a filled order',
        );
        const cells = (await page.evaluate(
          `Array.from(document.querySelectorAll('${SECTION} table.orders tbody tr')).map((r) => [r.dataset.status].concat(Array.from(r.cells).map((c) => c.textContent)))`,
        )) as string[][];
        const filled = cells.find((r) => r[0] === 'filled') ?? [];
        const [, time, , side, , size, done, avg] = filled;
        expect(time).toMatch(/^\d\d:\d\d:\d\d ET$/);
        expect(size).toMatch(side === 'buy' ? / USDT$/ : / AAPL$/);
        expect(done).toMatch(/^\d+[.,]\d+ AAPL$/);
        expect(avg).toMatch(/^\d+[.,]\d{4}$/);
        // Every time of every table is the venue's, with its zone (no "earlier"); sells carry the base coin.
        const times = (await page.evaluate(
          `Array.from(document.querySelectorAll('${SECTION} table:not(.positions):not(.feeds):not(.rules):not(.open-orders) tbody tr')).map((r) => r.cells[0].textContent)`,
        )) as string[];
        expect(times.length).toBeGreaterThan(2);
        for (const t of times) expect(t).toMatch(/^\d\d:\d\d:\d\d ET$/);
        for (const r of cells.filter((x) => x[3] === 'sell')) expect(r[5]).toMatch(/ AAPL$/);

        // The chart shows the whole run: from the curve's first point (the daemon's) to its last.
        const { equity } = (await api('/api/equity?since=0')) as {
          equity: Record<string, { time: number }[]>;
        };
        const first = equity[BOT]?.[0]?.time ?? 0;
        await until(
          page,
          `(() => { const b = document.getElementById('chart-${BOT}').dataset; return Number(b.shownFrom) <= Number(b.from) && Number(b.shownTo) >= Number(b.to); })()`,
          'the chart to show the whole run',
          15_000,
        );
        const box = (await page.evaluate(
          `({ ...document.getElementById('chart-${BOT}').dataset })`,
        )) as Record<string, string>;
        expect(Number(box.from)).toBe(first);
        expect(Number(box.shownFrom)).toBeLessThanOrEqual(first);
        expect(Number(box.shownTo)).toBeGreaterThanOrEqual(Number(box.to));
        expect(errors).toEqual([]);
        d.proc.kill('SIGTERM');
        expect((await d.exited).code).toBe(0);
      } finally {
        await browser.close();
        if (d.proc.exitCode === null) d.proc.kill('SIGKILL');
      }
    }, 240_000);
  },
);
