// A clock that follows a venue's time, for a tradebot simulator running accelerated in another process:
// it starts at the venue's time as last read (an envelope's requestTime, see followVenueClock in
// execution/runtime.ts) and runs `speed` times faster than real time.
import { liveClock, type Clock } from './clock.js';

export class VenueClock implements Clock {
  constructor(
    /** The venue's time at `realBase`. */
    private readonly venueBase: number,
    readonly speed: number,
    private readonly realBase: number = liveClock.now(),
  ) {}

  now(): number {
    return Math.round(this.venueBase + (liveClock.now() - this.realBase) * this.speed);
  }
}
