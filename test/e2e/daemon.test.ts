// The daemon from the outside, through the real CLI: the demo trades; SIGTERM exits 0 with the journal
// flushed; kill -9 at random moments and restarts never double an order nor lose a fill; secrets never
// reach the logs; under fault injection it stays up, keeps trading when the faults stop, never doubles.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '../../src/store/index.js';
import { startCli } from '../helpers/cli.js';
import { demoConfig } from '../helpers/demo-config.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The journal as a reader sees it while the daemon writes (WAL): fills' execIds and pending orders. */
function journalView(path: string): { execIds: Set<string>; pending: number } {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    const execIds = new Set(db.prepare('SELECT exec_id FROM fills').pluck().all() as string[]);
    const pending = db.prepare(`SELECT COUNT(*) FROM orders WHERE state = 'pending'`).pluck().get() as number;
    return { execIds, pending };
  } finally {
    db.close();
  }
}
const SECRET = {
  apiKey: 'e2e-key-7f3a9c',
  apiSecret: 'e2e-secret-d41d8cd98f00b204',
  passphrase: 'e2e-pass-94a1b2',
};
const SPEED = 120;

/** A remote deployment against a simulator running in this process on an accelerated clock. */
function remoteConfig(name: string, sim: Simulator, extra: Record<string, unknown> = {}): string {
  const cfg = {
    venue: {
      kind: 'remote',
      baseUrl: sim.baseUrl,
      credentials: { apiKey: '${E2E_KEY}', apiSecret: '${E2E_SECRET}', passphrase: '${E2E_PASS}' },
      whitelisted: true,
      timeScale: SPEED,
      timeoutMs: 2000,
    },
    store: { path: join(dir, `${name}.db`) },
    logging: { level: 'debug', format: 'json' },
    metrics: { enabled: true, port: 0 },
    shutdownTimeoutMs: 5000,
    bots: [
      {
        name: 'e2e',
        strategy: 'ma-crossover',
        params: { fast: 2, slow: 4, quoteAmount: '300' },
        symbols: ['AAPLUSDT'],
        interval: '1m',
        capital: '50000',
        poll: { tickersMs: 5000, fillsMs: 20000 },
        risk: {
          allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
          maxDataAgeMs: 60000,
          whitelisted: true,
        },
        ...extra,
      },
    ],
  };
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, stringify(cfg));
  return f;
}
const env = { E2E_KEY: SECRET.apiKey, E2E_SECRET: SECRET.apiSecret, E2E_PASS: SECRET.passphrase };
const startSim = (faults?: Record<string, unknown>) =>
  startSimulator({
    seed: 21,
    speed: SPEED,
    startTime: Date.UTC(2026, 10, 23, 14, 35),
    accounts: [{ ...SECRET, whitelisted: true, balances: { USDT: '50000' } }],
    ...(faults ? { faults } : {}),
  });

describe('the demo', () => {
  it('starts from the README command line, trades on the embedded simulator, answers /healthz, and exits 0 on SIGTERM with the journal flushed', async () => {
    const demo = demoConfig(join(dir, 'demo.db'));
    const f = join(dir, 'demo.yaml');
    writeFileSync(f, stringify(demo));
    const d = startCli(['run', '--config', f]);
    const [, url] = await d.waitFor(/"health and metrics listening".*?"url":"([^"]+)"/, 20_000);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The dashboard's address is logged at start (docs/dashboard.md); read-only without a token.
    const [, dashboard] = await d.waitFor(
      /"dashboard listening".*?"url":"(http:\/\/127\.0\.0\.1:\d+\/)"/,
      20_000,
    );
    expect((await fetch(`${dashboard}api/bots`)).status).toBe(200);
    await d.waitFor(/"message":"order placed"/, 60_000);
    await d.waitFor(/"message":"fill"/, 30_000);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/tradebot_orders_total\{bot="[a-z-]+",status="acked"\} [1-9]/);
    expect(metrics).toContain('tradebot_tick_to_order_seconds_bucket');
    // Each bot's in-memory state, by part (what the endurance run watches for growth).
    for (const b of demo.bots)
      for (const part of ['orders', 'positions', 'equitySeries', 'marks', 'decided', 'strategyStateBytes'])
        expect(metrics).toMatch(
          new RegExp(`tradebot_bot_state_size\\{bot="${b.name}",part="${part}"\\} \\d+`),
        );
    d.proc.kill('SIGTERM');
    const { code } = await d.exited;
    expect(code).toBe(0);
    const logged = (d.stderr.match(/"message":"fill"/g) ?? []).length;
    // A line that names a bot and a symbol names one of that bot's symbols: the steps the bots of the
    // account share (the fill baselines of every symbol, taken at start) log as the account, not as
    // whichever bot started first.
    const symbolsOf = new Map(demo.bots.map((b) => [b.name, b.symbols]));
    const lines = d.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { bot?: string; symbol?: string; message: string });
    expect(lines.filter((l) => l.message.startsWith('fill baseline taken'))).toHaveLength(3);
    const misnamed = lines.filter(
      (l) => l.bot !== undefined && l.symbol !== undefined && !symbolsOf.get(l.bot)?.includes(l.symbol),
    );
    expect(misnamed).toEqual([]);
    const store = openStore(demo.store.path);
    expect(store.fills.list().length).toBeGreaterThanOrEqual(logged);
    expect(store.orders.pendingOrders()).toHaveLength(0);
    store.close();
  }, 120_000);
});

