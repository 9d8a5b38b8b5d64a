// A clock that follows a venue's time, for a tradebot simulator running accelerated in another process (or a
// paper run on a venue's data): it runs `speed` times faster than real time from an anchor (the venue's time at
// a wall-clock instant), and is re-estimated from every answer the venue sends (its requestTime, stamped while
// the request was in flight): the answer with the least round trip is the best anchor, a better one replaces
// it, and one that says the clock is off by more than both uncertainties re-anchors it at once (a jump: the
// venue's clock stood still, stepped, or changed speed). Only a jump runs the clock backwards; a refinement holds it.
import { liveClock, type Clock } from './clock.js';

/** One answer's timing: the venue's requestTime, and the wall-clock ms its request was sent and answered at. */
export interface VenueTimeSample {
  readonly requestTime: number;
  readonly sentRealMs: number;
  readonly receivedRealMs: number;
}

/** The clock was found off and re-anchored: by `jumpMs` (venue ms; negative: it was ahead of the venue). */
export interface VenueClockJump {
  readonly jumpMs: number;
  /** How far the new anchor may itself be off (half the answer's round trip, in venue ms). */
  readonly uncertaintyMs: number;
}

/** A run of jumps ended by an answer that agrees with the clock: it is synced again. */
export interface VenueClockResync {
  /** The jumps of the run, summed (venue ms). */
  readonly jumpMs: number;
  readonly jumps: number;
  readonly uncertaintyMs: number;
}

export interface VenueClockOptions {
  /** The wall clock (default liveClock): tests drive their own. */
  readonly real?: Clock | undefined;
  /** The first jump of a run (the clock found off). */
  readonly onJump?: ((j: VenueClockJump) => void) | undefined;
  /** The run of jumps is over: an answer agreed with the re-anchored clock. */
  readonly onResync?: ((r: VenueClockResync) => void) | undefined;
}

/**
 * How fast the two clocks may drift apart, as a fraction of the time since the anchor: a wall clock's
 * quartz is good to about 1e-5; the anchor's uncertainty grows by this, so a fresh answer replaces an old one.
 */
const DRIFT = 1e-4;
/** How much longer than the uncertainties an answer must come after a jump to confirm the clock is synced. */
const CONFIRM = 4;

export class VenueClock implements Clock {
  private readonly real: Clock;
  /** The venue's time at `realBase`, and how far off that may be (venue ms). */
  private venueBase: number;
  private realBase: number;
  private uncertainty: number;
  /** The latest reading: a refinement backwards holds the clock here until it catches up. */
  private lastRead = -Infinity;
  /** The jumps of the run in progress (the clock found off and not yet confirmed), or undefined. */
  private run:
    | { jumpMs: number; jumps: number; lastReal: number; settled: Promise<void>; resolve: () => void }
    | undefined;

  constructor(
    /** The venue's time at `realBase`. */
    venueBase: number,
    readonly speed: number,
    realBase?: number,
    private readonly o: VenueClockOptions & { readonly uncertaintyMs?: number | undefined } = {},
  ) {
    this.real = o.real ?? liveClock;
    this.venueBase = venueBase;
    this.realBase = realBase ?? this.real.now();
    this.uncertainty = o.uncertaintyMs ?? 0;
  }

  /** A clock anchored on one answer's timing. */
  static fromSample(s: VenueTimeSample, speed: number, o: VenueClockOptions = {}): VenueClock {
    const a = anchorOf(s, speed);
    return new VenueClock(a.venue, speed, a.real, { ...o, uncertaintyMs: a.uncertainty });
  }

  now(): number {
    const t = this.estimate(this.real.now());
    // A refinement within the anchor's uncertainty holds the clock until it catches up.
    if (t < this.lastRead) return this.lastRead;
    this.lastRead = t;
    return t;
  }

  /**
   * Undefined while the clock is believed right; after a jump, until an answer agrees with it, a promise
   * resolved then: a signal's age is not judged against a clock known to be off.
   */
  settled(): Promise<void> | undefined {
    return this.run?.settled;
  }

  /** How far the clock may be off now (venue ms): its anchor's uncertainty and the drift since. */
  uncertaintyMs(): number {
    return this.uncertaintyAt(this.real.now());
  }

  /** Learns from one answer of the venue (RestClient's onAnswerTime). */
  observe(s: VenueTimeSample): void {
    const a = anchorOf(s, this.speed);
    if (!Number.isFinite(a.venue) || !(a.uncertainty >= 0)) return;
    const off = a.venue - this.estimate(a.real);
    const allowed = a.uncertainty + this.uncertaintyAt(a.real);
    if (Math.abs(off) > allowed) {
      this.anchor(a);
      // A jump is taken as it is, backwards too: the venue's time is the truth, and nothing is judged on a held clock.
      this.lastRead = -Infinity;
      if (this.run === undefined) {
        let resolve: () => void = () => undefined;
        const settled = new Promise<void>((r) => (resolve = r));
        this.run = { jumpMs: 0, jumps: 0, lastReal: a.real, settled, resolve };
        this.o.onJump?.({ jumpMs: Math.round(off), uncertaintyMs: Math.round(a.uncertainty) });
      }
      this.run.jumpMs += off;
      this.run.jumps++;
      this.run.lastReal = a.real;
      return;
    }
    const anchorUncertainty = this.uncertaintyAt(a.real);
    if (a.uncertainty < anchorUncertainty) this.anchor(a);
    const run = this.run;
    // Only an answer that could have seen the venue's clock stand still since the last jump confirms it: one
    // right after it, or a slow one (a wide uncertainty), agrees with anything.
    if (run !== undefined && (a.real - run.lastReal) * this.speed > CONFIRM * allowed) {
      this.run = undefined;
      run.resolve();
      this.o.onResync?.({
        jumpMs: Math.round(run.jumpMs),
        jumps: run.jumps,
        uncertaintyMs: Math.round(this.uncertaintyAt(a.real)),
      });
    }
  }

  private estimate(real: number): number {
    return Math.round(this.venueBase + (real - this.realBase) * this.speed);
  }

  private uncertaintyAt(real: number): number {
    return this.uncertainty + Math.abs(real - this.realBase) * this.speed * DRIFT;
  }

  private anchor(a: { venue: number; real: number; uncertainty: number }): void {
    this.venueBase = a.venue;
    this.realBase = a.real;
    this.uncertainty = a.uncertainty;
  }
}

/**
 * What one answer says of the venue's clock: it read `requestTime` at some wall-clock instant between the send
 * and the last byte of the answer (each read to the millisecond), so at their middle, give or take half.
 */
function anchorOf(s: VenueTimeSample, speed: number): { venue: number; real: number; uncertainty: number } {
  const from = s.sentRealMs;
  const to = s.receivedRealMs + 1;
  return { venue: s.requestTime, real: (from + to) / 2, uncertainty: ((to - from) / 2) * speed + 1 };
}
