// Bots start side by side unless they share a symbol: the bots of a symbol start one after another, in the
// file's order (their reconciliations read the same account fills), and a failure starts nothing more.
import { describe, expect, it } from 'vitest';
import { startInChains, symbolChains } from '../../../src/daemon/start-chains.js';

describe('symbolChains', () => {
  it('links bots that share a symbol, directly or through another bot, in the file order', () => {
    const bots = [
      { symbols: ['AAPLUSDT'] },
      { symbols: ['TSLAUSDT'] },
      { symbols: ['NVDAUSDT', 'AAPLUSDT'] },
      { symbols: ['MSFTUSDT'] },
      { symbols: ['NVDAUSDT'] },
      { symbols: ['TSLAUSDT', 'MSFTUSDT'] },
      { symbols: ['AMZNUSDT'] },
    ];
    expect(symbolChains(bots)).toEqual([[0, 2, 4], [1, 3, 5], [6]]);
    expect(symbolChains([])).toEqual([]);
  });
});

describe('startInChains', () => {
  it('starts the bots of a chain in turn and chains side by side, at most `concurrency` at once', async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const gates = new Map<number, () => void>();
    const done = startInChains([[0, 2], [1], [3], [4]], 2, (i) => {
      running++;
      most = Math.max(most, running);
      log.push(`start ${i}`);
      return new Promise<void>((resolve) =>
        gates.set(i, () => {
          running--;
          log.push(`end ${i}`);
          resolve();
        }),
      );
    });
    const release = async (i: number) => {
      await Promise.resolve();
      while (!gates.has(i)) await new Promise((r) => setImmediate(r));
      gates.get(i)?.();
    };
    // Two chains under way: 0 and 1; 2 waits for 0 (same chain), 3 for a free worker.
    await release(1);
    await release(0);
    await release(3);
    await release(2);
    await release(4);
    await done;
    expect(most).toBe(2);
    expect(log.indexOf('start 2')).toBeGreaterThan(log.indexOf('end 0'));
    expect(log.slice(0, 2).sort()).toEqual(['start 0', 'start 1']);
    expect(log.filter((l) => l.startsWith('start'))).toHaveLength(5);
  });

  it('throws the first failure after the starts under way end, and starts nothing after it', async () => {
    const started: number[] = [];
    const run = startInChains([[0, 1], [2], [3]], 2, async (i) => {
      started.push(i);
      await new Promise((r) => setImmediate(r));
      if (i === 0) throw new Error('bots[0].params: bad');
    });
    await expect(run).rejects.toThrow('bots[0].params: bad');
    expect(started).not.toContain(1);
    expect(started).not.toContain(3);
  });
});
