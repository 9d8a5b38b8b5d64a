// The acceptance test of the cockpit: the demo daemon (embedded simulator, accelerated) with its
// dashboard, driven in a real headless Chromium (test/helpers/browser.ts) under C.UTF-8 and a full
// locale. It sees a position and a fill appear, pauses a bot through the page and sees no new entry
// while paused (PAUSED denials instead), flattens it to zero, and is refused every control call
// without the token. Screenshots land in test-output/dashboard/<locale>/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTROL_ACTIONS } from '../../src/store/index.js';
import { afterPaint, drawnPixels, launchBrowser, openPage, until } from '../helpers/browser.js';
import { dashboardUrl, startCli } from '../helpers/cli.js';
import { demoConfigFile, type DemoConfig } from '../helpers/demo-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-dashboard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const TOKEN = 'e2e-dashboard-token-0c4f7d19a2b8';
const BOT = 'aapl-ma';
const SECTION = `#bot-${BOT}`;

interface ApiBot {
  name: string;
  paused: boolean;
  positions: { symbol: string; quantity: string }[];
  /** ts: venue time; undefined for orders read from the journal when the dashboard attached. */
  orders: { ts?: number; side: string; tag: string; status: string }[];
  controls: { ts: number; action: string; who?: string; reason: string }[];
  denials: { code: string }[];
}

/** The demo deployment as `npm start` runs it (its dashboard on), with its files in the test's folder and free ports. */
function demoConfig(name: string, change: (d: DemoConfig) => void = () => undefined): string {
  return demoConfigFile(dir, name, (demo) => {
    expect(demo.dashboard.enabled).toBe(true);
    change(demo);
  });
}

/** The colour of the equity line (#2962ff, src/web/page.ts). */
const EQUITY_LINE = [0x29, 0x62, 0xff] as const;

/** How the bot's state badge reads (PAUSED is a trading state). */
const stateBadge = async (page: Page) =>
  (await page.evaluate(`document.querySelector('${SECTION} .badge.state').textContent`)) as string;

/** How the bot's separate PAUSED badge (a pause under a halt) shows: its CSS display and its text. */
const pausedBadge = async (page: Page) =>
  (await page.evaluate(
    `(() => { const e = document.querySelector('${SECTION} .badge.paused'); return { display: getComputedStyle(e).display, text: e.textContent }; })()`,
  )) as { display: string; text: string };

