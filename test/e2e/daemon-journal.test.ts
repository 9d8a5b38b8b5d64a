// The daemon's journal through the real CLI: a second run never destroys the first run's journal; an
// unusable, foreign, read-only, full or damaged journal ends in one sentence (exit 2 or 1) at start or a
// clean stop, never a stack trace or a hang, and never an order at the venue that the journal lacks.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSimulator } from '../../src/sim/index.js';
import { openStore } from '../../src/store/index.js';
import { runCli, startCli } from '../helpers/cli.js';
import { demoConfig } from '../helpers/demo-config.js';
import { fillDisk, mountTmpfs } from '../helpers/tmpfs.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-journal-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
/** A stack trace line, which a user must never see. */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

/** The demo deployment (embedded simulator) with its journal at `storePath`. */
function demoAt(name: string, storePath: string): string {
  const demo = demoConfig(storePath);
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, stringify(demo));
  return f;
}

const clientOids = (path: string): string[] => {
  const s = openStore(path);
  const oids = s.orders.list({}).map((o) => o.order.clientOid);
  s.close();
  return oids;
};

describe('nothing lost, ever', () => {
  it("a second run on one journal path finds the first run's journal intact; --fresh keeps it under a timestamped name and says where", async () => {
    const journal = join(dir, 'twice.db');
    const f = demoAt('twice', journal);
    const first = startCli(['run', '--config', f]);
    await first.waitFor(/"message":"order placed"/, 60_000);
    first.proc.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const firstOrders = clientOids(journal);
    expect(firstOrders.length).toBeGreaterThan(0);
    const firstHash = sha(journal);

    // Without --fresh the embedded simulator's journal is not continued, and not moved either.
    const second = await runCli(['run', '--config', f]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/holds an earlier run on the embedded simulator.*run with --fresh/);
    expect(second.stderr).not.toMatch(STACK);
    expect(sha(journal)).toBe(firstHash);
    expect(existsSync(`${journal}.previous`)).toBe(false);

    const third = startCli(['run', '--config', f, '--fresh']);
    const [, kept] = await third.waitFor(
      /"message":"started a fresh journal; the previous one is kept".*?"previous":"([^"]+)"/,
      30_000,
    );
    await third.waitFor(/"message":"running"/, 30_000);
    third.proc.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);
    expect(kept).toMatch(/twice\.db\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
    expect(sha(kept as string)).toBe(firstHash);
    // Kept alone: no empty -wal or -shm of the read-only check beside it.
    expect(readdirSync(dir).filter((n) => n.startsWith(basename(kept as string)))).toEqual([
      basename(kept as string),
    ]);
    expect(clientOids(kept as string)).toEqual(firstOrders);
    expect(existsSync(journal)).toBe(true); // the new run's own journal
  }, 150_000);
});

