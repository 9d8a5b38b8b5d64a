// Where a journal may live, checked before anything is written: the store never renames, moves or
// overwrites a file it did not create, and every refusal is one sentence that names the path and the fix.
import {
  accessSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  openSync,
  readSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';
import { makeFolders, outputPathProblem } from '../data/output-path.js';

/**
 * A journal path that cannot be used, or a journal that cannot be read or written. `message` is the
 * sentence for the user; `invalidInput` is true when the fix is in the configuration or the command
 * line (the CLI exits 2), false for a fault of the disk or the file (exit 1).
 */
export class JournalFileError extends Error {
  override readonly name = 'JournalFileError';
  constructor(
    message: string,
    readonly invalidInput: boolean,
  ) {
    super(message);
  }
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/** What the journal file at a path is, before it is opened for writing. */
export interface JournalFileState {
  /** Absolute path of the journal. */
  readonly file: string;
  /** A tradebot journal is there (with or without data); false for a missing or empty file. */
  readonly exists: boolean;
}

/**
 * Checks, without writing anything, that `path` can hold a tradebot journal: not on a virtual file
 * system, its folder creatable and writable, and an existing file a readable tradebot journal (an
 * SQLite file whose schema_migrations row 1 is tradebot's). Throws `JournalFileError` otherwise.
 */
export function checkJournalPath(path: string): JournalFileState {
  const file = resolve(path);
  // Where the journal's folder goes and what the path may be are the rules of every output path.
  const problem = outputPathProblem(file, {
    what: 'store.path',
    noun: 'the journal',
    kind: 'file',
    example: '.tradebot/tradebot.db',
  });
  if (problem !== undefined) throw new JournalFileError(problem, true);
  let st;
  try {
    st = statSync(file); // a symlinked journal is followed, as SQLite does
  } catch (e) {
    if (errno(e) !== 'ENOENT') throw describeAccess(file, e);
    for (const ext of ['-wal', '-shm']) {
      if (existsSync(file + ext)) {
        throw new JournalFileError(
          `${file}${ext} exists without the journal ${file} beside it: it belongs to a journal that was moved or deleted; move ${file}${ext} away (tradebot never deletes it) and start again`,
          true,
        );
      }
    }
    return { file, exists: false };
  }
  try {
    accessSync(file, constants.R_OK | constants.W_OK);
  } catch (e) {
    throw describeAccess(file, e);
  }
  if (st.size === 0) return { file, exists: false };
  if (readHeader(file) !== SQLITE_HEADER) {
    throw new JournalFileError(
      `${file} exists and is not a tradebot journal (it is not an SQLite database); tradebot never overwrites a file: point store.path at a new file or at an existing journal`,
      true,
    );
  }
  inspectJournal(file);
  return { file, exists: true };
}

/**
 * Creates the folders of `file` (one level at a time: makeFolders); the path must have passed `checkJournalPath`.
 */
export function ensureJournalFolder(file: string): void {
  try {
    makeFolders(dirname(resolve(file)));
  } catch (e) {
    throw describeJournalFault(e, file) ?? e;
  }
}

/**
 * Keeps the journal at `file` (and its -wal and -shm companions, unless the -wal is empty) under a new name
 * stamped with `now`, so a new journal can start at `file`; answers the name it is kept under, or undefined
 * when there was nothing to keep. Never overwrites: a taken name gets a counter. Hard links first, so the journal's
 * bytes are never copied half-way; a copy where the file system has no links.
 */
export function keepJournalAside(file: string, now: number): string | undefined {
  if (!existsSync(file)) return undefined;
  const stamp = new Date(now).toISOString().replace(/:/g, '-');
  let target = `${file}.${stamp}`;
  for (let n = 2; ['', '-wal', '-shm'].some((ext) => existsSync(target + ext)); n++)
    target = `${file}.${stamp}.${n}`;
  // An empty -wal holds no transaction, and then the -shm (an index of the -wal) holds nothing either: SQLite
  // leaves both after the read-only check of the journal (inspectJournal). They are removed, not kept.
  const wal = existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;
  const companions = ['-wal', '-shm'].filter((ext) => existsSync(file + ext));
  const parts = ['', ...(wal > 0 ? companions : [])];
  for (const ext of parts) {
    try {
      linkSync(file + ext, target + ext);
    } catch (e) {
      if (errno(e) === 'EEXIST') throw e;
      try {
        copyFileSync(file + ext, target + ext, constants.COPYFILE_EXCL);
      } catch (e2) {
        throw describeJournalFault(e2, file) ?? e2;
      }
    }
  }
  // Only once every part is kept under the new name does the old name go.
  for (const ext of ['', ...companions]) unlinkSync(file + ext);
  return target;
}

/**
 * The sentence for an error of the file system or SQLite on the journal at `file`, or undefined when
 * `err` is not one (a bug, which keeps its stack trace).
 */
export function describeJournalFault(err: unknown, file: string): JournalFileError | undefined {
  if (err instanceof JournalFileError) return err;
  const code = errno(err);
  if (code === undefined) return undefined;
  const what = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG') {
    return new JournalFileError(
      `the journal ${file} cannot be written: the disk is full (${code}); free some space and start again — nothing was sent that is not journaled`,
      false,
    );
  }
  if (
    code.startsWith('SQLITE_READONLY') ||
    code === 'EROFS' ||
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'SQLITE_PERM'
  ) {
    return new JournalFileError(
      `the journal ${file} cannot be written: ${code === 'EROFS' || code.startsWith('SQLITE_READONLY') ? 'read-only' : 'permission denied'} (${code}); make its folder writable or point store.path elsewhere`,
      false,
    );
  }
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return damaged(file, what);
  }
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') {
    return new JournalFileError(
      `the journal ${file} could not be written: input/output error (${code}: ${what}); check the disk, then start again`,
      false,
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new JournalFileError(
      `the journal ${file} cannot be opened (${code}); check that its folder exists and is writable`,
      false,
    );
  }
  return undefined;
}