describe('against a simulator in another process', () => {
  it('kill -9 at random moments and restarts: no duplicate order at the venue, no fill missing from the journal', async () => {
    const sim = await startSim();
    const f = remoteConfig('kill', sim);
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let logs = '';
    for (let i = 0; i < 5; i++) {
      const d = startCli(['run', '--config', f], env);
      await d.waitFor(/"message":"running"/, 20_000);
      // A random moment on the venue's clock: 1 to 6 simulated minutes (candles) after the start.
      const killAt = sim.engine.now() + (1 + rand() * 5) * 60_000;
      await waitFor(() => sim.engine.now() >= killAt, {
        timeoutMs: 30_000,
        what: 'the kill moment on the venue clock',
      });
      d.proc.kill('SIGKILL');
      await d.exited;
      logs += d.stderr;
    }
    // A last, clean run reconciles (every venue fill journaled, nothing pending) and stops. It places no new
    // order (every intent is denied by notional), so what it must reach is not a moving target: the bots
    // trade every simulated minute, and under load a poll rarely caught the journal with nothing in flight.
    const quiet = remoteConfig('kill', sim, {
      risk: {
        allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
        maxDataAgeMs: 60000,
        whitelisted: true,
        maxOrderNotional: '0.01',
      },
    });
    const last = startCli(['run', '--config', quiet], env);
    await last.waitFor(/"message":"running"/, 20_000);
    await waitFor(
      () => {
        const j = journalView(join(dir, 'kill.db'));
        return j.pending === 0 && sim.engine.fills(SECRET.apiKey).every((x) => j.execIds.has(x.execId));
      },
      {
        timeoutMs: 60_000,
        what: 'the restarted daemon to journal every venue fill and resolve every pending order',
      },
    );
    last.proc.kill('SIGTERM');
    expect((await last.exited).code).toBe(0);
    // The run after a kill says so (the journal holds no clean-stop marker of the killed run).
    expect(last.stderr).toContain('"message":"the previous run did not end cleanly"');
    logs += last.stderr;

    const orders = sim.engine.orders(SECRET.apiKey);
    expect(orders.length).toBeGreaterThan(0);
    expect(new Set(orders.map((o) => o.clientOid)).size).toBe(orders.length);
    const store = openStore(join(dir, 'kill.db'));
    const journaled = store.orders.list({});
    // Every order at the venue is in the journal once, acknowledged; nothing is left pending.
    for (const o of orders)
      expect(journaled.filter((j) => j.order.clientOid === o.clientOid).map((j) => j.state)).toEqual([
        'acked',
      ]);
    expect(store.orders.pendingOrders()).toHaveLength(0);
    // The journal stamps its records on the venue's clock, as the pipeline trades (the simulator runs 120x
    // from 14:35 UTC today, far from the wall clock): after a restart, an order's journaled time is what
    // its fills are attributed by, so a wall-clock stamp there lost every fill synced after a restart.
    const venueStart = Date.UTC(2026, 10, 23, 14, 35);
    for (const j of journaled) {
      expect(j.createdTs).toBeGreaterThanOrEqual(venueStart);
      expect(j.createdTs).toBeLessThanOrEqual(sim.engine.now());
    }
    const journalFills = new Set(store.fills.list().map((x) => x.execId));
    for (const fill of sim.engine.fills(SECRET.apiKey))
      expect(journalFills.has(fill.execId), `fill ${fill.execId} missing`).toBe(true);
    store.close();
    for (const s of Object.values(SECRET)) expect(logs).not.toContain(s);
    await sim.stop();
  }, 150_000);

  it('a second SIGINT (Ctrl-C twice, or `timeout`) is said and ignored: the start completes, then it stops and exits 0', async () => {
    // Every request takes 400 ms, so the start (clock, fill baseline, backfill) spans both signals.
    const sim = await startSim({ latencyMs: [400, 400] });
    const d = startCli(['run', '--config', remoteConfig('twice', sim)], env);
    await d.waitFor(/"level":"info"/, 30_000);
    d.proc.kill('SIGINT');
    await d.waitFor(
      /"message":"stop requested".*"what":"SIGINT: the daemon stops as soon as its start completes"/,
      30_000,
    );
    d.proc.kill('SIGINT');
    const { code, signal } = await d.exited;
    expect({ code, signal }, d.stderr.slice(-3000)).toEqual({ code: 0, signal: null });
    expect(d.stderr).toMatch(/"message":"already stopping".*"what":"SIGINT again: already stopping; /);
    // The start completed, then the shutdown ran to its end.
    const order = ['"message":"running"', '"message":"stopping"', '"message":"stopped"'].map((m) =>
      d.stderr.indexOf(m),
    );
    expect(order[0]).toBeGreaterThan(0);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    await sim.stop();
  }, 60_000);

  it('keeps secrets out of every log line, even at debug level and on auth failures', async () => {
    const sim = await startSim();
    const f = remoteConfig('secrets', sim);
    const d = startCli(['run', '--config', f], { ...env });
    await d.waitFor(/"message":"order placed"/, 30_000);
    d.proc.kill('SIGTERM');
    await d.exited;
    const bad = startCli(['run', '--config', f], { ...env, E2E_SECRET: 'wrong-secret-value-123' });
    await bad.waitFor(/90009|sign signature error|start failed/, 30_000);
    bad.proc.kill('SIGTERM');
    await bad.exited;
    const all = d.stdout + d.stderr + bad.stdout + bad.stderr;
    for (const s of [...Object.values(SECRET), 'wrong-secret-value-123']) expect(all).not.toContain(s);
    await sim.stop();
  }, 90_000);

  it('soak: under 5xx, drops, 429 bursts and malformed JSON it stays up, keeps trading when faults stop, never doubles an order', async () => {
    const sim = await startSim({
      errorRate: 0.15,
      dropRate: 0.05,
      malformedRate: 0.05,
      burst429Rate: 0.02,
      latencyMs: [0, 30],
    });
    const f = remoteConfig('soak', sim);
    const d = startCli(['run', '--config', f], env);
    await d.waitFor(/"message":"running"/, 60_000);
    // Under faults: orders still reach the venue through retries, and the retries show in the log.
    const ordersDuringFaults = await waitFor(
      () => {
        const placed = sim.engine.orders(SECRET.apiKey).length;
        return /request failed, retrying|poll failed, will retry/.test(d.stderr) && placed >= 2 ? placed : 0;
      },
      {
        timeoutMs: 60_000,
        what: 'two orders at the venue while faults are injected',
        detail: () => d.stderr.slice(-2000),
      },
    );
    expect(d.proc.exitCode).toBeNull();
    sim.engine.faults.set({});
    const fillsBefore = sim.engine.fills(SECRET.apiKey).length;
    // Once the faults stop, trading goes on: new orders and new fills.
    await waitFor(
      () =>
        sim.engine.orders(SECRET.apiKey).length > ordersDuringFaults &&
        sim.engine.fills(SECRET.apiKey).length > fillsBefore,
      {
        timeoutMs: 60_000,
        what: 'a new order and a new fill after the faults stopped',
        detail: () => d.stderr.slice(-2000),
      },
    );
    expect(d.proc.exitCode).toBeNull();
    d.proc.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    const orders = sim.engine.orders(SECRET.apiKey);
    expect(new Set(orders.map((o) => o.clientOid)).size).toBe(orders.length);
    const store = openStore(join(dir, 'soak.db'));
    expect(store.orders.list({}).filter((o) => o.state === 'acked')).toHaveLength(orders.length);
    store.close();
    expect(d.stderr).toMatch(/poll failed, will retry|request failed, retrying/);
    expect(ordersDuringFaults).toBeGreaterThanOrEqual(2);
    expect(orders.length).toBeGreaterThan(ordersDuringFaults);
    await sim.stop();
  }, 120_000);
});
