// A warning that may come dozens of times a second (a retry, a rate-limit slow-down) is said at most once per
// window of real time for each subject; the ones between are counted by kind into the next.
import type { Clock } from '../feeds/clock.js';

/** What `pass` answers when the warning is to be said: the suppressed ones since the last, by kind. */
export interface Suppressed {
  readonly total: number;
  /** "429 x3, NETWORK x2" (empty when none). */
  readonly kinds: string;
}

export class WarningThrottle {
  private readonly warnedAt = new Map<string, number>();
  private readonly quiet = new Map<string, Map<string, number>>();
  /** The window on `clock`: `everyMs` of real time, `timeScale` times longer on an accelerated venue's clock. */
  private readonly windowMs: number;

  constructor(
    private readonly clock: Clock,
    everyMs: number,
    timeScale = 1,
  ) {
    this.windowMs = everyMs * timeScale;
  }

  /** The warning of `subject` (of this `kind`) now: say it (with what was suppressed), or undefined (counted). */
  pass(subject: string, kind: string): Suppressed | undefined {
    const now = this.clock.now();
    const quiet = this.quiet.get(subject) ?? new Map<string, number>();
    if (now - (this.warnedAt.get(subject) ?? -Infinity) < this.windowMs) {
      quiet.set(kind, (quiet.get(kind) ?? 0) + 1);
      this.quiet.set(subject, quiet);
      return undefined;
    }
    this.warnedAt.set(subject, now);
    this.quiet.delete(subject);
    let total = 0;
    for (const n of quiet.values()) total += n;
    return { total, kinds: [...quiet].map(([k, n]) => `${k} x${n}`).join(', ') };
  }
}
