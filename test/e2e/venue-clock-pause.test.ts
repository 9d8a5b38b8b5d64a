// The daemon follows a remote venue's accelerated clock (timeScale 60) through a 35 s pause of it (POST
// /sim/clock/speed, as an operator or a stalled venue would): the daemon's clock re-syncs from the venue's
// answers, says so once with the size of the jump, and within 2 venue minutes of the venue running again every
// surface says OK (/readyz 200, each bot's health), a DEGRADED state (if any) is recovered once, and no
// signal is judged stale after it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { startCli } from '../helpers/cli.js';
import { busyBot, remoteConfigFile } from '../helpers/demo-config.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-clock-pause-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPEED = 60;
const M = 60_000;
const key = { apiKey: 'pause-key-1', apiSecret: 'pause-secret-1', passphrase: 'pause-pass-1' };
const env = { K: key.apiKey, S: key.apiSecret, P: key.passphrase };
const risk = { maxDataAgeMs: 60_000 };

type Line = { message?: string; bot?: string; jumpMs?: number } & Record<string, unknown>;
const linesOf = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

describe('a venue whose clock stands still for 35 s', () => {
  it('the daemon re-syncs to it, says so once, and every surface is OK within 2 venue minutes', async () => {
    const sim = await startSimulator({
      seed: 17,
      speed: SPEED,
      startTime: Date.UTC(2026, 10, 23, 15), // Monday 10:00 ET, regular session
      accounts: [{ ...key, whitelisted: true, balances: { USDT: '50000' } }],
    });
    const cfg = remoteConfigFile(
      dir,
      'pause',
      { baseUrl: sim.baseUrl, speed: SPEED },
      // Prices may be a venue minute old (one real second at 60x): a busy machine's pause of a few hundred ms is
      // not what this test is about.
      { bots: [busyBot('aapl', 'AAPLUSDT', { risk }), busyBot('tsla', 'TSLAUSDT', { risk })] },
    );
    const d = startCli(['run', '--config', cfg], env);
    try {
      const [, health] = await d.waitFor(/"health and metrics listening".*?"url":"([^"]+)"/, 30_000);
      await d.waitFor(/"message":"order placed"/, 90_000);
      const setSpeed = (speed: number) =>
        fetch(`${sim.baseUrl}/sim/clock/speed`, { method: 'POST', body: JSON.stringify({ speed }) });
      await setSpeed(0.0001);
      const pausedAt = d.stderr.length;
      // The scenario itself: the venue's clock stands still for 35 real seconds (35 venue minutes at 60x).
      await pause(35_000);
      await setSpeed(SPEED);
      const resumed = sim.engine.now();
      const readyz = async () => {
        const r = await fetch(`${health}/readyz`);
        const body = (await r.json()) as { bots: { name: string; health?: { state?: string } }[] };
        return { status: r.status, bots: body.bots };
      };
      const ok = await waitFor(
        async () => {
          const r = await readyz();
          return r.status === 200 && r.bots.every((b) => b.health?.state === 'OK') ? sim.engine.now() : 0;
        },
        { timeoutMs: 60_000, what: '/readyz 200 with every bot OK', detail: () => d.stderr.slice(-3000) },
      );
      expect(ok - resumed, 'venue ms from the resume to every surface OK').toBeLessThanOrEqual(2 * M);
      // Two venue minutes on: the candles decided after the re-sync are judged on a synced clock.
      await waitFor(() => sim.engine.now() >= ok + 2 * M, {
        timeoutMs: 30_000,
        what: 'two venue minutes on',
      });
      const after = linesOf(d.stderr.slice(pausedAt));
      const resync = after.filter((l) => l.message === 'venue clock re-synced');
      expect(resync, d.stderr.slice(-3000)).toHaveLength(1);
      // It lost the 35 venue minutes the venue stood still.
      expect(resync[0]?.jumpMs).toBeLessThan(-30 * M);
      const since = after.slice(after.indexOf(resync[0] as Line));
      expect(since.filter((l) => l.message === 'stale signal not traded')).toEqual([]);
      for (const bot of ['aapl', 'tsla']) {
        const degraded = after.filter((l) => l.message === 'bot degraded' && l.bot === bot).length;
        const recovered = after.filter((l) => l.message === 'bot recovered' && l.bot === bot).length;
        expect(recovered, `${bot}: recovered once for each time it degraded`).toBe(degraded);
        expect(recovered, `${bot}: the recovery is said at most once`).toBeLessThanOrEqual(1);
      }
      expect((await readyz()).status).toBe(200);
      d.proc.kill('SIGTERM');
      expect((await d.exited).code, d.stderr.slice(-3000)).toBe(0);
    } finally {
      d.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 240_000);
});
