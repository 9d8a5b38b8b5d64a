// The columnar cache of text candle files: the first read of a CSV or JSONL file (validated row by row) also
// writes its columns as an uncompressed Arrow IPC file named after the SHA-256 of the text file's bytes; later
// reads of a file with the same bytes read those columns instead of parsing text. The name is the content, so
// an entry is never stale: an edited file has another hash and is parsed (and cached) again. A CSV or JSON file
// another tool wrote is kept the same way (foreignEntryPath: its name and the instrument given are in the key).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { openColumnarFile, writeArrowFile } from './columnar.js';
import type { CandleBatch, CandleFileMeta, CandleSource } from './format.js';
import { DEFAULT_SHARED_LIMIT_BYTES, SHARED_BYTES_PER_CANDLE } from './shared-candles.js';

/** Bumped when the cached layout changes, so older entries are simply not found. */
const CACHE_VERSION = 1;

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
      const entry = cacheEntryPath(dir, await fileSha256(path));
      if (existsSync(entry)) {
        yield* openColumnarFile(entry, { checked: true }).batches();
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
export function foreignEntryPath(dir: string, bytes: Buffer, name: string, instrument: unknown): string {
  const content = createHash('sha256').update(bytes).digest('hex');
  const key = createHash('sha256')
    .update(`${content}\0${name}\0${JSON.stringify(instrument ?? null)}`)
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
    mkdirSync(dir, { recursive: true });
    writeArrowFile(entry, meta, cols);
  } catch {
    // Not cached: the next read parses the text again.
  }
}