describe('journal faults end in a sentence, never a hang or a stack trace', () => {
  it('store.path under /proc is refused at once with exit 2', async () => {
    const started = Date.now();
    const r = await runCli(['run', '--config', demoAt('proc', '/proc/tradebot/demo.db')], {}, 20_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /store\.path: store\.path must be a file on a disk, not under \/proc, \/sys or \/dev/,
    );
    expect(r.stderr).not.toMatch(STACK);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a file that is not a journal is refused with exit 2 and left untouched', async () => {
    const notes = join(dir, 'notes.md');
    copyFileSync('README.md', notes);
    const before = sha(notes);
    const r = await runCli(['run', '--config', demoAt('foreign', notes)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/notes\.md exists and is not a tradebot journal/);
    expect(sha(notes)).toBe(before);
    expect(existsSync(`${notes}-wal`)).toBe(false);
  });

  it('a damaged journal is refused at start with exit 1 and the way out', async () => {
    const journal = join(dir, 'damaged.db');
    const s = openStore(journal);
    for (let i = 0; i < 200; i++) s.meta.set(`k${i}`, 'x'.repeat(200), i);
    s.close();
    const bytes = readFileSync(journal);
    bytes.fill(0x5a, 4096, bytes.length - 4096);
    writeFileSync(journal, bytes);
    const r = await runCli(['run', '--config', demoAt('damaged', journal)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /is damaged .*restore it from a backup, or start a new journal with `tradebot run --fresh`/,
    );
    expect(r.stderr).not.toMatch(STACK);
    expect(readFileSync(journal).equals(bytes)).toBe(true);
  });

  it('a journal in a read-only folder is refused with exit 2', async () => {
    // A read-only tmpfs where the machine can mount one; otherwise a folder without write permission,
    // with the command run as nobody when we are root (root ignores permissions).
    const fs = mountTmpfs(64, { readOnly: true });
    const folder = fs?.dir ?? mkdtempSync(join(dir, 'ro-'));
    if (fs === undefined) chmodSync(folder, 0o555);
    const asNobody = fs === undefined && process.getuid?.() === 0;
    if (asNobody) chmodSync(dir, 0o755); // nobody reads the deployment file there
    try {
      const cfg = demoAt('readonly', join(folder, 'j.db'));
      const d = startCli(['run', '--config', cfg], {}, undefined, {
        user: asNobody ? { uid: 65534, gid: 65534 } : undefined,
      });
      const { code } = await d.exited;
      expect(code, d.stderr).toBe(2);
      expect(d.stderr).toMatch(
        /the journal .*j\.db cannot be written: the folder .* (read-only|not writable)/,
      );
      expect(d.stderr).not.toMatch(STACK);
    } finally {
      fs?.unmount();
    }
  });

  it('a full disk at start is one sentence with exit 1', async () => {
    const fs = mountTmpfs(64);
    try {
      let r;
      if (fs !== undefined) {
        fillDisk(fs.dir);
        r = await runCli(['run', '--config', demoAt('full-start', join(fs.dir, 'j.db'))]);
      } else {
        // No tmpfs here: every write past 0 bytes fails below the store, as on a full disk.
        const d = startCli(
          ['run', '--config', demoAt('full-start', join(dir, 'full-start.db'))],
          {},
          undefined,
          {
            maxFileBlocks: 0,
          },
        );
        const { code } = await d.exited;
        r = { code, stderr: d.stderr };
      }
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/cannot be written: the disk is full/);
      expect(r.stderr).not.toMatch(STACK);
    } finally {
      fs?.unmount();
    }
  });

  it('a disk that fills while trading stops the daemon cleanly with exit 1; every venue order is in the journal', async () => {
    // The journal grows to about 1.5 MB (WAL) by the first order; the tmpfs leaves room for that.
    const fs = mountTmpfs(4096);
    const key = { apiKey: 'full-key-1', apiSecret: 'full-secret-1', passphrase: 'full-pass-1' };
    const sim = await startSimulator({
      seed: 21,
      speed: 120,
      startTime: Date.UTC(2026, 10, 23, 14, 35),
      accounts: [{ ...key, whitelisted: true, balances: { USDT: '50000' } }],
    });
    try {
      const journal = join(fs?.dir ?? mkdtempSync(join(dir, 'full-run-')), 'j.db');
      const cfg = {
        venue: {
          kind: 'remote',
          baseUrl: sim.baseUrl,
          credentials: { apiKey: '${K}', apiSecret: '${S}', passphrase: '${P}' },
          whitelisted: true,
          timeScale: 120,
        },
        store: { path: journal },
        logging: { level: 'info', format: 'json' },
        metrics: { enabled: false },
        bots: [
          {
            name: 'full',
            strategy: 'ma-crossover',
            params: { fast: 2, slow: 4, quoteAmount: '300' },
            symbols: ['AAPLUSDT'],
            capital: '50000',
            poll: { tickersMs: 5000, fillsMs: 20000 },
            risk: {
              allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
              maxDataAgeMs: 60000,
            },
          },
        ],
      };
      const f = join(dir, 'full-run.yaml');
      writeFileSync(f, stringify(cfg));
      const env = { K: key.apiKey, S: key.apiSecret, P: key.passphrase };
      let filler: string | undefined;
      let d;
      if (fs !== undefined) {
        d = startCli(['run', '--config', f], env);
        await d.waitFor(/"message":"order placed"/, 60_000);
        filler = fillDisk(fs.dir);
      } else {
        // No tmpfs here: files are capped at 512 KB below the store, which the journal passes after
        // "running" (about 90 KB then), while it replays the candles it missed: not necessarily after
        // an order, so the venue may have none.
        d = startCli(['run', '--config', f], env, undefined, { maxFileBlocks: 1024 });
        await d.waitFor(/"message":"running"/, 60_000);
      }
      const { code } = await d.exited; // the condition under test: the daemon stops by itself
      expect(code).toBe(1);
      expect(d.stderr).toMatch(/"message":"the journal failed; stopping"/);
      // A write past the cap reaches SQLite as an I/O error (EFBIG), a full tmpfs as SQLITE_FULL.
      expect(d.stderr).toMatch(
        fs !== undefined
          ? /the journal \S+j\.db cannot be written: the disk is full/
          : /the journal \S+j\.db could not be written: input\/output error/,
      );
      expect(d.stderr).not.toMatch(STACK);
      if (filler !== undefined) unlinkSync(filler);
      const journaled = new Set(clientOids(journal));
      const atVenue = sim.engine.orders(key.apiKey);
      if (fs !== undefined) expect(atVenue.length).toBeGreaterThan(0);
      for (const o of atVenue) expect(journaled.has(o.clientOid), `${o.clientOid} not journaled`).toBe(true);
    } finally {
      await sim.stop();
      fs?.unmount();
    }
  }, 120_000);
});
