// A bot denied again and again is an alarm: N denials of one code within a window (venue time, the events' own
// times) make one burst, said once; the count of that code starts again after it. The window defaults to ten of
// the bot's candles: a bot denied on every signal of a 1m interval is a burst within five minutes (a fixed 60 s
// window let a 1m bot be denied on every signal for a venue hour without one).
import { formatDuration } from '../market/duration.js';

/** How many denials of one code within how long (ms, venue time) make a burst. */
export interface DenialBurstLimits {
  readonly count: number;
  readonly windowMs: number;
}

/** Denials of a bot per burst when neither the bot nor `notify.denialBurst` says. */
export const DEFAULT_BURST_COUNT = 5;
/** The default window, in candles of the bot's interval. */
export const DEFAULT_BURST_CANDLES = 10;

/** The limits of a bot: its own, else the deployment's (`notify.denialBurst`), else 5 within ten candles. */
export function denialBurstLimits(
  intervalMs: number,
  own?: { readonly count?: number | undefined; readonly windowMs?: number | undefined } | undefined,
  deployment?: DenialBurstLimits | undefined,
): DenialBurstLimits {
  return {
    count: own?.count ?? deployment?.count ?? DEFAULT_BURST_COUNT,
    windowMs: own?.windowMs ?? deployment?.windowMs ?? DEFAULT_BURST_CANDLES * intervalMs,
  };
}

/** A burst of denials of one code: the daemon logs it, counts it and notifies it. */
export interface DenialBurstEvent {
  readonly type: 'denial-burst';
  readonly bot: string;
  /** The venue time of the denial that completed the burst. */
  readonly ts: number;
  readonly code: string;
  readonly count: number;
  readonly windowMs: number;
}

/** A bot's denials by code, each code's recent times (venue ms) within the window. */
export class DenialBursts {
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly bot: string,
    readonly limits: DenialBurstLimits,
  ) {}

  /** A denial of `code` at `ts`: the burst it completes, if it does. */
  see(ts: number, code: string): DenialBurstEvent | undefined {
    const { count, windowMs } = this.limits;
    const times = (this.recent.get(code) ?? []).filter((t) => ts - t < windowMs);
    times.push(ts);
    if (times.length < count) {
      this.recent.set(code, times);
      return undefined;
    }
    this.recent.delete(code);
    return { type: 'denial-burst', bot: this.bot, ts, code, count: times.length, windowMs };
  }

  /** Codes with denials in their window (memory stays bounded by the codes). */
  get size(): number {
    return this.recent.size;
  }
}

/** The burst in one sentence, for the log and the notification. */
export function denialBurstText(e: DenialBurstEvent): string {
  return `${e.bot}: ${e.count} intents denied ${e.code} within ${formatDuration(e.windowMs)}; see the journal or the logs for each sentence`;
}
