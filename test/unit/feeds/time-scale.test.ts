// The scaled scheduler that runs a daemon on an accelerated venue's time: a recurring action (a feed's stale
// watchdog reschedules itself for as long as the daemon runs) keeps only its next step, not every step it
// took (the endurance run's memory grew with each one), and unsubscribing still cancels the step to come.
import { describe, expect, it } from 'vitest';
import type { SchedulerAction } from 'rxjs';
import { ScaledScheduler } from '../../../src/feeds/time-scale.js';
import { waitFor } from '../../helpers/wait-for.js';

/** What a subscription holds on to (RxJS keeps its children as finalizers). */
const held = (s: object): number => (s as { _finalizers?: unknown[] | null })._finalizers?.length ?? 0;

describe('ScaledScheduler', () => {
  it('keeps only the next step of a recurring action, and cancels it on unsubscribe', async () => {
    const scheduler = new ScaledScheduler({ now: () => Date.now() }, 1e6);
    let ticks = 0;
    const sub = scheduler.schedule(function (this: SchedulerAction<undefined>) {
      ticks++;
      this.schedule(undefined, 1000);
    }, 0);
    await waitFor(() => ticks >= 300, { timeoutMs: 30_000, what: '300 steps' });
    expect(held(sub)).toBe(1);
    sub.unsubscribe();
    expect(sub.closed).toBe(true);
    expect(held(sub)).toBe(0);
  });
});
