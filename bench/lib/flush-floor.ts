// The disk's flush floor, measured in the run that it anchors: what making a small record durable costs on
// the journal's file system, whatever writes it. A 4 KB write and fdatasync into a preallocated file, and a
// one-row commit of SQLite in WAL mode at synchronous=FULL (the journal's setting: the WAL is fsynced at every
// commit), each paced (a disk idle a while is slower to flush than one flushing back to back).
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export interface FlushFloor {
  /** ms per 4 KB write + fdatasync. */
  readonly fdatasync: number[];
  /** ms per one-row SQLite commit, WAL, synchronous=FULL. */
  readonly sqliteFull: number[];
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` samples of each, `pauseMs` apart, in a temp folder under `dir` (the journal's folder). */
export async function measureFlushFloor(dir: string, n: number, pauseMs: number): Promise<FlushFloor> {
  const here = mkdtempSync(join(dir, 'floor-'));
  const page = Buffer.alloc(4096, 120);
  const fd = openSync(join(here, 'floor.bin'), 'w');
  const db = new BetterSqlite3(join(here, 'floor.db'));
  try {
    writeSync(fd, Buffer.alloc(n * page.length));
    fdatasyncSync(fd);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const commit = db.transaction((v: string) => insert.run(v));
    const row = 'x'.repeat(300); // about an order's journal entry
    const fdatasync: number[] = [];
    const sqliteFull: number[] = [];
    for (let i = 0; i < n; i++) {
      await pause(pauseMs);
      let t0 = performance.now();
      writeSync(fd, page, 0, page.length, i * page.length);
      fdatasyncSync(fd);
      fdatasync.push(performance.now() - t0);
      await pause(pauseMs);
      t0 = performance.now();
      commit(row);
      sqliteFull.push(performance.now() - t0);
    }
    return { fdatasync, sqliteFull };
  } finally {
    closeSync(fd);
    db.close();
    rmSync(here, { recursive: true, force: true });
  }
}
