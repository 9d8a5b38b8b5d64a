// What one commit of the journal costs on this disk, alone: a one-row insert and its commit on a temp
// file in WAL mode (as the store opens it), with synchronous=FULL (the WAL is fsynced at every commit:
// the store's default, what an order's journal entry costs before its send) beside synchronous=NORMAL
// (no fsync at commit), paced as orders are (a few ms apart, not back to back). The p99 of FULL is the
// floor of the tick-to-order p99 with the journal's durability rule.
//   npx tsx bench/journal-commit.ts [--commits 300] [--pause-ms 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { numberFlag } from './lib/flags.js';

const COMMITS = numberFlag('commits', 300);
const PAUSE_MS = numberFlag('pause-ms', 5);

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

await commits('NORMAL'); // warm-up: JIT, page cache
const normal = await commits('NORMAL');
const full = await commits('FULL');
const line = (name: string, xs: number[]) =>
  `${name}: p50 ${ms(pct(xs, 50))}  p99 ${ms(pct(xs, 99))}  max ${ms(Math.max(...xs))}`;
console.log(`insert + commit, WAL, ${COMMITS} commits ${PAUSE_MS} ms apart, on ${tmpdir()}`);
console.log(line('synchronous=FULL   (fsync per commit)', full));
console.log(line('synchronous=NORMAL (baseline)        ', normal));
console.log(`ratio FULL / NORMAL at p50: ${(pct(full, 50) / pct(normal, 50)).toFixed(1)}x`);
