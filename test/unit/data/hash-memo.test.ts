// The remembered hash of a dataset (src/data/candle-cache.ts): a warm read of a file that did not change
// skips hashing it, in this process and the next; any change to the file, or a hash taken while it was still
// being written, is never trusted.
import { appendFileSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileSha256, hashRecall, type HashMemo } from '../../../src/data/candle-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-hash-memo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cache = join(dir, 'cache');
/**
 * A later moment: the file's last change is older than the racy window (2 s). Read from the file system's clock
 * (a probe file's mtime), the one the files' mtimes come from: the process clock may differ (faketime).
 */
const later = () => {
  const probe = join(dir, '.now');
  writeFileSync(probe, '');
  return statSync(probe).mtimeMs + 3000;
};

describe('the remembered hash of a file', () => {
  it('is recalled by a new process while the file stays the same, and forgotten the moment it changes', async () => {
    const f = join(dir, 'a.csv');
    writeFileSync(f, 'one\n');
    const first = hashRecall(f, cache, later(), new Map());
    expect(first.sha256).toBeUndefined();
    first.remember(await fileSha256(f));
    // A new process (its own empty memory) recalls it from the cache folder.
    expect(hashRecall(f, cache, later(), new Map<string, HashMemo>()).sha256).toBe(await fileSha256(f));
    // Appended: size and times moved, nothing is recalled, and the new hash is the new bytes'.
    appendFileSync(f, 'two\n');
    const again = hashRecall(f, cache, later(), new Map());
    expect(again.sha256).toBeUndefined();
    again.remember(await fileSha256(f));
    expect(hashRecall(f, cache, later(), new Map()).sha256).toBe(await fileSha256(f));
    // Replaced by another file of the same size under the same name (a new inode): not recalled.
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'one\ntwx\n');
    renameSync(other, f);
    expect(hashRecall(f, cache, later(), new Map()).sha256).toBeUndefined();
  });

  it('is not remembered when taken within 2 s of the last write (a second write in the same tick would not show)', async () => {
    const f = join(dir, 'fresh.csv');
    writeFileSync(f, 'x\n');
    // Taken at the moment of the write, by the file system's clock (the one its mtime comes from).
    const now = hashRecall(f, cache, statSync(f).mtimeMs, new Map());
    now.remember(await fileSha256(f));
    expect(hashRecall(f, cache, later(), new Map()).sha256).toBeUndefined();
  });

  it('without a cache folder is remembered in this process only', async () => {
    const f = join(dir, 'b.csv');
    writeFileSync(f, 'b\n');
    const memory = new Map<string, HashMemo>();
    hashRecall(f, undefined, later(), memory).remember(await fileSha256(f));
    expect(hashRecall(f, undefined, later(), memory).sha256).toBe(await fileSha256(f));
    expect(hashRecall(f, undefined, later(), new Map()).sha256).toBeUndefined();
  });
});
