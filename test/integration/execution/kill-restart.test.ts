// Kill the process between journal and send, and after send before the acknowledgement is journaled;
// restart it; the simulator holds ONE order, not two, and the journal ends acknowledged.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { openStore } from '../../../src/store/index.js';

const child = join(import.meta.dirname, 'fixtures', 'kill-child.ts');
// Asynchronous on purpose: the simulator runs in this process and must keep answering.
const run = (mode: string, baseUrl: string, db: string) =>
  new Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      const p = spawn(process.execPath, ['--import', 'tsx', child, mode, baseUrl, db], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
      p.on('close', (status, signal) => {
        clearTimeout(timer);
        resolve({ status, signal, stdout, stderr });
      });
    },
  );

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
