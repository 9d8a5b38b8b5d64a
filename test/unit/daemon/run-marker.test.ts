// The journal's clean-stop marker: a start reads how the previous run ended (none before, a clean stop, or a
// run that was killed or crashed and so never wrote its marker), and marks the journal as in use.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { markCleanStop, markRunStarted } from '../../../src/daemon/journal-path.js';
import { openStore } from '../../../src/store/index.js';

describe('the clean-stop marker', () => {
  it('says first, then unclean after a run that never stopped, then clean after a clean stop', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tradebot-marker-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'journal.db');
    const run = (stopCleanly: boolean) => {
      const store = openStore(file);
      const previous = markRunStarted(store, 1000);
      if (stopCleanly) markCleanStop(store, 2000);
      // A kill -9 closes nothing: the file is left as the run wrote it.
      store.close();
      return previous;
    };
    expect(run(false)).toBe('first');
    expect(run(true)).toBe('unclean');
    expect(run(true)).toBe('clean');
  });
});
