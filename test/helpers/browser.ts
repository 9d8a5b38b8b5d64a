// Headless Chromium for the browser tests, with no system package: the binary shipped inside the
// `@sparticuz/chromium` npm package (brotli-compressed, with the NSS libraries it links against and
// SwiftShader for canvas/WebGL), driven by `puppeteer-core` (which never downloads a browser). So
// `npm ci && npm test` works on a machine that has only Node and npm. Every browser test launches
// through `launchBrowser` (one place to fix when the package changes).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** The package's root folder (its exports map hides package.json, so walk up from the entry point). */
function packageRoot(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium'));
  // build/cjs holds a package.json of its own (the module type): the root is the one with bin/.
  while (!existsSync(join(dir, 'bin', 'chromium.br'))) {
    if (dirname(dir) === dir) throw new Error('@sparticuz/chromium has no bin/chromium.br: run npm ci');
    dir = dirname(dir);
  }
  return dir;
}

/**
 * Unpacks the browser once per package version into the system temp folder and returns that folder.
 * Unpacked into a private folder first and renamed into place, so parallel test files (and other
 * checkouts on the same machine) never see a half-written binary; the loser of a race drops its copy.
 */
function unpackedChromium(): string {
  const root = packageRoot();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const target = join(tmpdir(), `tradebot-chromium-${version}`);
  if (existsSync(join(target, 'chromium'))) return target;
  const work = `${target}.${process.pid}.tmp`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    unpackInto(root, work, target);
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    throw e;
  }
  try {
    renameSync(work, target);
  } catch {
    rmSync(work, { recursive: true, force: true }); // another process won the race; its copy is identical
  }
  return target;
}

function unpackInto(root: string, work: string, target: string): void {
  const bin = join(root, 'bin');
  writeFileSync(join(work, 'chromium'), brotliDecompressSync(readFileSync(join(bin, 'chromium.br'))), {
    mode: 0o755,
  });
  // SwiftShader's GL libraries sit beside the binary (Chromium loads them from its own folder); the NSS
  // libraries (al2023) and fonts go into subfolders. `tar` is part of every Node installation's OS.
  for (const [file, into] of [
    ['swiftshader.tar.br', work],
    ['al2023.tar.br', join(work, 'al2023')],
    ['fonts.tar.br', join(work, 'fonts')],
  ] as const) {
    mkdirSync(into, { recursive: true });
    const r = spawnSync('tar', ['-x', '-C', into], {
      input: brotliDecompressSync(readFileSync(join(bin, file))),
    });
    if (r.status !== 0)
      throw new Error(`unpacking ${file} of @sparticuz/chromium failed: ${r.stderr.toString()}`);
  }
  // The package's fonts.conf names Lambda's folders; ours names the bundled fonts and the system's.
  writeFileSync(
    join(work, 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>/usr/share/fonts</dir>\n  <dir>${join(target, 'fonts', 'fonts')}</dir>\n  <cachedir>${join(target, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
  );
}

export interface LaunchOptions {
  /** LANG and LC_ALL of the browser process, e.g. 'C.UTF-8' (the page's default locale follows it). */
  readonly lang?: string | undefined;
}

/** Chromium's --lang for a POSIX locale (de_DE.UTF-8 -> de-DE); none for C/POSIX (Chromium's default, en-US). */
function langArg(lang: string | undefined): string[] {
  const m = /^([a-z]{2,3})_([A-Z]{2})/.exec(lang ?? '');
  return m === null ? [] : [`--lang=${m[1]}-${m[2]}`];
}

/**
 * Launches headless Chromium from the `@sparticuz/chromium` package.
 *
 * @example
 * const browser = await launchBrowser({ lang: 'C.UTF-8' });
 * try { const { page, errors } = await openPage(browser, `file://${file}`); ... } finally { await browser.close(); }
 */
export async function launchBrowser(o: LaunchOptions = {}): Promise<Browser> {
  const dir = unpackedChromium();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // The bundled NSS first, so no system package is needed; the system's stay reachable after it.
  env.LD_LIBRARY_PATH = [join(dir, 'al2023', 'lib'), env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  env.FONTCONFIG_FILE = join(dir, 'fonts.conf');
  if (o.lang !== undefined) {
    env.LANG = o.lang;
    env.LC_ALL = o.lang;
  }
  return puppeteer.launch({
    executablePath: join(dir, 'chromium'),
    // The package's flags (single process, SwiftShader, no sandbox: tests run as root in containers).
    args: [...chromium.args, ...langArg(o.lang)],
    headless: 'shell',
    env,
    // Default of 30 s: launching is under a second once unpacked, but a loaded 2-core CI machine is slow.
    timeout: 60_000,
  });
}

/** A page, and the uncaught errors its scripts threw (a chart that fails to draw throws one). */
export interface OpenedPage {
  readonly page: Page;
  readonly errors: readonly string[];
}

/** Opens `url` in a new page and waits until the page set `document.body.dataset.rendered`. */
export async function openPage(browser: Browser, url: string, timeoutMs = 30_000): Promise<OpenedPage> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e instanceof Error ? e.message : String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
  await page
    // Page-side code is a string: the project compiles without the DOM library (nothing in src runs in a page).
    .waitForFunction('document.body.dataset.rendered !== undefined', { timeout: timeoutMs })
    .catch((e: unknown) => {
      throw new Error(`the page never set data-rendered (page errors: ${errors.join('; ') || 'none'})`, {
        cause: e,
      });
    });
  return { page, errors };
}

/** Waits on a condition in the page (a string: the project compiles without the DOM library), naming it on a timeout. */
export const until = (page: Page, condition: string, what: string, timeout = 90_000): Promise<unknown> =>
  page.waitForFunction(condition, { timeout, polling: 100 }).catch((e: unknown) => {
    throw new Error(`timed out waiting for ${what}`, { cause: e });
  });

/** Resolves after the page painted two more animation frames (charts draw on the next frame). */
export async function afterPaint(page: Page): Promise<void> {
  await page.evaluate(
    'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(undefined))))',
  );
}

/**
 * For every element matching `selector` (keyed by its id): how many pixels of its canvases are neither
 * transparent nor white, the background. A chart that failed to draw has none. With `rgb`, only the
 * pixels of that colour (each channel within 24): a series' line, where an empty chart still draws its
 * axes and grid.
 */
export async function drawnPixels(
  page: Page,
  selector: string,
  rgb?: readonly [number, number, number],
): Promise<Record<string, number>> {
  return (await page.evaluate(`(() => {
    const out = {};
    const rgb = ${JSON.stringify(rgb ?? null)};
    for (const el of document.querySelectorAll(${JSON.stringify(selector)})) {
      let n = 0;
      for (const c of el.querySelectorAll('canvas')) {
        const ctx = c.getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) continue;
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3] === 0) continue;
          if (rgb === null ? !(d[i] === 255 && d[i + 1] === 255 && d[i + 2] === 255)
            : Math.abs(d[i] - rgb[0]) <= 24 && Math.abs(d[i + 1] - rgb[1]) <= 24 && Math.abs(d[i + 2] - rgb[2]) <= 24) n++;
        }
      }
      out[el.id] = n;
    }
    return out;
  })()`)) as Record<string, number>;
}
