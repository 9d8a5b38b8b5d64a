// Silence is an alarm: a live bot's feeds (candles, tickers, the fill sync) each have an age, the time since
// they last brought something, on the pipeline's clock (the venue's). A feed older than its limit makes the bot
// DEGRADED, a state every surface shows (status, /readyz, the dashboard, metrics, notifications), with a
// sentence per starving feed; it is OK again once every feed is fresh.
import { formatDuration } from '../market/duration.js';

export type FeedName = 'candles' | 'tickers' | 'fills';
export const FEEDS: readonly FeedName[] = ['candles', 'tickers', 'fills'];

/** How old each feed may get (ms, clock time) before the bot is DEGRADED. */
export type FeedLimits = Readonly<Record<FeedName, number>>;

/** A bot's feeds as every surface shows them. */
export interface FeedHealth {
  readonly state: 'OK' | 'DEGRADED';
  /** Each feed's age (ms, clock time): since its last arrival, or since it was expected when none came yet. */
  readonly ages: Readonly<Partial<Record<FeedName, number>>>;
  readonly limits: FeedLimits;
  /** One sentence per starving feed ("no candle for 4m 10s (limit 2m) ..."), empty when OK. */
  readonly problems: readonly string[];
  /** DEGRADED only because the feeds, fresh now, have not been fresh for long enough yet. */
  readonly held?: true | undefined;
}

/** A bot turned DEGRADED (a feed starving) or OK again: the daemon says it once (see daemon/feed-alarm.ts). */
export interface FeedHealthEvent {
  readonly type: 'feed-health';
  readonly bot: string;
  readonly ts: number;
  readonly state: FeedHealth['state'];
  /** The sentences of the starving feeds (DEGRADED); empty when OK. */
  readonly problems: readonly string[];
  /** When OK again: how long the bot was DEGRADED (clock time). */
  readonly degradedForMs?: number | undefined;
}

/**
 * The limits a bot's settings imply:
 * - candles: a candle of `intervalMs` closes every interval and is read shortly after; two intervals without
 *   one (at least one interval and 30 s) is a feed that stopped, not a slow poll;
 * - tickers: `maxDataAgeMs`, the age past which the gate refuses to trade on a price (STALE_DATA);
 * - fills: ten fill polls (`fillsPollMs`, clock time), at least a minute.
 */
export function feedLimits(o: {
  readonly intervalMs: number;
  readonly maxDataAgeMs: number;
  readonly fillsPollMs: number;
}): FeedLimits {
  return {
    candles: Math.max(2 * o.intervalMs, o.intervalMs + 30_000),
    tickers: o.maxDataAgeMs,
    fills: Math.max(10 * o.fillsPollMs, 60_000),
  };
}

const WHAT: Record<FeedName, string> = {
  candles: 'no new candle',
  tickers: 'no fresh price',
  fills: 'no fill sync',
};

const WHY: Record<FeedName, string> = {
  candles: 'the strategy decides on nothing new',
  tickers: 'the gate refuses orders on stale prices (STALE_DATA)',
  fills: 'fills and positions may be behind the venue',
};

/** Each feed's last arrival; candles only count while a session lets the bot trade (none come otherwise). */
export class FeedWatch {
  private readonly last = new Map<FeedName, number>();
  /** Since when candles are expected (the start, or the session's opening); undefined while none are. */
  private candlesSince: number | undefined;
  /** The last time a feed starved, what was said, and how long the feeds must then stay fresh. */
  private lastBad: { at: number; problems: readonly string[]; recoverMs: number } | undefined;

  constructor(
    readonly limits: FeedLimits,
    /** When the bot started: a feed that never brought anything is as old as the bot. */
    private start: number,
  ) {
    this.candlesSince = start;
  }

  /**
   * Feeds are judged from `now` on: the daemon's start completed. Until then the start's own work (the other
   * bots' reconciliation and warm-up backfill, the dashboard's start) holds the answers of the polls up, and
   * at speed 60 a second of it is a minute of the venue's time: the daemon's own start is no silence of the
   * venue (it made 3 of 8 starts say DEGRADED, then recovered, a second later).
   */
  watchFrom(now: number): void {
    this.start = Math.max(this.start, now);
    if (this.candlesSince !== undefined) this.candlesSince = Math.max(this.candlesSince, now);
    this.lastBad = undefined;
  }

  /** A feed brought something at `at` (a candle's close time, a poll's time, a fill sync's end). */
  saw(feed: FeedName, at: number): void {
    if (at > (this.last.get(feed) ?? -Infinity)) this.last.set(feed, at);
  }

  /** Whether candles are expected from `now` on: a closed session (weekend, holiday) brings none. */
  expectCandles(expected: boolean, now: number): void {
    if (!expected) this.candlesSince = undefined;
    else if (this.candlesSince === undefined) this.candlesSince = now;
  }

  /**
   * The feeds now. A bot stays DEGRADED until its starving feeds have been fresh for as long as their limit: a
   * feed that arrives late every time (a slow venue) is fresh for an instant after each answer, and must not
   * make every surface flap between DEGRADED and OK.
   */
  health(now: number): FeedHealth {
    const h = this.rawHealth(now);
    if (h.problems.length > 0) {
      const recoverMs = Math.max(...h.starving.map((f) => this.limits[f]));
      this.lastBad = { at: now, problems: h.problems, recoverMs };
      return { state: 'DEGRADED', ages: h.ages, limits: this.limits, problems: h.problems };
    }
    const bad = this.lastBad;
    // The clock stepped back past the last starving moment (re-synced to a venue whose clock stood still): the
    // feeds are fresh from now on its time, not from a moment it never reached.
    if (bad !== undefined && now < bad.at) bad.at = now;
    if (bad !== undefined && now - bad.at < bad.recoverMs)
      return {
        state: 'DEGRADED',
        ages: h.ages,
        limits: this.limits,
        held: true,
        problems: [
          ...bad.problems,
          `fresh again for ${formatDuration(now - bad.at)}: OK once fresh for ${formatDuration(bad.recoverMs)}`,
        ],
      };
    return { state: 'OK', ages: h.ages, limits: this.limits, problems: [] };
  }

  /**
   * The last starving reading was not the venue's silence (the daemon's own stall, see daemon/feed-alarm.ts):
   * fresh feeds are OK at once, not held for their limit.
   */
  forgiveStall(): void {
    this.lastBad = undefined;
  }

  private rawHealth(now: number): {
    ages: Partial<Record<FeedName, number>>;
    problems: string[];
    starving: FeedName[];
  } {
    const ages: Partial<Record<FeedName, number>> = {};
    const problems: string[] = [];
    const starving: FeedName[] = [];
    for (const feed of FEEDS) {
      const since = feed === 'candles' ? this.candlesSince : this.start;
      const last = this.last.get(feed);
      // Candles not expected (a closed session): their age is shown, never an alarm.
      const from = since === undefined ? last : Math.max(last ?? -Infinity, since);
      if (from === undefined) continue;
      const age = Math.max(0, now - from);
      ages[feed] = age;
      if (since !== undefined && age > this.limits[feed]) {
        starving.push(feed);
        problems.push(
          `${WHAT[feed]} for ${formatDuration(age)} (limit ${formatDuration(this.limits[feed])}): ${WHY[feed]}`,
        );
      }
    }
    return { ages, problems, starving };
  }
}
