// Group commit: the orders many bots decide in one turn share ONE commit of the journal they share (one
// fsync), counted in the journal's WAL file itself; each is sent only once that commit is made (a second
// connection sees its row when the venue is asked), a failed write sends nothing, and a process killed
// while they are on the wire leaves no order at the simulator that the journal does not hold.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { RestVenue } from '../../../src/execution/rest-venue.js';
import type { Venue } from '../../../src/execution/venue.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { openStore } from '../../../src/store/index.js';
import { groupOrder, groupTrader } from './fixtures/group-traders.js';

const BOTS = 8;
const child = join(import.meta.dirname, 'fixtures', 'group-commit-child.ts');

/**
 * The commits in a WAL file: its frames that end a transaction (a nonzero database size in the frame's
 * header) and carry the header's salts (frames of an older generation of the file do not).
 */
function walCommits(db: string): number {
  const wal = readFileSync(`${db}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

describe('orders decided in one turn by bots sharing a journal', () => {
  let sim: Simulator;
  let client: RestClient;
  let rest: RestVenue;
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-group-'));
  let n = 0;
  let db: string;
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 11,
      startTime: Date.UTC(2026, 10, 23, 15),
      accounts: [{ apiKey: 'k', apiSecret: 's', passphrase: 'p', whitelisted: true }],
    });
    client = new RestClient({
      baseUrl: sim.baseUrl,
      credentials: { apiKey: 'k', apiSecret: 's', passphrase: 'p' },
    });
    rest = new RestVenue(client);
  });
  beforeEach(() => {
    sim.engine.reset();
    db = join(dir, `journal-${++n}.db`);
  });
  afterAll(async () => {
    client.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are journaled in one commit, and each is sent only after it', async () => {
    const store = openStore(db);
    const reader = new BetterSqlite3(db, { readonly: true });
    const committed = reader.prepare('SELECT count(*) AS n FROM orders WHERE client_oid = ?');
    const seen: { clientOid: string; rows: number; commits: number }[] = [];
    const venue: Venue = {
      fills: (s, l) => rest.fills(s, l),
      placeOrder(order) {
        // What another connection (a restarted process) would find at the moment of the send.
        const { n: rows } = committed.get(order.clientOid) as { n: number };
        seen.push({ clientOid: order.clientOid, rows, commits: walCommits(db) });
        return rest.placeOrder(order);
      },
    };
    try {
      const traders = Array.from({ length: BOTS }, (_, i) => groupTrader(store, venue, `b${i}`));
      const before = walCommits(db);
      const outcomes = await Promise.all(
        traders.map((t, i) => t.executor.place(groupOrder(i), { bot: `b${i}` })),
      );
      expect(outcomes.map((o) => o.status)).toEqual(Array(BOTS).fill('acked'));
      // One commit held all eight orders, made before the first send.
      expect(seen).toHaveLength(BOTS);
      for (const s of seen) expect(s, s.clientOid).toMatchObject({ rows: 1, commits: before + 1 });
      expect(store.groupCommits).toMatchObject({ commits: 1, writes: BOTS, largest: BOTS });
      // The venue's truth: every order once, each journaled and acknowledged.
      const atVenue = sim.engine.orders('k').map((o) => o.clientOid);
      expect(atVenue.sort()).toEqual(traders.map((_, i) => groupOrder(i).clientOid).sort());
      for (const oid of atVenue) expect(store.orders.byClientOid(oid)?.state, oid).toBe('acked');
    } finally {
      reader.close();
      store.close();
    }
  });

  it('are all failed, none sent, when the journal cannot take them', async () => {
    const store = openStore(db, { busyTimeoutMs: 0 });
    // Another connection holds the journal's write lock: no write of the turn can be made.
    const other = new BetterSqlite3(db);
    other.exec('BEGIN IMMEDIATE');
    try {
      const traders = Array.from({ length: BOTS }, (_, i) => groupTrader(store, rest, `b${i}`));
      const outcomes = await Promise.allSettled(
        traders.map((t, i) => t.executor.place(groupOrder(i), { bot: `b${i}` })),
      );
      expect(outcomes.map((o) => o.status)).toEqual(Array(BOTS).fill('rejected'));
      expect(sim.engine.orders('k')).toHaveLength(0);
      other.exec('ROLLBACK');
      expect(store.orders.pendingOrders()).toHaveLength(0);
    } finally {
      other.close();
      store.close();
    }
  });

  it('leave no order at the venue the journal does not hold when the process is killed mid-send', async () => {
    const exited = await new Promise<{ signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
      const p = spawn(process.execPath, ['--import', 'tsx', child, sim.baseUrl, db, String(BOTS)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
      p.on('close', (_status, signal) => {
        clearTimeout(timer);
        resolve({ signal, stderr });
      });
    });
    expect(exited.signal, exited.stderr).toBe('SIGKILL');
    const store = openStore(db);
    try {
      // Killed after its first acknowledgement: all eight were committed before any was sent.
      const journaled = new Set(store.orders.pendingOrders().map((r) => r.clientOid));
      expect(journaled.size).toBe(BOTS);
      const atVenue = sim.engine.orders('k').map((o) => o.clientOid);
      expect(atVenue.length).toBeGreaterThanOrEqual(1);
      for (const oid of atVenue) expect(journaled.has(oid), oid).toBe(true);
    } finally {
      store.close();
    }
  });
});
