// Silence is an alarm (issue 31): the daemon against a remote simulator at speed 60; when the venue answers
// 1.5-2 s late (90 s and more of venue time per request) the bots get no fresh data: each turns DEGRADED
// within one interval, on every surface (the log, /readyz, the metrics, the dashboard, a notification), and
// once the latency stops they recover, said once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { runCli, startCli } from '../helpers/cli.js';
import { busyBot, remoteConfigFile } from '../helpers/demo-config.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-starve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPEED = 60;
const key = { apiKey: 'starve-key-1', apiSecret: 'starve-secret-1', passphrase: 'starve-pass-1' };

describe('a bot that gets no data', () => {
  it('is DEGRADED on every surface within one interval, and recovers when the venue answers again', async () => {
    const sim = await startSimulator({
      seed: 31,
      speed: SPEED,
      startTime: Date.UTC(2026, 10, 23, 15), // Monday 10:00 ET, regular session
      accounts: [{ ...key, whitelisted: true, balances: { USDT: '50000' } }],
    });
    const hook = await startRecordingServer();
    hook.fallback = () => ({ body: 'ok' });
    // A price may be a venue minute old (one real second at speed 60): a loaded test machine stays within it.
    const bot = (name: string, symbol: string) => busyBot(name, symbol, { risk: { maxDataAgeMs: 60_000 } });
    const f = remoteConfigFile(
      dir,
      'starve',
      { baseUrl: sim.baseUrl, speed: SPEED },
      {
        notify: { webhook: { url: `${hook.baseUrl}/hook` }, events: ['feed-health'] },
        bots: [bot('aapl', 'AAPLUSDT'), bot('tsla', 'TSLAUSDT')],
      },
    );
    const d = startCli(['run', '--config', f], { K: key.apiKey, S: key.apiSecret, P: key.passphrase });
    const texts = () => hook.requests.map((r) => (JSON.parse(r.body) as { text: string }).text);
    try {
      const [, health] = await d.waitFor(/"health and metrics listening".*?"url":"([^"]+)"/, 30_000);
      const [, dashboard] = await d.waitFor(/"dashboard listening".*?"url":"(http:\/\/[^"]+\/)"/, 30_000);
      await d.waitFor(/"message":"running"/, 30_000);
      const ready = async () => {
        const r = await fetch(`${health}/readyz`);
        return {
          status: r.status,
          body: (await r.json()) as { degraded?: string[]; bots?: { lastCandle?: number }[] },
        };
      };
      // Both bots on live candles first (the second bot hears the session the first already has: late-bot.test.ts).
      await waitFor(
        async () => {
          const r = await ready();
          return r.status === 200 && (r.body.bots ?? []).every((b) => b.lastCandle !== undefined);
        },
        {
          what: '/readyz ready, every feed fresh and each bot on live candles',
          timeoutMs: 90_000,
          detail: () => d.stderr.slice(-2000),
        },
      );
      // Nothing degraded yet (when something did, the line says which feed and how old).
      expect(/"message":"bot degraded".*/.exec(d.stderr)?.[0]).toBeUndefined();

      // The venue answers 1.5-2 s late: at speed 60 every price is 90-120 venue seconds old when it arrives.
      const faults = (body: unknown) =>
        fetch(`${sim.baseUrl}/sim/faults`, { method: 'POST', body: JSON.stringify(body) });
      expect((await faults({ latencyMs: [1500, 2000] })).status).toBe(200);
      // How soon is the FeedWatch's rule (test/unit/execution/feed-watch.test.ts); here, that every surface says it.
      await d.waitFor(/"message":"bot degraded"/, 30_000);
      const degradedLine = /"message":"bot degraded".*?"what":"([^"]+)"/.exec(d.stderr)?.[1] ?? '';
      expect(degradedLine).toMatch(/^DEGRADED: no (fresh price|new candle|fill sync) for .+ \(limit .+\): /);

      // A bot stays DEGRADED until its feeds are fresh for as long as their limit: every surface agrees.
      const r = await ready();
      expect(r.status).toBe(503);
      expect(r.body.degraded?.join('\n')).toMatch(/^(aapl|tsla): no /m);
      const metrics = await (await fetch(`${health}/metrics`)).text();
      expect(metrics).toMatch(/tradebot_bot_degraded\{bot="(aapl|tsla)"\} 1/);
      const { bots } = (await (await fetch(`${dashboard}api/bots`)).json()) as {
        bots: { name: string; health?: { state: string; problems: string[] } }[];
      };
      expect(bots.some((b) => b.health?.state === 'DEGRADED' && b.health.problems.length > 0)).toBe(true);
      // `tradebot status` asks the running daemon (it used to read the journal alone and say ACTIVE).
      const st = await runCli(['status', '--config', f], {});
      expect(st.code, st.stderr).toBe(0);
      expect(st.stdout).toMatch(
        /^running: states and data ages from the daemon \(http:\/\/127\.0\.0\.1:\d+\/readyz\), NOT ready/,
      );
      expect(st.stdout).toMatch(/^(aapl|tsla) +DEGRADED \(ACTIVE\)/m);
      expect(st.stdout).toMatch(/data ages \(since each feed last arrived\):\n {2}aapl: candles /);
      const stJson = JSON.parse((await runCli(['status', '--config', f, '--json'], {})).stdout) as {
        running: boolean;
        live: { degraded: boolean } | null;
      }[];
      expect(stJson.every((b) => b.running)).toBe(true);
      expect(stJson.some((b) => b.live?.degraded === true)).toBe(true);
      expect(d.stderr.match(/"message":"bot degraded"/g)?.length ?? 0).toBeLessThanOrEqual(2);
      await waitFor(() => texts().some((t) => / DEGRADED: no /.test(t)), {
        what: 'a DEGRADED notification',
        timeoutMs: 30_000,
      });

      // The venue answers at once again: every bot recovers, said once each, and /readyz is ready again.
      expect((await faults({})).status).toBe(200);
      let last = '';
      await waitFor(
        async () => {
          const r = await ready();
          last = JSON.stringify(r.body);
          return r.status === 200;
        },
        {
          what: '/readyz ready again after the latency stopped',
          timeoutMs: 60_000,
          detail: () => `${last}\n${d.stderr.slice(-1500)}`,
        },
      );
      await waitFor(() => texts().some((t) => / recovered: feeds fresh again after /.test(t)), {
        what: 'a recovery notification',
        timeoutMs: 30_000,
      });
      expect(d.stderr).toMatch(/"message":"bot recovered".*"what":"feeds fresh again after [^"]+ DEGRADED"/);
      d.proc.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
      // Stopped: the states are the journal's, and status says so.
      const after = await runCli(['status', '--config', f], {});
      expect(after.stdout).toMatch(
        /^not running \(no daemon runs on this journal\): states from the journal as of /,
      );
    } finally {
      d.proc.kill('SIGKILL');
      await hook.close();
      await sim.stop();
    }
  }, 300_000);
});
