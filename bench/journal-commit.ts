// What one commit of the journal costs on this disk, alone: a one-row insert and its commit on a temp
// file in WAL mode (as the store opens it), with synchronous=FULL (the WAL is fsynced at every commit:
// the store's default, what an order's journal entry costs before its send) beside synchronous=NORMAL
// (no fsync at commit), paced as orders are (a few ms apart, not back to back). The p99 of FULL is the
// floor of the tick-to-order p99 with the journal's durability rule. Beside them, the disk's own floor:
// one 4 KB write and fdatasync of a preallocated file, paced the same, what any record made durable
// before an order's send costs at least, whatever writes it (`--pause-ms 250` paces as the tick-to-order
// bench's candles come, 4 a second: a disk idle that long is slower to flush).
// Last, a candle boundary of `--batch` bots' orders (default 200): the time until the last of them is
// committed, one commit each (as before issue 43) against one group commit for all (src/store/group-commit.ts).
//   npx tsx bench/journal-commit.ts [--commits 300] [--pause-ms 5] [--batch 200] [--boundaries 20]
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { GroupCommit } from '../src/store/group-commit.js';
import { numberFlag } from './lib/flags.js';

const COMMITS = numberFlag('commits', 300);
const PAUSE_MS = numberFlag('pause-ms', 5);
const BATCH = numberFlag('batch', 200);
const BOUNDARIES = numberFlag('boundaries', 20);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
const ms = (x: number) => `${x.toFixed(3)} ms`;

async function commits(synchronous: 'FULL' | 'NORMAL'): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-commit-'));
  const db = new BetterSqlite3(join(dir, 'commit.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const commit = db.transaction((v: string) => insert.run(v));
    const row = 'x'.repeat(300); // about an order's journal entry
    const out: number[] = [];
    for (let i = 0; i < COMMITS; i++) {
      const t0 = performance.now();
      commit(row);
      out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, PAUSE_MS));
    }
    return out;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One 4 KB write and fdatasync per turn, into a file written and synced beforehand (no growth, no metadata). */
async function deviceFloor(): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-fsync-'));
  const page = Buffer.alloc(4096, 120);
  const fd = openSync(join(dir, 'floor.bin'), 'w');
  try {
    writeSync(fd, Buffer.alloc(COMMITS * page.length));
    fdatasyncSync(fd);
    const out: number[] = [];
    for (let i = 0; i < COMMITS; i++) {
      await new Promise((r) => setTimeout(r, PAUSE_MS));
      const t0 = performance.now();
      writeSync(fd, page, 0, page.length, i * page.length);
      fdatasyncSync(fd);
      out.push(performance.now() - t0);
    }
    return out;
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

await commits('NORMAL'); // warm-up: JIT, page cache
const normal = await commits('NORMAL');
const full = await commits('FULL');
const floor = await deviceFloor();
const line = (name: string, xs: number[]) =>
  `${name}: p50 ${ms(pct(xs, 50))}  p99 ${ms(pct(xs, 99))}  max ${ms(Math.max(...xs))}`;
console.log(`insert + commit, WAL, ${COMMITS} commits ${PAUSE_MS} ms apart, on ${tmpdir()}`);
console.log(line('synchronous=FULL   (fsync per commit)', full));
console.log(line('synchronous=NORMAL (baseline)        ', normal));
console.log(line('the disk: 4 KB write + fdatasync     ', floor));
console.log(`ratio FULL / NORMAL at p50: ${(pct(full, 50) / pct(normal, 50)).toFixed(1)}x`);
console.log(
  `ratio FULL / the disk's floor: p50 ${(pct(full, 50) / pct(floor, 50)).toFixed(2)}x, p99 ${(pct(full, 99) / pct(floor, 99)).toFixed(2)}x`,
);

/** Per boundary, ms until the last of BATCH orders is committed: one commit each, or one group commit. */
async function boundaries(grouped: boolean): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-group-'));
  const db = new BetterSqlite3(join(dir, 'group.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const tx = db.transaction((fn: () => unknown) => fn());
    const group = new GroupCommit((fn) => tx(fn));
    for (let i = 0; i < BATCH; i++) group.join();
    const row = 'x'.repeat(300);
    const out: number[] = [];
    for (let b = 0; b < BOUNDARIES; b++) {
      await new Promise((r) => setTimeout(r, PAUSE_MS));
      const t0 = performance.now();
      const all: unknown[] = [];
      for (let i = 0; i < BATCH; i++)
        all.push(grouped ? group.run(() => insert.run(row)) : tx(() => insert.run(row)));
      await Promise.all(all);
      out.push(performance.now() - t0);
    }
    return out;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const single = await boundaries(false);
const grouped = await boundaries(true);
console.log(`a boundary of ${BATCH} orders, ${BOUNDARIES} boundaries: until the last is committed`);
console.log(line('one commit per order', single));
console.log(line('one group commit    ', grouped));
