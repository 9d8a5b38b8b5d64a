// No alarm during a normal start (issue 40: 3 of 8 starts at speed 60 sent a false DEGRADED/recovered pair). The
// demo's bots (config/demo.yaml) on a remote simulator at speed 60, started ten times on one journal; each start
// lasts until it passed a candle boundary and booked a fill. Across all ten: no DEGRADED/recovered notification,
// no `bot degraded` log line, /readyz never 503 after its first 200; and after each restart the order and fill
// counters of /metrics are the deployment's (seeded from the journal), not this process's.
// Ten real `tradebot run` processes: the false alarm came from the start's own work (loading the dashboard,
// compiling its routes) holding the polls' answers up, which a daemon started in a warm test process never does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../src/sim/index.js';
import { startCli } from '../../helpers/cli.js';
import { demoConfig, remoteConfigFile } from '../../helpers/demo-config.js';
import { startRecordingServer } from '../../helpers/recording-server.js';
import { waitFor } from '../../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-start-alarm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = { apiKey: 'start-key-1', apiSecret: 'start-secret-1', passphrase: 'start-pass-1' };
const env = { K: key.apiKey, S: key.apiSecret, P: key.passphrase };
const STARTS = 10;

interface ReadyBot {
  readonly name: string;
  readonly fills: number;
  readonly orders: number;
  readonly lastCandle?: number | undefined;
  readonly sinceStart: { readonly fills: number };
}

/** A counter of /metrics summed by bot: `tradebot_fills_total{bot="a",source="venue"} 3` ... */
function counterByBot(metrics: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of metrics.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\d+)$`, 'gm'))) {
    const bot = /bot="([^"]+)"/.exec(m[1] ?? '')?.[1];
    if (bot !== undefined) out.set(bot, (out.get(bot) ?? 0) + Number(m[2]));
  }
  return out;
}

describe('a normal start at speed 60', () => {
  it('raises no alarm in ten starts, and the counters are the deployment’s after each restart', async () => {
    const sim = await startSimulator({
      seed: 42,
      speed: 60,
      startTime: Date.UTC(2026, 10, 23, 14, 25), // Monday 09:25 ET, as the demo
      accounts: [{ ...key, whitelisted: true, balances: { USDT: '30000' } }],
    });
    const rx = await startRecordingServer();
    rx.fallback = () => ({ body: 'ok' });
    const cfg = remoteConfigFile(
      dir,
      'starts',
      { baseUrl: sim.baseUrl, speed: 60 },
      {
        bots: demoConfig(join(dir, 'unused.db')).bots,
        notify: { webhook: { url: `${rx.baseUrl}/hook` }, events: ['feed-health'], perMinute: 600 },
      },
    );
    const logs: string[] = [];
    const refused: string[] = [];
    try {
      for (let i = 0; i < STARTS; i++) {
        const d = startCli(['run', '--config', cfg], env);
        const [, url] = await d.waitFor(/"health and metrics listening".*?"url":"([^"]+)"/, 30_000);
        await d.waitFor(/"message":"running"/, 30_000);
        // After the first counters read, before any event of this start could add to them: the journal's.
        const first = await (await fetch(`${url}/metrics`)).text();
        const ready = async () => {
          const r = await fetch(`${url}/readyz`);
          return { status: r.status, bots: ((await r.json()) as { bots: ReadyBot[] }).bots };
        };
        const atStart = await ready();
        if (i > 0)
          for (const b of atStart.bots) {
            // The deployment's fills so far, less this start's (booked since, by a reconciliation).
            expect(
              counterByBot(first, 'tradebot_fills_total').get(b.name) ?? 0,
              b.name,
            ).toBeGreaterThanOrEqual(b.fills - b.sinceStart.fills);
          }
        let okSeen = false;
        const candleAt = new Map(atStart.bots.map((b) => [b.name, b.lastCandle ?? 0]));
        // Until a candle boundary passed (a newer candle decided) and a fill was booked in this start; every
        // /readyz read on the way must be 200 once one was.
        await waitFor(
          async () => {
            const r = await ready();
            if (r.status === 200) okSeen = true;
            else if (okSeen) refused.push(`start ${i + 1}: /readyz ${r.status}`);
            const passed = r.bots.some((b) => (b.lastCandle ?? 0) > (candleAt.get(b.name) ?? 0));
            return passed && r.bots.some((b) => b.sinceStart.fills > 0);
          },
          { what: `start ${i + 1}: a candle boundary and a fill`, timeoutMs: 60_000, intervalMs: 100 },
        );
        // The counters are the deployment's: the journal's totals, as /readyz counts them (read while the
        // counts hold still: a fill between the two reads is taken again).
        const { last, metrics } = await waitFor(
          async () => {
            const before = await ready();
            const metrics = await (await fetch(`${url}/metrics`)).text();
            const last = await ready();
            const still =
              JSON.stringify(before.bots.map((x) => [x.fills, x.orders])) ===
              JSON.stringify(last.bots.map((x) => [x.fills, x.orders]));
            return still ? { last, metrics } : undefined;
          },
          { what: 'counts that hold still while /metrics is read', timeoutMs: 30_000, intervalMs: 20 },
        );
        const fills = counterByBot(metrics, 'tradebot_fills_total');
        const orders = counterByBot(metrics, 'tradebot_orders_total');
        for (const b of last.bots) {
          expect(fills.get(b.name) ?? 0, `${b.name} fills after start ${i + 1}`).toBe(b.fills);
          expect(orders.get(b.name) ?? 0, `${b.name} orders after start ${i + 1}`).toBe(b.orders);
        }
        d.proc.kill('SIGINT');
        expect((await d.exited).code, d.stderr.slice(-2000)).toBe(0);
        logs.push(d.stderr);
      }
    } finally {
      await rx.close();
      await sim.stop();
    }
    const texts = rx.requests.map((r) => (JSON.parse(r.body) as { text: string }).text);
    expect(texts.filter((t) => /DEGRADED|recovered|fresh again/.test(t))).toEqual([]);
    expect(
      logs.flatMap((l) => l.split('\n').filter((x) => /"message":"bot (degraded|recovered)"/.test(x))),
    ).toEqual([]);
    expect(refused).toEqual([]);
    // Every start traded: the fills of the ten are the simulator's.
    const venueFills = logs.join('').match(/"message":"fill"/g)?.length ?? 0;
    expect(venueFills).toBeGreaterThanOrEqual(STARTS);
  }, 300_000);
});
