// The group commit's writers: with several bots sharing the journal, an order's writes wait for the turn's
// commit; once the others stopped (left), a lone bot's order commits at once again, on a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/store/index.js';

let dir = '';
let store: Store | undefined;
afterEach(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('group commit writers', () => {
  it('waits for the turn while two bots share the journal, and commits at once after one left', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tradebot-group-unit-'));
    store = openStore(join(dir, 'j.db'));
    const s = store;
    const leaveA = s.joinGroupCommit();
    const leaveB = s.joinGroupCommit();
    const waited = s.groupCommit(() => s.meta.set('a', '1'));
    expect(waited).toBeInstanceOf(Promise);
    expect(s.meta.get('a')).toBeUndefined(); // not written before the turn's commit
    await waited;
    expect(s.meta.get('a')).toBe('1');
    leaveB();
    leaveB(); // a second leave of the same bot counts once
    const now = s.groupCommit(() => {
      s.meta.set('b', '2');
      return 'done';
    });
    expect(now).toBe('done');
    expect(s.meta.get('b')).toBe('2');
    expect(s.groupCommits).toMatchObject({ commits: 2, writes: 2 });
    leaveA();
  });
});
