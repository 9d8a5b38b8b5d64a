// One market order in flight per account and symbol (FillRouter.marketTurn): the turn is taken at once when
// free, the sends that wait get it first come first served, another symbol never waits, and a release is
// counted once.
import { describe, expect, it } from 'vitest';
import { FillRouter } from '../../../src/execution/fill-router.js';
import type { Venue } from '../../../src/execution/venue.js';

// The turn never reads fills or places orders: a venue that refuses both shows it.
const venue: Venue = {
  placeOrder: () => Promise.reject(new Error('not used')),
  fills: () => Promise.reject(new Error('not used')),
};

describe('the market turn of a symbol', () => {
  it('is taken at once when free, then handed on first come first served; another symbol is free', async () => {
    const router = new FillRouter({ venue, now: () => 0 });
    const first = router.marketTurn('AAPLUSDT');
    expect(typeof first).toBe('function');
    const order: string[] = [];
    const second = router.marketTurn('AAPLUSDT');
    const third = router.marketTurn('AAPLUSDT');
    expect(second).toBeInstanceOf(Promise);
    void (second as Promise<() => void>).then((release) => {
      order.push('second');
      release();
      // Released twice: the turn goes on once, not to two waiting sends.
      release();
    });
    let releaseThird: (() => void) | undefined;
    void (third as Promise<() => void>).then((release) => {
      order.push('third');
      releaseThird = release;
    });
    expect(typeof router.marketTurn('TSLAUSDT')).toBe('function');
    expect(router.waitingForTurn).toBe(2);
    await Promise.resolve();
    expect(order).toEqual([]);
    (first as () => void)();
    (first as () => void)();
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['second', 'third']);
    expect(router.waitingForTurn).toBe(0);
    // The third holds it (the double releases before did not free it): a fourth waits.
    const fourth = router.marketTurn('AAPLUSDT');
    expect(fourth).toBeInstanceOf(Promise);
    releaseThird?.();
    const release = await (fourth as Promise<() => void>);
    release();
    // All released: taken at once again.
    expect(typeof router.marketTurn('AAPLUSDT')).toBe('function');
  });
});
