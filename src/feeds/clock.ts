// The Clock port (DESIGN principle 5): nothing outside LiveClock reads Date.now(), so backtests and
// tests drive time themselves.

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
  /**
   * A clock that follows another's (VenueClock): undefined while it is believed right, else a promise resolved
   * once it is again. Decisions that judge time (a signal's age) wait for it.
   */
  settled?(): Promise<void> | undefined;
}

/** Wall-clock time. */
export class LiveClock implements Clock {
  now(): number {
    return Date.now();
  }
}

/** A clock that moves only when told: backtests and tests. */
export class VirtualClock implements Clock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    if (t < this.t) throw new Error(`VirtualClock cannot go back in time (${t} < ${this.t})`);
    this.t = t;
  }
  advance(ms: number): void {
    this.set(this.t + ms);
  }
}

/** The process-wide live clock. */
export const liveClock: Clock = new LiveClock();
