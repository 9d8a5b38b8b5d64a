// One truth for the operator (issue 31): a deployment on a remote simulator (pinned start) run, stopped and run
// again; every surface's figures are compared field by field: the stop summary log line, `tradebot status --json`
// (the journal), /readyz detail, the dashboard's /api/bots and the equity gauge of /metrics. Counts are the
// deployment's across the restart, with this start's said as such; money is the same exact decimal everywhere.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { runCli, startCli, type Running } from '../helpers/cli.js';
import { busyBot, remoteConfigFile } from '../helpers/demo-config.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-one-truth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPEED = 60;
const key = { apiKey: 'truth-key-1', apiSecret: 'truth-secret-1', passphrase: 'truth-pass-1' };
const env = { K: key.apiKey, S: key.apiSecret, P: key.passphrase };
const COUNTS = ['intents', 'denials', 'orders', 'fills'] as const;
const MONEY = ['realisedPnl', 'unrealisedPnl', 'fees', 'net', 'equity'] as const;

type Figures = Record<(typeof COUNTS)[number], number> & Record<(typeof MONEY)[number], string>;
const figures = (o: Record<string, unknown>): Figures =>
  Object.fromEntries([...COUNTS, ...MONEY].map((k) => [k, o[k]])) as Figures;

/** The `bot summary` lines a stopped daemon logged, by bot. */
function summaries(d: Running): Map<string, Record<string, unknown>> {
  const lines = d.stderr.split('\n').filter((l) => l.includes('"message":"bot summary"'));
  return new Map(
    lines.map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      return [o.bot as string, o];
    }),
  );
}

