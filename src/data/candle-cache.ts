// The columnar cache of text candle files: the first read of a CSV or JSONL file (validated row by row) also
// writes its columns as an uncompressed Arrow IPC file named after the SHA-256 of the text file's bytes; later
// reads of a file with the same bytes read those columns instead of parsing text. The name is the content, so
// an entry is never stale: an edited file has another hash and is parsed (and cached) again. A file's hash is
// remembered while its status (size, inode, times in ns) stays the same, so a warm read does not hash it again. A CSV or JSON file
// another tool wrote is kept the same way (foreignEntryPath: its name and the instrument given are in the key).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { prepareOutput } from './output-path.js';
import { streamArrowEntry, writeArrowFile } from './arrow-entry.js';
import type { CandleBatch, CandleFileMeta, CandleSource } from './format.js';
import { DEFAULT_SHARED_LIMIT_BYTES, SHARED_BYTES_PER_CANDLE } from './shared-candles.js';

/** Bumped when the cached layout changes, so older entries are simply not found. */
const CACHE_VERSION = 2;

/**
 * Where the cache lives: `$TRADEBOT_CACHE_DIR`, else `$XDG_CACHE_HOME/tradebot/candles`, else
 * `~/.cache/tradebot/candles`; `TRADEBOT_CACHE_DIR=off` turns it off. Deleting the folder is always safe.
 */
export function candleCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.TRADEBOT_CACHE_DIR;
  if (set === 'off') return undefined;
  if (set !== undefined && set !== '') return set;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tradebot', 'candles');
}

/** SHA-256 of a file's bytes, hex: the identity of a dataset (cache key, and what a sweep worker checks). */
export async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** What a file's hash is remembered by: the same bytes have the same of all of these. */
export interface HashMemo {
  readonly path: string;
  readonly stat: string;
  readonly sha256: string;
}
const hashMemo = new Map<string, HashMemo>();

/**
 * The file's status as a key: size, inode, device, and its modification and status-change times in
 * nanoseconds (the kernel moves ctime on every write, rename over and chmod, and no tool sets it back).
 * `changedMs` is the ctime, for the racy check.
 */
function statKey(path: string): { key: string; changedMs: number } {
  const st = statSync(path, { bigint: true });
  return {
    key: `${st.size}:${st.ino}:${st.dev}:${st.mtimeNs}:${st.ctimeNs}`,
    changedMs: Number(st.ctimeMs),
  };
}

const memoFile = (dir: string, path: string) =>
  join(dir, 'sha256', `${createHash('sha256').update(path).digest('hex').slice(0, 32)}.json`);

/**
 * The remembered SHA-256 of the file at `path` while its status (statKey) has not moved since it was hashed:
 * from this process, or with a cache folder from `<dir>/sha256/`, left by an earlier one. `remember` keeps a
 * hash taken now, unless the status moved while the bytes were read or the file changed within the last 2 s
 * (as git does with racy index entries: file times are coarse on some file systems, so a second write in the
 * same tick would not move them).
 */
export function hashRecall(
  path: string,
  dir: string | undefined,
  // File-system time, compared with the file system's own clock (the wall clock), not a trading clock.
  askedAt = Date.now(),
  inProcess: Map<string, HashMemo> = hashMemo,
): { readonly sha256: string | undefined; remember(sha256: string): void } {
  const abs = resolve(path);
  const { key, changedMs } = statKey(abs);
  const file = dir === undefined ? undefined : memoFile(dir, abs);
  let sha256 = inProcess.get(abs)?.stat === key ? inProcess.get(abs)?.sha256 : undefined;
  if (sha256 === undefined && file !== undefined) {
    try {
      const m = JSON.parse(readFileSync(file, 'utf8')) as Partial<HashMemo>;
      if (
        m.path === abs &&
        m.stat === key &&
        typeof m.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(m.sha256)
      ) {
        sha256 = m.sha256;
        inProcess.set(abs, { path: abs, stat: key, sha256 });
      }
    } catch {
      // No memo (or one that cannot be read): the caller hashes the file.
    }
  }
  return {
    sha256,
    remember(hashed: string) {
      if (statKey(abs).key !== key || askedAt - changedMs <= 2000) return;
      const memo: HashMemo = { path: abs, stat: key, sha256: hashed };
      inProcess.set(abs, memo);
      if (file === undefined) return;
      try {
        prepareOutput(dirname(file), { what: 'TRADEBOT_CACHE_DIR', kind: 'folder' });
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(memo));
        renameSync(tmp, file);
      } catch {
        // Not remembered: the next process hashes the file again.
      }
    },
  };
}

