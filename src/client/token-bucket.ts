// Token buckets that keep a client inside the venue's rate limits (spec section 8) without 429s.
// Time comes from an injected clock and waiting from an injected sleep, so tests never sleep.
import type { Clock } from '../feeds/clock.js';

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bucket of `capacity` tokens refilled at `ratePerSecond`. `take()` resolves when a token is
 * available; callers are served first come, first served.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly ratePerSecond: number,
    private readonly clock: Clock,
    private readonly sleep: Sleep,
    readonly capacity: number = ratePerSecond,
  ) {
    if (!(ratePerSecond > 0)) throw new RangeError(`ratePerSecond must be positive, got ${ratePerSecond}`);
    this.tokens = capacity;
    this.last = clock.now();
  }

  private refill(): void {
    const now = this.clock.now();
    if (now > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.ratePerSecond) / 1000);
      this.last = now;
    }
  }

  /** Milliseconds until a token is free (0 when one is). */
  waitTime(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond);
  }

  /** Waits for a token and takes it. */
  take(): Promise<void> {
    const turn = this.queue.then(async () => {
      for (let wait = this.waitTime(); wait > 0; wait = this.waitTime()) await this.sleep(wait);
      this.tokens -= 1;
    });
    this.queue = turn;
    return turn;
  }
}
