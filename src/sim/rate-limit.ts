// Sliding-window rate limiting on the simulator clock (spec section 8): one window of one second per
// endpoint and caller (IP for public endpoints, UID for account endpoints).

/** A sliding one-second window per key. */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly windowMs = 1000) {}

  /** Records a hit if allowed; otherwise answers how long until one is (ms of simulator time). */
  take(key: string, perWindow: number, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    let list = this.hits.get(key);
    if (!list) {
      list = [];
      this.hits.set(key, list);
    }
    const since = now - this.windowMs;
    let drop = 0;
    while (drop < list.length && (list[drop] as number) <= since) drop++;
    if (drop > 0) list.splice(0, drop);
    if (list.length >= perWindow) {
      return { ok: false, retryAfterMs: Math.max(1, (list[0] as number) + this.windowMs - now) };
    }
    list.push(now);
    return { ok: true };
  }

  reset(): void {
    this.hits.clear();
  }
}
