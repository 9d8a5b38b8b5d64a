// The journal's group commits on /metrics: how many commits preceded orders' sends and how many orders they
// held, read from the journal (a real SQLite file) at each scrape.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DaemonMetrics } from '../../../src/daemon/metrics.js';
import { openStore } from '../../../src/store/index.js';

describe('tradebot_journal_group_commits', () => {
  it('counts one commit holding the three writes asked for in one turn by three bots', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tradebot-gcm-'));
    const store = openStore(join(dir, 'j.db'));
    try {
      const m = new DaemonMetrics();
      m.seedFromJournal(store);
      for (let i = 0; i < 3; i++) store.joinGroupCommit();
      await Promise.all(['a', 'b', 'c'].map((k) => store.groupCommit(() => store.meta.set(`t:${k}`, k))));
      const text = await m.registry.metrics();
      const value = (count: string) =>
        new RegExp(`^tradebot_journal_group_commits\\{count="${count}"\\} (\\d+)$`, 'm').exec(text)?.[1];
      expect([value('commits'), value('writes'), value('largest')]).toEqual(['1', '3', '3']);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
