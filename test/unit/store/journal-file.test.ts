// The store never writes into a file it did not create, never hangs on an unusable path, refuses a
// damaged journal with a sentence, and keeps every older journal when a fresh one is asked for.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalFileError, checkJournalPath, keepJournalAside, openStore } from '../../../src/store/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tradebot-journal-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The JournalFileError `fn` throws (the test fails when it throws anything else or nothing). */
function refusal(fn: () => unknown): JournalFileError {
  try {
    fn();
  } catch (e) {
    if (e instanceof JournalFileError) return e;
    throw e;
  }
  throw new Error('expected a JournalFileError');
}

/** A journal with one meta row, closed. */
function journalAt(path: string, value = 'first run'): void {
  const s = openStore(path);
  s.meta.set('marker', value, 1);
  s.close();
}

describe('paths that cannot hold a journal', () => {
  it('refuses a path under /proc at once, without creating anything (Node would loop forever there)', () => {
    const e = refusal(() => openStore('/proc/tradebot/journal.db'));
    expect(e.message).toMatch(/\/proc\/tradebot\/journal\.db is on \/proc, a virtual file system/);
    expect(e.invalidInput).toBe(true);
    expect(refusal(() => checkJournalPath('/sys/x.db')).message).toMatch(/on \/sys/);
  });

  it('refuses a file that is not an SQLite database and leaves its bytes untouched', () => {
    const f = join(dir, 'README.md');
    copyFileSync('README.md', f);
    const before = readFileSync(f);
    const e = refusal(() => openStore(f));
    expect(e.message).toMatch(/exists and is not a tradebot journal \(it is not an SQLite database\)/);
    expect(e.message).toMatch(/never overwrites a file/);
    expect(readFileSync(f).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['README.md']);
  });

  it("refuses another program's SQLite database without adding a table to it", () => {
    const f = join(dir, 'other.db');
    const db = new BetterSqlite3(f);
    db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    db.close();
    const e = refusal(() => openStore(f));
    expect(e.message).toMatch(/is an SQLite database but not a tradebot journal \(its tables: customers\)/);
    const check = new BetterSqlite3(f, { readonly: true });
    expect(check.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all()).toEqual([
      'customers',
    ]);
    check.close();
  });

  it('refuses a folder, and a path whose parent is a file', () => {
    mkdirSync(join(dir, 'a-folder'));
    expect(refusal(() => openStore(join(dir, 'a-folder'))).message).toMatch(/is a folder/);
    writeFileSync(join(dir, 'plain'), 'x');
    expect(refusal(() => openStore(join(dir, 'plain', 'j.db'))).message).toMatch(
      /plain is a file, not a folder/,
    );
  });

  it('refuses a -wal left without its journal instead of replaying it into a new one', () => {
    writeFileSync(join(dir, 'j.db-wal'), 'orphan');
    expect(refusal(() => openStore(join(dir, 'j.db'))).message).toMatch(
      /j\.db-wal exists without the journal/,
    );
  });

  it('accepts an empty file and a missing folder (created one level at a time)', () => {
    writeFileSync(join(dir, 'empty.db'), '');
    journalAt(join(dir, 'empty.db'));
    journalAt(join(dir, 'deep', 'er', 'j.db'));
    expect(checkJournalPath(join(dir, 'deep', 'er', 'j.db')).exists).toBe(true);
  });
});

describe('a damaged journal', () => {
  it('is refused at open with a sentence naming the file and the way out, and is not written to', () => {
    const f = join(dir, 'j.db');
    const s = openStore(f);
    for (let i = 0; i < 200; i++) s.meta.set(`k${i}`, 'x'.repeat(200), i);
    s.close();
    const bytes = readFileSync(f);
    // Overwrite the middle pages (the header stays valid): what a torn disk write leaves behind.
    bytes.fill(0xa5, 4096, bytes.length - 4096);
    writeFileSync(f, bytes);
    const e = refusal(() => openStore(f));
    expect(e.message).toMatch(new RegExp(`the journal ${f} is damaged`));
    expect(e.message).toMatch(/restore it from a backup, or start a new journal with `tradebot run --fresh`/);
    expect(e.invalidInput).toBe(false);
    expect(readFileSync(f).equals(bytes)).toBe(true);
  });
});

describe('keeping a journal aside for a fresh one', () => {
  it('keeps every older journal under its own timestamped name and never overwrites one', () => {
    const f = join(dir, 'demo.db');
    journalAt(f, 'run 1');
    const first = keepJournalAside(f, Date.UTC(2026, 10, 23, 19, 0));
    journalAt(f, 'run 2');
    const second = keepJournalAside(f, Date.UTC(2026, 10, 23, 19, 0)); // the same instant
    expect(first).toBe(`${f}.2026-11-23T19-00-00.000Z`);
    expect(second).toBe(`${f}.2026-11-23T19-00-00.000Z.2`);
    expect(keepJournalAside(f, 0)).toBeUndefined(); // nothing left at the path
    // The empty -wal and -shm SQLite leaves after a read-only look are removed, not kept beside the journal.
    journalAt(f, 'run 3');
    checkJournalPath(f);
    writeFileSync(`${f}-wal`, '');
    writeFileSync(`${f}-shm`, Buffer.alloc(32_768));
    const third = keepJournalAside(f, Date.UTC(2026, 10, 23, 20, 0)) as string;
    expect(readdirSync(dir).filter((n) => n.startsWith(basename(third)))).toEqual([basename(third)]);
    expect(readdirSync(dir).filter((n) => n.startsWith('demo.db-'))).toEqual([]);
    // A -wal with content is part of the journal: kept with its -shm.
    journalAt(f, 'run 4');
    writeFileSync(`${f}-wal`, 'not empty');
    writeFileSync(`${f}-shm`, Buffer.alloc(32_768));
    const fourth = keepJournalAside(f, Date.UTC(2026, 10, 23, 21, 0)) as string;
    expect(
      readdirSync(dir)
        .filter((n) => n.startsWith(basename(fourth)))
        .sort(),
    ).toEqual([basename(fourth), `${basename(fourth)}-shm`, `${basename(fourth)}-wal`]);
    expect(readFileSync(`${fourth}-wal`, 'utf8')).toBe('not empty');
    for (const [kept, value] of [
      [first, 'run 1'],
      [second, 'run 2'],
    ] as const) {
      const s = openStore(kept as string);
      expect(s.meta.get('marker')).toBe(value);
      s.close();
    }
  });
});