async function journalFigures(cfg: string): Promise<Map<string, Figures>> {
  const r = await runCli(['status', '--config', cfg, '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
  return new Map(rows.map((b) => [b.bot as string, figures(b)]));
}

describe('every surface shows the same figures', () => {
  it('through a restart: counts are the deployment’s, money the same exact decimal', async () => {
    const sim = await startSimulator({
      seed: 31,
      speed: SPEED,
      startTime: Date.UTC(2026, 10, 23, 15), // Monday 10:00 ET, regular session
      accounts: [{ ...key, whitelisted: true, balances: { USDT: '50000' } }],
    });
    const cfg = remoteConfigFile(
      dir,
      'truth',
      { baseUrl: sim.baseUrl, speed: SPEED },
      { bots: [busyBot('aapl', 'AAPLUSDT'), busyBot('tsla', 'TSLAUSDT')] },
    );
    const fillsIn = (d: Running) => (d.stderr.match(/"message":"fill"/g) ?? []).length;
    let d = startCli(['run', '--config', cfg], env);
    try {
      // First run: a few fills, then a clean stop. Its summary is what the journal says after it.
      await waitFor(() => fillsIn(d) >= 2, {
        what: 'two fills in the first run',
        timeoutMs: 90_000,
        detail: () => d.stderr.slice(-2000),
      });
      d.proc.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
      // One clock: the log lines read the venue's, with its zone (the wall clock stays as `timestamp`).
      expect(d.stderr).toMatch(/"message":"fill".*"venueTime":"2026-11-2\d \d\d:\d\d:\d\d EST"/);
      const first = summaries(d);
      const afterFirst = await journalFigures(cfg);
      for (const [name, s] of first) {
        expect(figures(s), `${name}: stop summary vs tradebot status`).toEqual(afterFirst.get(name));
        expect(s.sinceStart).toEqual(Object.fromEntries(COUNTS.map((k) => [k, s[k]])));
        // The sentence rounds as every surface does (formatMoney: 2 places), never cuts.
        expect(s.what).toContain(`equity ${Number(s.equity).toFixed(2)} USDT`);
      }

      // Second run: more fills; then the venue's clock all but stops, so the figures hold still while read.
      d = startCli(['run', '--config', cfg], env);
      const [, health] = await d.waitFor(/"health and metrics listening".*?"url":"([^"]+)"/, 30_000);
      const [, dashboard] = await d.waitFor(/"dashboard listening".*?"url":"(http:\/\/[^"]+\/)"/, 30_000);
      await waitFor(() => fillsIn(d) >= 1, {
        what: 'a fill in the second run',
        timeoutMs: 90_000,
        detail: () => d.stderr.slice(-2000),
      });
      await fetch(`${sim.baseUrl}/sim/clock/speed`, {
        method: 'POST',
        body: JSON.stringify({ speed: 1e-6 }),
      });
      const readyz = async () =>
        ((await (await fetch(`${health}/readyz`)).json()) as { bots: Record<string, unknown>[] }).bots;
      type ApiBot = { name: string; counts: Record<string, unknown> } & Record<string, unknown>;
      // One consistent read of every surface: the journal's figures the same before and after the others were
      // read (the bots may still act on a price they had: then the read is taken again).
      const read = async () => {
        const journalBefore = await journalFigures(cfg);
        const ready = await readyz();
        const api = ((await (await fetch(`${dashboard}api/bots`)).json()) as { bots: ApiBot[] }).bots;
        const metrics = await (await fetch(`${health}/metrics`)).text();
        const journal = await journalFigures(cfg);
        const still = JSON.stringify([...journalBefore]) === JSON.stringify([...journal]);
        return still ? { journal, ready, api, metrics } : undefined;
      };
      const { journal, ready, api, metrics } = await waitFor(read, {
        what: 'figures that hold still while every surface is read',
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      for (const b of ready) {
        const name = b.name as string;
        const live = figures(b);
        const before = afterFirst.get(name);
        // The deployment's counts: the first run's and this one's.
        const since = b.sinceStart as Record<string, number>;
        for (const k of COUNTS) expect(live[k], `${name} ${k}`).toBe((before?.[k] ?? 0) + (since[k] ?? 0));
        expect(live, `${name}: /readyz vs tradebot status`).toEqual(journal.get(name));
        const shown = api.find((x) => x.name === name);
        expect(figures({ ...shown, ...shown?.counts }), `${name}: /api/bots vs /readyz`).toEqual(live);
        expect(shown?.counts.sinceStart).toEqual(since);
        const gauge = new RegExp(`tradebot_equity\\{bot="${name}"\\} ([-\\d.e+]+)`).exec(metrics)?.[1];
        if (gauge !== undefined) expect(Number(gauge)).toBeCloseTo(Number(live.equity), 6);
      }

      // The venue's clock runs again (its rate limits refill with it) for the stop's last fill sync. While it
      // stood still the daemon's fill syncs spent the venue's second of reality-fills and were refused 429: the
      // stop waits until each bot has synced its fills again (the age /readyz shows), so the stop's own sync is
      // not the one that meets the last 429s.
      await fetch(`${sim.baseUrl}/sim/clock/speed`, {
        method: 'POST',
        body: JSON.stringify({ speed: SPEED }),
      });
      await waitFor(
        async () =>
          ((await readyz()) as { health?: { ages?: { fills?: number } } }[]).every(
            (b) => (b.health?.ages?.fills ?? Infinity) < 10_000,
          ),
        {
          what: 'a fill sync of every bot after the clock ran again',
          timeoutMs: 60_000,
          intervalMs: 100,
          detail: () => d.stderr.slice(-3000),
        },
      );
      d.proc.kill('SIGTERM');
      expect((await d.exited).code, d.stderr.slice(-3000)).toBe(0);
      const second = summaries(d);
      const afterSecond = await journalFigures(cfg);
      for (const b of ready) {
        const name = b.name as string;
        const s = second.get(name) ?? {};
        expect(figures(s), `${name}: stop summary vs tradebot status`).toEqual(afterSecond.get(name));
        const since = s.sinceStart as Record<string, number>;
        for (const k of COUNTS)
          expect(s[k], `${name} ${k}`).toBe((afterFirst.get(name)?.[k] ?? 0) + (since[k] ?? 0));
      }
    } finally {
      d.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 300_000);
});
