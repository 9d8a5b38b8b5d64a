import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/store/index.js';

describe('control journal', () => {
  let store: Store | undefined;
  afterEach(() => store?.close());

  it('keeps who did what to which bot and why, newest last, per bot', () => {
    store = openStore(':memory:');
    store.control.record({ bot: 'a', action: 'pause', who: 'token:1a2b3c4d', reason: 'news at 14:00' }, 1000);
    store.control.record(
      { bot: 'a', action: 'flatten', symbol: 'AAPLUSDT', who: 'token:1a2b3c4d', reason: 'cut risk' },
      2000,
    );
    store.control.record({ bot: 'b', action: 'halt', who: 'local', reason: 'drill' }, 3000);
    expect(store.control.list('a')).toEqual([
      { seq: 1, bot: 'a', action: 'pause', who: 'token:1a2b3c4d', reason: 'news at 14:00', ts: 1000 },
      {
        seq: 2,
        bot: 'a',
        action: 'flatten',
        symbol: 'AAPLUSDT',
        who: 'token:1a2b3c4d',
        reason: 'cut risk',
        ts: 2000,
      },
    ]);
    expect(store.control.list('a', 1).map((c) => c.action)).toEqual(['flatten']);
    expect(() =>
      store?.control.record({ bot: 'a', action: 'sell-all' as 'pause', who: 'x', reason: 'y' }, 1),
    ).toThrow(/control action must be one of/);
  });
});
