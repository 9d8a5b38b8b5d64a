// The simulator's clock: a base clock (real time, or an injected VirtualClock) run at `speed` from a
// start time, plus whatever the admin API has skipped forward. Never runs backwards.
import type { Clock } from '../feeds/clock.js';

/** Simulated time on top of a base clock. */
export class SimClock implements Clock {
  private anchorBase: number;
  private anchorSim: number;
  private last = -Infinity;

  constructor(
    private readonly base: Clock,
    start: number,
    private speedFactor = 1,
  ) {
    if (!(speedFactor > 0)) throw new Error(`speed must be greater than 0, got ${speedFactor}`);
    this.anchorBase = base.now();
    this.anchorSim = start;
  }

  now(): number {
    const t = Math.floor(this.anchorSim + (this.base.now() - this.anchorBase) * this.speedFactor);
    this.last = Math.max(this.last, t);
    return this.last;
  }

  get speed(): number {
    return this.speedFactor;
  }

  /** Skips simulated time forward. */
  advance(ms: number): number {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error(`advance needs a finite ms >= 0, got ${ms}`);
    this.anchorSim += ms;
    return this.now();
  }

  /** Changes the speed from now on (simulated ms per base ms). */
  setSpeed(speed: number): void {
    if (!(speed > 0) || !Number.isFinite(speed))
      throw new Error(`speed must be a finite number greater than 0, got ${speed}`);
    this.anchorSim = this.now();
    this.anchorBase = this.base.now();
    this.speedFactor = speed;
  }
}