describe.each([
  // The number pattern of the equity in the page: grouped thousands, two decimals, in the locale's spelling.
  { lang: 'C.UTF-8', money: /equity \d{1,3}(,\d{3})*\.\d{2} USDT/ },
  { lang: 'de_DE.UTF-8', money: /equity \d{1,3}(\.\d{3})*,\d{2} USDT/ },
])('the dashboard in Chromium under $lang', ({ lang, money }) => {
  it('shows positions and fills live, pauses (PAUSED denials, no entry), flattens to zero, and refuses control without the token', async () => {
    const shots = join('test-output', 'dashboard', lang);
    mkdirSync(shots, { recursive: true });
    const d = startCli(['run', '--config', demoConfig(lang.replace(/\W/g, '-')), '--fresh'], {
      TRADEBOT_DASHBOARD_TOKEN: TOKEN,
      LANG: lang,
      LC_ALL: lang,
    });
    const browser = await launchBrowser({ lang });
    try {
      const url = await dashboardUrl(d);
      const api = async (path: string): Promise<unknown> => {
        const r = await fetch(new URL(path, url), { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(r.status).toBe(200);
        return r.json();
      };
      const bot = async () => (await api(`/api/bots/${BOT}`)) as ApiBot;

      // Opened with the token in the fragment (never sent to the server); the page drops it from the address.
      const { page, errors } = await openPage(browser, `${url}#token=${TOKEN}`);
      // Flatten and Halt ask for confirmation (dashboard-phone.test.ts dismisses one): accepted here.
      page.on('dialog', (dialog) => void dialog.accept());
      await page.setViewport({ width: 1400, height: 1000 });
      await until(page, `document.body.dataset.mode === 'streaming'`, 'the live stream');
      expect(page.url()).not.toContain(TOKEN);

      // A position and a fill appear (the demo's ma-crossover buys a few simulated minutes in).
      const positionShown = () =>
        until(
          page,
          `document.querySelectorAll('${SECTION} table.positions tbody tr').length > 0 && document.querySelectorAll('${SECTION} table.fills tbody tr').length > 0`,
          'a position and a fill of aapl-ma on the page',
        );
      await positionShown();
      const summary = await page.$eval(`${SECTION} .summary`, (e) => e.textContent ?? '');
      expect(summary).toMatch(money);
      await page.screenshot({ path: join(shots, '1-position-and-fill.png'), fullPage: true });

      // Pause through the page, with a reason, then flatten. At 60x a candle closes every real second, and
      // the strategy may sell on a death cross before the flatten arrives: then it is resumed, and tried
      // again on its next position (a flatten with nothing to sell proves nothing).
      await page.type(`${SECTION} input.reason`, 'e2e: pause before the news');
      let pausedAt = 0;
      let flattened = false;
      for (let attempt = 0; attempt < 5 && !flattened; attempt++) {
        if (attempt > 0) {
          await page.click(`${SECTION} .controls button[data-action="resume"]`);
          await until(page, `document.querySelector('${SECTION}').dataset.paused === 'false'`, 'resumed');
          expect((await pausedBadge(page)).display).toBe('none');
          await positionShown();
        }
        await page.click(`${SECTION} .controls button[data-action="pause"]`);
        await until(page, `document.querySelector('${SECTION}').dataset.paused === 'true'`, 'the bot paused');
        // The state reads PAUSED, once: no second PAUSED pill beside it.
        expect(await stateBadge(page)).toBe('PAUSED');
        expect((await pausedBadge(page)).display).toBe('none');
        const paused = await bot();
        const pause = paused.controls.at(-1);
        expect(pause).toMatchObject({ action: 'pause', reason: 'e2e: pause before the news' });
        expect(pause?.who).toMatch(/^token:[0-9a-f]{8}$/);
        pausedAt = pause?.ts ?? 0;
        if (paused.positions.length === 0) continue;
        // Flatten through the page: the position goes to zero through the gate (an exit runs while paused).
        await page.click(`${SECTION} .controls button[data-action="flatten"]`);
        await until(
          page,
          `document.querySelectorAll('${SECTION} table.positions tbody tr').length === 0`,
          'the position of aapl-ma to go to zero',
        );
        const flat = await bot();
        expect(flat.positions).toEqual([]);
        // The empty table says so.
        expect(
          await page.evaluate(
            `document.querySelector('${SECTION} table.positions tfoot td.empty')?.textContent`,
          ),
        ).toBe('none');
        expect(flat.controls.at(-1)).toMatchObject({ action: 'flatten' });
        flattened = flat.orders.some(
          (o) =>
            o.tag === 'flatten' &&
            o.side === 'sell' &&
            ['acked', 'partially filled', 'filled'].includes(o.status) &&
            (o.ts ?? 0) >= pausedAt,
        );
      }
      expect(flattened, 'a flatten sold a position while paused').toBe(true);
      await page.screenshot({ path: join(shots, '2-flattened.png'), fullPage: true });

      // While paused the strategy's next entry is denied PAUSED, with its sentence, and never placed.
      await until(
        page,
        `document.querySelector('${SECTION} table.denials tbody tr[data-code="PAUSED"]') !== null`,
        'a PAUSED denial of the next entry',
        150_000,
      );
      const sentence = await page.$eval(
        `${SECTION} table.denials tbody tr[data-code="PAUSED"] td:last-child`,
        (e) => e.textContent ?? '',
      );
      expect(sentence).toMatch(/paused by the operator: no new entry on AAPLUSDT/);
      const later = await bot();
      expect(later.paused).toBe(true);
      expect(later.orders.filter((o) => o.side === 'buy' && (o.ts ?? 0) > pausedAt)).toEqual([]);
      expect(later.positions).toEqual([]);
      await page.screenshot({ path: join(shots, '3-paused-denials.png'), fullPage: true });

      // The equity chart draws its line (not only its axes); the page threw nothing (nor broke its
      // Content-Security-Policy).
      expect((await drawnPixels(page, '.chart', EQUITY_LINE))[`chart-${BOT}`]).toBeGreaterThan(0);
      // The fills' sizes and prices (one symbol) each share their decimals, so the points line up (the
      // values are under 1000: the last separator is the decimal mark in either locale).
      const cells = (await page.evaluate(
        `Array.from(document.querySelectorAll('${SECTION} table.fills tbody tr')).map((r) => [r.cells[3].textContent, r.cells[4].textContent])`,
      )) as [string, string][];
      // A size carries its coin ("0.5263 AAPL"): the places are the number's.
      const places = (cell: string) => {
        const x = cell.split(' ')[0] ?? '';
        return x.length - 1 - Math.max(x.lastIndexOf('.'), x.lastIndexOf(','));
      };
      expect(cells.length).toBeGreaterThan(1);
      expect(new Set(cells.map(([size]) => places(size))).size).toBe(1);
      expect(new Set(cells.map(([, price]) => places(price))).size).toBe(1);
      expect(errors).toEqual([]);
      expect(await page.content()).not.toContain(TOKEN);

      // Without the token, or with a wrong one, every control call is refused, and so is the stream.
      for (const action of CONTROL_ACTIONS)
        for (const auth of [undefined, 'Bearer wrong-token-0000000000', `Bearer ${TOKEN.slice(0, -1)}`]) {
          const r = await fetch(new URL(`/api/bots/${BOT}/${action}`, url), {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
            body: JSON.stringify({ reason: 'no token' }),
          });
          expect(r.status, `${action} with ${auth ?? 'no token'}`).toBe(401);
        }
      expect((await fetch(new URL('/api/events', url))).status).toBe(401);
      // A tab without the token (sessionStorage is per tab) gets the page, asks for the token, and shows
      // nothing of the bots. (The bundled Chromium runs as a single process: no second browser context.)
      const { page: p2 } = await openPage(browser, url);
      await until(p2, `document.body.dataset.mode === 'token needed'`, 'the page to ask for the token');
      expect(await p2.$$(`${SECTION}`)).toHaveLength(0);
      await p2.screenshot({ path: join(shots, '4-without-token.png') });
      await p2.close();
      expect((await bot()).paused).toBe(true);

      d.proc.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
      expect(d.stderr + d.stdout).not.toContain(TOKEN);
    } finally {
      await browser.close();
      if (d.proc.exitCode === null) d.proc.kill('SIGKILL');
    }
  }, 300_000);

  it('read-only (no token configured): shows the bots and draws their equity curves by polling; estimated fills are marked', async () => {
    // An account without whitelist access, trading on estimated fills (fills: estimated).
    const config = demoConfig(`ro-${lang.replace(/\W/g, '-')}`, (demo) => {
      (demo.venue.account as Record<string, unknown>).whitelisted = false;
      demo.fills = 'estimated';
    });
    const d = startCli(['run', '--config', config, '--fresh'], {
      LANG: lang,
      LC_ALL: lang,
    });
    const browser = await launchBrowser({ lang });
    try {
      const url = await dashboardUrl(d);
      const { page, errors } = await openPage(browser, url);
      await until(page, `document.body.dataset.mode === 'read-only'`, 'the page to say it is read-only');
      // A running bot shows no PAUSED badge (not even an empty pill).
      expect((await pausedBadge(page)).display).toBe('none');
      // The log tail needs the stream: the page says so instead of showing an empty box.
      expect(await page.$eval('#log', (e) => e.textContent)).toMatch(/set dashboard.token to see it here/);
      // No stream without a token: the curve comes through GET /api/equity, whole, then from its last point.
      await d.waitFor(/"message":"fill"/, 90_000);
      const line = async () => (await drawnPixels(page, '.chart', EQUITY_LINE))[`chart-${BOT}`] ?? 0;
      const deadline = Date.now() + 30_000;
      while ((await line()) === 0 && Date.now() < deadline) await afterPaint(page);
      expect(await line()).toBeGreaterThan(0);
      // Estimated fills are marked ≈ and their prices share the symbol's places (an estimated buy's price, its
      // quote amount over its size, has 12 and must not set them); a legend says what ≈ means.
      await until(
        page,
        `document.querySelector('${SECTION} table.fills tbody tr[data-side="sell"]') !== null`,
        'an estimated sell in the fills table',
      );
      const prices = (await page.evaluate(
        `Array.from(document.querySelectorAll('${SECTION} table.fills tbody tr')).map((r) => [r.dataset.estimated, r.cells[4].textContent])`,
      )) as [string, string][];
      expect(prices.length).toBeGreaterThan(1);
      for (const [estimated, price] of prices) {
        expect(estimated).toBe('yes');
        expect(price).toMatch(/^≈\d+[.,]\d{2}$/);
      }
      expect(await page.$eval(SECTION, (e) => e.textContent)).toContain('≈ estimated (fills: estimated)');
      expect(errors).toEqual([]);
      d.proc.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
    } finally {
      await browser.close();
      if (d.proc.exitCode === null) d.proc.kill('SIGKILL');
    }
  }, 180_000);
});