/** SHA-256 of a file's bytes, hashed only when no remembered hash of it holds (see hashRecall). */
export async function rememberedSha256(
  path: string,
  dir: string | undefined = candleCacheDir(),
): Promise<string> {
  const recall = hashRecall(path, dir);
  if (recall.sha256 !== undefined) return recall.sha256;
  const sha256 = await fileSha256(path);
  recall.remember(sha256);
  return sha256;
}

/** The cache entry of a text file with this content hash. */
export const cacheEntryPath = (dir: string, sha256: string) => join(dir, `${sha256}.v${CACHE_VERSION}.arrow`);

/**
 * `source` (a text candle file at `path`) read through the cache: from the cached columns when the file's
 * bytes were read before, else parsed and, when the run read every candle, cached. Series above the shared
 * memory cap are streamed and not cached, so memory stays flat for files of any length.
 */
export function cachedCandleSource(
  path: string,
  source: CandleSource,
  dir: string | undefined = candleCacheDir(),
  limitBytes = DEFAULT_SHARED_LIMIT_BYTES,
): CandleSource {
  if (dir === undefined) return source;
  return {
    meta: source.meta,
    async *batches(): AsyncGenerator<CandleBatch> {
      const entry = cacheEntryPath(dir, await rememberedSha256(path, dir));
      if (existsSync(entry)) {
        // Streamed a record batch at a time: a pass holds a few MB of the entry, never the whole file.
        yield* streamArrowEntry(entry, source.meta).batches();
        return;
      }
      const limit = Math.floor(limitBytes / SHARED_BYTES_PER_CANDLE);
      let parts: CandleBatch[] | undefined = [];
      let length = 0;
      for await (const b of source.batches()) {
        if (parts !== undefined) {
          length += b.length;
          if (length > limit) parts = undefined;
          else {
            // The source reuses its batches: keep copies.
            parts.push({
              length: b.length,
              openTime: b.openTime.slice(0, b.length),
              open: b.open.slice(0, b.length),
              high: b.high.slice(0, b.length),
              low: b.low.slice(0, b.length),
              close: b.close.slice(0, b.length),
              volume: b.volume.slice(0, b.length),
              turnover: b.turnover.slice(0, b.length),
            });
          }
        }
        yield b;
      }
      if (parts !== undefined) writeCacheEntry(dir, entry, source.meta, parts, length);
    },
  };
}

/**
 * The cache entry of a file another tool wrote (foreign-text.ts). Its metadata comes from its name and the
 * instrument given, not from its bytes, so those are part of the key: the same bytes under another name, or
 * read with other rules, are another entry, and a hit always carries the metadata a parse would give.
 */
export function foreignEntryPath(
  dir: string,
  contentSha256: string,
  name: string,
  instrument: unknown,
): string {
  const key = createHash('sha256')
    .update(`${contentSha256}\0${name}\0${JSON.stringify(instrument ?? null)}`)
    .digest('hex');
  return cacheEntryPath(dir, key);
}

/**
 * Writes the validated candles of a whole read (`parts`, `length` candles in all) as the entry. A cache that
 * cannot be written (read-only home, full disk) costs speed, never the run.
 */
export function writeCacheEntry(
  dir: string,
  entry: string,
  meta: CandleFileMeta,
  parts: readonly CandleBatch[],
  length: number,
): void {
  const cols = {
    openTime: new Float64Array(length),
    open: new Float64Array(length),
    high: new Float64Array(length),
    low: new Float64Array(length),
    close: new Float64Array(length),
    volume: new Float64Array(length),
    turnover: new Float64Array(length),
  };
  let at = 0;
  for (const p of parts) {
    for (const c of Object.keys(cols) as (keyof typeof cols)[]) cols[c].set(p[c].subarray(0, p.length), at);
    at += p.length;
  }
  try {
    prepareOutput(dir, { what: 'TRADEBOT_CACHE_DIR', kind: 'folder' });
    writeArrowFile(entry, meta, cols);
  } catch {
    // Not cached: the next read parses the text again.
  }
}