function damaged(file: string, why: string): JournalFileError {
  return new JournalFileError(
    `the journal ${file} is damaged (${why}); nothing was written to it: restore it from a backup, or start a new journal with \`tradebot run --fresh\` (the damaged file is kept beside it)`,
    false,
  );
}

function describeAccess(file: string, e: unknown): JournalFileError {
  return new JournalFileError(
    `the journal ${file} cannot be ${errno(e) === 'EROFS' ? 'written: it is on a read-only file system' : 'read and written by this user'} (${errno(e) ?? 'error'}); fix its permissions or point store.path elsewhere`,
    true,
  );
}

function readHeader(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    return buf.subarray(0, n).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/** Opens an SQLite file read-only and checks that it is a readable tradebot journal. */
function inspectJournal(file: string): void {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw describeJournalFault(e, file) ?? e;
  }
  try {
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      .pluck()
      .all() as string[];
    const first = tables.includes('schema_migrations')
      ? (db.prepare(`SELECT name FROM schema_migrations WHERE version = 1`).pluck().get() as
          string | undefined)
      : undefined;
    if (tables.length > 0 && first !== MIGRATIONS[0]?.name) {
      throw new JournalFileError(
        `${file} is an SQLite database but not a tradebot journal (its tables: ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', …' : ''}); tradebot never writes into another program's database: point store.path at a new file or at an existing journal`,
        true,
      );
    }
    // quick_check reads every page once: a damaged journal is refused before anything trusts it.
    const check = db.prepare('PRAGMA quick_check').pluck().all() as string[];
    if (check[0] !== 'ok') throw damaged(file, `integrity check: ${check.slice(0, 3).join('; ')}`);
  } catch (e) {
    throw describeJournalFault(e, file) ?? e;
  } finally {
    db.close();
  }
}
