// Kill the process between journal and send, and after send before the acknowledgement is journaled, and
// from outside while its order request is on the wire (held by a proxy: lost, reaching the venue after the
// kill, or placed with its answer lost); restart it; the simulator holds ONE order, not two, and the
// journal ends acknowledged.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { openStore } from '../../../src/store/index.js';
import { startFaultProxy, type FaultProxy, type HeldRequest } from './fixtures/fault-proxy.js';

const child = join(import.meta.dirname, 'fixtures', 'kill-child.ts');
type Exit = { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };
// Asynchronous on purpose: the simulator runs in this process and must keep answering.
const start = (mode: string, baseUrl: string, db: string) => {
  const p = spawn(process.execPath, ['--import', 'tsx', child, mode, baseUrl, db], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<Exit>((resolve) => {
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
    p.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
  return { kill: () => p.kill('SIGKILL'), exited };
};
const run = (mode: string, baseUrl: string, db: string) => start(mode, baseUrl, db).exited;

describe('a process killed around an order', () => {
  let sim: Simulator;
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-kill-'));
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 9,
      startTime: Date.UTC(2026, 10, 23, 15),
      accounts: [{ apiKey: 'k', apiSecret: 's', passphrase: 'p', whitelisted: true }],
    });
  });
  afterAll(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const moment of ['before-send', 'after-send'] as const) {
    it(`killed ${moment.replace('-', ' ')}, then restarted, leaves exactly one order at the venue`, async () => {
      sim.engine.reset();
      const db = join(dir, `${moment}.db`);
      const first = await run(moment, sim.baseUrl, db);
      expect(first.signal).toBe('SIGKILL');
      const journal = openStore(db);
      expect(journal.orders.pendingOrders()).toHaveLength(1);
      journal.close();
      expect(sim.engine.orders('k')).toHaveLength(moment === 'before-send' ? 0 : 1);

      const second = await run('restart', sim.baseUrl, db);
      expect(second.status, second.stderr).toBe(0);
      const report = JSON.parse(second.stdout) as {
        resent: { status: string; alreadyPlaced?: boolean }[];
        pending: number;
      };
      expect(report.resent).toHaveLength(1);
      expect(report.resent[0]?.status).toBe('acked');
      expect(report.resent[0]?.alreadyPlaced).toBe(moment === 'after-send');
      expect(report.pending).toBe(0);
      const orders = sim.engine.orders('k');
      expect(orders).toHaveLength(1);
      expect(orders[0]?.clientOid).toBe('tb-kill-test-1');

      // A third start finds nothing left to do.
      const third = await run('restart', sim.baseUrl, db);
      expect((JSON.parse(third.stdout) as { resent: unknown[] }).resent).toHaveLength(0);
      expect(sim.engine.orders('k')).toHaveLength(1);
    });
  }
});

describe('a process killed from outside with its order request on the wire', () => {
  const PATH = '/api/v3/trade/place-reality-order';
  let sim: Simulator;
  let proxy: FaultProxy;
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-kill-wire-'));
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 9,
      startTime: Date.UTC(2026, 10, 23, 15),
      accounts: [{ apiKey: 'k', apiSecret: 's', passphrase: 'p', whitelisted: true }],
    });
    proxy = await startFaultProxy(sim.baseUrl);
  });
  afterAll(async () => {
    await proxy.stop();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // What becomes of the request the killed process sent: the restart cannot tell these apart.
  const FATES = [
    { fate: 'never reaches the venue', atVenue: false },
    { fate: 'reaches the venue after the kill', atVenue: true },
    { fate: 'was placed, its answer lost', atVenue: true },
  ] as const;
  for (const { fate, atVenue } of FATES) {
    it(`killed while its request ${fate}, then restarted, leaves exactly one order at the venue`, async () => {
      sim.engine.reset();
      const db = join(dir, `${fate.replaceAll(' ', '-')}.db`);
      const held = new Promise<HeldRequest>((resolve) => proxy.hold(PATH, resolve));
      const first = start('place', proxy.baseUrl, db);
      const h = await held;
      proxy.hold(PATH, undefined);
      if (fate === 'was placed, its answer lost') await h.forward();
      expect(h.clientGone).toBe(false);
      first.kill();
      expect((await first.exited).signal).toBe('SIGKILL');
      if (fate === 'reaches the venue after the kill') await h.release();
      else h.drop();
      expect(sim.engine.orders('k')).toHaveLength(atVenue ? 1 : 0);
      const journal = openStore(db);
      expect(journal.orders.pendingOrders()).toHaveLength(1);
      journal.close();

      const second = await run('restart', proxy.baseUrl, db);
      expect(second.status, second.stderr).toBe(0);
      const report = JSON.parse(second.stdout) as {
        resent: { status: string; alreadyPlaced?: boolean }[];
        pending: number;
      };
      expect(report.resent.map((r) => [r.status, r.alreadyPlaced])).toEqual([['acked', atVenue]]);
      expect(report.pending).toBe(0);
      expect(sim.engine.orders('k').map((o) => o.clientOid)).toEqual(['tb-kill-test-1']);
    });
  }
});
