// The status block in a real pseudo-terminal (util-linux `script`) of 80 and 120 columns: it fits the
// width (never wraps), shows the venue's time (US Eastern) and each bot's state, position, PnL and
// equity, and log lines land above it from column 0, never glued onto it; Ctrl-C through the terminal
// stops it cleanly, the daemon's own line last. The raw bytes are replayed
// through a small terminal model (cursor, carriage return, line feed, erase, cursor up, auto-wrap).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliCommand } from '../helpers/cli.js';
import { demoConfigFile } from '../helpers/demo-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-tty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasScript = spawnSync('script', ['--version']).status === 0;
// The venue's time with its zone (the simulator's clock, as the status block reads it; the wall clock's before it answers).
const LOG_START = /\d\d:\d\d:\d\d (?:E[SD]T )?(?:info|warn|error|debug) /;

/** A terminal of `width` columns: what ends on screen, the status lines drawn, and the lines that wrapped. */
function replay(raw: string, width: number) {
  const rows: string[][] = [[]];
  let r = 0;
  let c = 0;
  const statusSeen: string[] = [];
  const wrapped: string[] = [];
  const continued = new Set<number>();
  const row = (i: number) => (rows[i] ??= []);
  const text = (i: number) => row(i).join('');
  // eslint-disable-next-line no-control-regex
  const tokens = raw.replace(/\x1b\[[0-9;]*m/g, '').match(/\x1b\[\d*[A-Za-z]|\r|\n|[^\x1b\r\n]/gu) ?? [];
  for (const t of tokens) {
    if (t === '\r') c = 0;
    else if (t === '\n') r++;
    else if (t.startsWith('\x1b[')) {
      const n = Number(t.slice(2, -1) || '1');
      const cmd = t.at(-1);
      if (cmd === 'A') r = Math.max(0, r - n);
      else if (cmd === 'J' || cmd === 'K') {
        for (let i = r; i < (cmd === 'J' ? rows.length : r + 1); i++) {
          if (/^tradebot \d{4}-/.test(text(i))) statusSeen.push(...rows.slice(i).map((x) => x.join('')));
          rows[i] = i === r ? row(i).slice(0, cmd === 'K' && n === 2 ? 0 : c) : [];
        }
      }
    } else {
      if (c >= width) {
        // A log line's continuation may wrap again; anything else wrapping is a fault.
        if (!continued.has(r)) wrapped.push(text(r));
        continued.add(r + 1);
        r++;
        c = 0;
      }
      row(r)[c++] = t;
    }
  }
  // The screen as logical lines: a wrapped line's continuations joined back to it.
  const screen: string[] = [];
  rows.forEach((x, i) => {
    if (continued.has(i) && screen.length > 0) screen[screen.length - 1] += x.join('');
    else screen.push(x.join(''));
  });
  return { screen, statusSeen, wrapped };
}

describe.skipIf(!hasScript)('the status block in a pseudo-terminal', () => {
  // [the size the pty reports, the width the block must fit]: a pty of 0 columns (nobody sized it) is 80.
  for (const [cols, width] of [
    [80, 80],
    [120, 120],
    [0, 80],
  ] as const) {
    it(`fits ${width} columns${cols === 0 ? ' when the terminal reports 0' : ''}, shows the bots in venue time, and log lines start at column 0`, async () => {
      const f = demoConfigFile(dir, `tty${cols}`);
      const cmd = [process.execPath, ...cliCommand(), 'run', '--config', f].map((a) => `'${a}'`).join(' ');
      // `exec`: the daemon replaces the shell `script` starts, so Ctrl-C reaches the daemon alone. Without it a
      // shell that dies of SIGINT while it waits (dash, the /bin/sh `script` runs when SHELL is unset) reports
      // 130 however cleanly the daemon stopped. SHELL is pinned to that shell, so the test runs the same everywhere.
      const p = spawn('script', ['-q', '-e', '-c', `stty cols ${cols} rows 50; exec ${cmd}`, '/dev/null'], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, SHELL: '/bin/sh' },
      });
      // Once a fill is logged and the block drawn below it, Ctrl-C through the terminal, as a user stops it
      // (after 45 s regardless, so that a daemon that never fills fails the checks below, with the screen).
      let raw = '';
      let stopped = false;
      const stop = () => {
        if (!stopped) p.stdin.write('\x03');
        stopped = true;
      };
      const deadline = setTimeout(stop, 45_000);
      p.stdout.on('data', (d: Buffer) => {
        raw += d.toString();
        // eslint-disable-next-line no-control-regex
        const plain = raw.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
        const fill = plain.search(/info filled: bought/);
        if (fill >= 0 && /\naapl-ma +ACTIVE/.test(plain.slice(fill))) stop();
      });
      const code = await new Promise((resolve) => p.on('close', resolve));
      clearTimeout(deadline);
      expect(code, 'the daemon exits 0 on Ctrl-C').toBe(0);
      const { screen, statusSeen, wrapped } = replay(raw, width);
      const detail = `screen:\n${screen.join('\n')}`;
      // The block was drawn, in the venue's time zone, with each bot's state, position, PnL and equity.
      expect(
        statusSeen.some((l) => /^tradebot 2026-11-23 09:\d\d:\d\d EST {2}3 bots/.test(l)),
        detail,
      ).toBe(true);
      expect(
        statusSeen.some((l) =>
          /^aapl-ma +ACTIVE +(flat|[\d.]+ AAPL) +pnl [+-]?[\d.]+ USDT +eq [\d.]+ USDT/.test(l),
        ),
        detail,
      ).toBe(true);
      // No status line ever wrapped; only log lines may (the terminal wraps a long one, from column 0).
      for (const w of wrapped)
        expect(w, `a wrapped line that is not a log line: ${w}`).toMatch(new RegExp(`^${LOG_START.source}`));
      for (const l of statusSeen) expect([...l].length).toBeLessThan(width);
      // Every log line starts at column 0: none is glued after a status line.
      const logLines = screen.filter((l) => LOG_START.test(l));
      expect(logLines.length).toBeGreaterThan(5);
      for (const l of logLines) expect(l, detail).toMatch(new RegExp(`^${LOG_START.source}`));
      // The warm-up is one line, not a denial per candle; orders and fills carry units; a summary per bot.
      expect(
        screen.some((l) =>
          /info backfilled \d+ candles per symbol; signals older than 3 min are not traded/.test(l),
        ),
      ).toBe(true);
      expect(screen.filter((l) => /intent denied|STALE_SIGNAL/.test(l))).toEqual([]);
      expect(
        screen.some((l) => /info order placed: buy 2000 USDT of AAPLUSDT at market/.test(l)),
        detail,
      ).toBe(true);
      expect(
        screen.some((l) => /info filled: bought [\d.]+ AAPL at [\d.]+ USDT/.test(l)),
        detail,
      ).toBe(true);
      for (const bot of ['aapl-ma', 'tsla-rsi', 'nvda-session'])
        expect(
          screen.some((l) =>
            new RegExp(
              `info ${bot}: \\d+ orders?, \\d+ fills? \\(\\d+ and \\d+ since this start\\), realised -?[\\d.]+ USDT, unrealised -?[\\d.]+ USDT, fees [\\d.]+ USDT`,
            ).test(l),
          ),
        ).toBe(true);
      // After the stop the block is gone: the last line is the daemon's own.
      expect(screen.filter((l) => l.trim() !== '').at(-1)).toMatch(/info stopped/);
    }, 60_000);
  }
});
