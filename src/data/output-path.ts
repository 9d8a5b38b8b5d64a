// Every path tradebot writes to (the journal, backtest and sweep results, recordings, converted candle files,
// new strategies, the candle cache) is checked here before anything is written, and its folders are made here:
// a path that cannot be used is one sentence naming the setting and the fix, never a hang (Node's recursive
// mkdir loops forever under /proc, where it never gets EEXIST or ENOTDIR) nor a raw EEXIST.
import { accessSync, constants, mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

/** File systems made by the kernel: what is written there is lost or refused. */
const VIRTUAL_ROOTS = ['/proc', '/sys', '/dev'];

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/** A path given to write to that cannot be used; the sentence names the setting and the fix (the CLI exits 2). */
export class OutputPathError extends Error {
  override readonly name = 'OutputPathError';
}

export interface OutputPathOptions {
  /** The flag or setting the path came from, as the user wrote it: `--out`, `store.path`. */
  readonly what: string;
  /** Whether the path names a file to write or a folder to write into. */
  readonly kind: 'file' | 'folder';
  /** A path that would do, for the sentence (e.g. `.tradebot/tradebot.db`). */
  readonly example?: string | undefined;
  /** What the path holds, to open the sentence with ("the journal"); default `what`. */
  readonly noun?: string | undefined;
}

/** The virtual file system `path` (absolute) lies on, or undefined. */
function virtualRootOf(path: string): string | undefined {
  return VIRTUAL_ROOTS.find((root) => path === root || path.startsWith(root + sep));
}

/** The status of `path`, or undefined when it does not exist (or a folder on its way is a file). */
function statOrMissing(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return undefined;
    throw e;
  }
}

/**
 * What keeps `path` from being written as a `kind` (undefined when nothing does), without writing anything:
 * a virtual file system, a file where a folder must be (the path's own or one on its way), a folder where a file
 * must be, a folder this user cannot write into.
 */
export function outputPathProblem(path: string, o: OutputPathOptions): string | undefined {
  const abs = resolve(path);
  const { what, kind } = o;
  const subject = `${o.noun ?? what} ${abs}`;
  const such = o.example === undefined ? '' : `, such as ${o.example}`;
  const root = virtualRootOf(abs);
  if (root !== undefined)
    return `${subject} is on ${root}, a virtual file system that cannot hold ${kind === 'file' ? 'a file' : 'files'}: point ${what} at a ${kind} on a disk${such}`;
  let st: Stats | undefined;
  try {
    st = statOrMissing(abs);
  } catch (e) {
    return `${subject} cannot be read by this user (${errno(e) ?? 'error'}): fix its permissions or point ${what} elsewhere`;
  }
  if (st !== undefined) {
    if (kind === 'folder' && !st.isDirectory())
      return `${subject} is a file, not a folder: point ${what} at a folder (it is made when missing)${such}`;
    if (kind === 'file' && st.isDirectory())
      return `${subject} is a folder: point ${what} at a file${o.example === undefined ? ` such as ${join(abs, 'name')}` : such}`;
    if (kind === 'file' && !st.isFile())
      return `${subject} is not a regular file (a device, pipe or socket): point ${what} at a file on a disk${such}`;
    if (kind === 'file') {
      try {
        accessSync(abs, constants.W_OK);
      } catch (e) {
        const code = errno(e) ?? 'error';
        return `${subject} cannot be written: it is ${code === 'EROFS' ? 'on a read-only file system' : 'not writable by this user'} (${code}); fix its permissions or point ${what} elsewhere`;
      }
    }
  }
  // The nearest folder that exists on the way is where something gets created (or written, for a folder that exists).
  let folder = kind === 'folder' && st !== undefined ? abs : dirname(abs);
  let at: Stats | undefined;
  for (;;) {
    try {
      at = statOrMissing(folder);
    } catch (e) {
      return `${subject} cannot be created: ${folder} cannot be read by this user (${errno(e) ?? 'error'}); point ${what} elsewhere`;
    }
    if (at !== undefined || dirname(folder) === folder) break;
    folder = dirname(folder);
  }
  if (at !== undefined && !at.isDirectory())
    return `${subject} cannot be created: ${folder} is a file, not a folder; point ${what} elsewhere${such}`;
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch (e) {
    const code = errno(e) ?? 'error';
    return `${subject} cannot be written: the folder ${folder} is ${code === 'EROFS' ? 'on a read-only file system' : 'not writable by this user'} (${code}); make it writable or point ${what} at a writable folder`;
  }
  return undefined;
}

/**
 * Makes the folder `dir` and every missing one above it, one level at a time (a recursive mkdir can loop forever
 * on a virtual file system). Check the path with `outputPathProblem` first; an error here is the file system's.
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); statOrMissing(d) === undefined; d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw e;
    }
  }
}

/**
 * Checks a path to write to and makes the folders it needs (the folder itself for a `folder`, its parent for a
 * `file`); answers the absolute path. Throws `OutputPathError` with the sentence when the path cannot be used.
 * @example
 * const dir = prepareOutput(flags.out, { what: '--out', kind: 'folder' });
 */
export function prepareOutput(path: string, o: OutputPathOptions): string {
  const problem = outputPathProblem(path, o);
  if (problem !== undefined) throw new OutputPathError(problem);
  const abs = resolve(path);
  makeFolders(o.kind === 'folder' ? abs : dirname(abs));
  return abs;
}
