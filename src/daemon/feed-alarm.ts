// Silence raises an alarm: the daemon reads each bot's feed health (LiveBot.feedHealth) on a short timer, and
// when a bot turns DEGRADED (a feed older than its limit) or recovers, it says so once: a log line, the metrics,
// and a daemon event the notifications and the dashboard hear. /readyz and the status views read the same
// health from the bot's status, so every surface agrees.
import type { LiveBot } from '../execution/live-bot.js';
import { FEEDS, type FeedHealthEvent } from '../execution/feed-watch.js';
import type { Clock } from '../feeds/clock.js';
import { formatDuration } from '../market/duration.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

/** How often (wall ms) the health of every bot is read: well within any limit, cheap for 200 bots. */
export const FEED_CHECK_MS = 500;

export function watchFeedHealth(o: {
  readonly bots: () => readonly {
    readonly name: string;
    readonly bot: Pick<LiveBot, 'feedHealth' | 'forgiveFeedStall' | 'watchFeedsFromNow'> | undefined;
  }[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
  readonly emit: (e: FeedHealthEvent) => void;
  readonly everyMs?: number | undefined;
}): { stop(): void; check(): void } {
  /** Since when each DEGRADED bot is (clock time). */
  const degradedSince = new Map<string, number>();
  /** Bots read DEGRADED once, not yet said: a second reading, a check later, confirms it. */
  const suspect = new Set<string>();
  // The feeds are judged from now on (FeedWatch.watchFrom): the start's own work is no silence of the venue.
  for (const { bot } of o.bots()) bot?.watchFeedsFromNow();
  const check = (): void => {
    const now = o.clock.now();
    for (const { name, bot } of o.bots()) {
      if (bot === undefined) continue;
      const h = bot.feedHealth();
      for (const feed of FEEDS) {
        const age = h.ages[feed];
        if (age !== undefined) o.metrics.feedAge.set({ bot: name, feed }, age / 1000);
      }
      const since = degradedSince.get(name);
      // A timer that fires after the event loop stood still (a CPU-bound step, a loaded machine) runs before
      // the answers that arrived meanwhile are read: its first DEGRADED reading may be the daemon's own stall.
      // The next check, after the loop has read them, says whether the venue is silent.
      if (h.state === 'DEGRADED' && since === undefined && !suspect.has(name)) {
        suspect.add(name);
        continue;
      }
      if (suspect.delete(name) && h.held === true) {
        bot.forgiveFeedStall();
        continue;
      }
      o.metrics.degraded.set({ bot: name }, h.state === 'DEGRADED' ? 1 : 0);
      if (h.state === 'DEGRADED' && since === undefined) {
        degradedSince.set(name, now);
        o.logger.warn('bot degraded', { bot: name, what: `DEGRADED: ${h.problems.join('; ')}` });
        o.emit({ type: 'feed-health', bot: name, ts: now, state: 'DEGRADED', problems: h.problems });
      } else if (h.state === 'OK' && since !== undefined) {
        degradedSince.delete(name);
        // Clock time: a clock re-synced back to the venue's may read before `since`.
        const what = `feeds fresh again after ${formatDuration(Math.max(0, now - since))} DEGRADED`;
        o.logger.info('bot recovered', { bot: name, what });
        o.emit({
          type: 'feed-health',
          bot: name,
          ts: now,
          state: 'OK',
          problems: [],
          degradedForMs: Math.max(0, now - since),
        });
      }
    }
  };
  const timer = setInterval(check, o.everyMs ?? FEED_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), check };
}
