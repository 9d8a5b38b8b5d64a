// A clock that follows a venue's time, for a tradebot simulator running accelerated in another process:
// it reads the venue time from an envelope's requestTime and runs `speed` times faster than real time.
import type { Clock } from './clock.js';

export class VenueClock implements Clock {
  private venueBase = 0;
  private realBase = 0;

  constructor(
    private readonly baseUrl: string,
    readonly speed: number,
  ) {}

  /** Reads the venue time (a public endpoint's requestTime). */
  async sync(): Promise<void> {
    const before = Date.now();
    const res = await fetch(new URL('/api/v3/market/rpi-symbols', this.baseUrl));
    const body = (await res.json()) as { requestTime?: unknown };
    const t = Number(body.requestTime);
    if (!Number.isFinite(t))
      throw new Error(`the venue at ${this.baseUrl} answered no requestTime; is it a v3 venue?`);
    this.realBase = (before + Date.now()) / 2;
    this.venueBase = t;
  }

  now(): number {
    return Math.round(this.venueBase + (Date.now() - this.realBase) * this.speed);
  }
}
