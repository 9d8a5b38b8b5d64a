// The daemon's health: when it is ready (every bot running, none DEGRADED by a starving feed, not all of them
// halted, the venue answering a poll within three poll periods: venueReachableMs), served with /healthz and /metrics when the
// deployment enables them.
import type { Deployment } from '../config/index.js';
import { journalHealthUrl, type Store } from '../store/index.js';
import type { LiveBotStatus } from '../execution/live-bot.js';
import { startHttp, type Readiness } from './http.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

/** The longest a venue may go without an answered poll and still count as reachable. */
export const VENUE_REACHABLE_MS = 60_000;
/** The shortest such window: a poll's own time-out and retry must fit in it. */
export const MIN_VENUE_REACHABLE_MS = 10_000;

/**
 * How long after its last answered poll (wall clock) the venue still counts as reachable: three of the fastest
 * poll's periods in real time (a venue's clock may run `speed` times faster), within MIN_VENUE_REACHABLE_MS and
 * VENUE_REACHABLE_MS. A daemon polling tickers every 5 s knows after 15 s that no answer came.
 */
export function venueReachableMs(
  fastestPoll: number | readonly { readonly poll: { readonly tickersMs: number } }[],
  speed: number,
): number {
  const fastestPollMs =
    typeof fastestPoll === 'number' ? fastestPoll : Math.min(...fastestPoll.map((b) => b.poll.tickersMs));
  const real = (3 * fastestPollMs) / Math.max(1, speed);
  return Math.min(VENUE_REACHABLE_MS, Math.max(MIN_VENUE_REACHABLE_MS, Math.round(real)));
}

/** What /readyz is computed from (see `readiness`). */
export interface ReadinessInput {
  /** Each configured bot's status (undefined while it is not built, or restarts). */
  readonly bots: readonly (LiveBotStatus | undefined)[];
  /** The wall-clock time of the venue's last answered poll (0: none yet). */
  readonly lastPollOk: number;
  /** The wall clock now. */
  readonly now: number;
  /** How long after its last answer the venue still counts as reachable (default VENUE_REACHABLE_MS). */
  readonly reachableMs?: number | undefined;
  /** Each bot's newest drift report in brief (an unexplained difference is named in the detail). */
  readonly drift?: Readonly<Record<string, { unexplained: number }>> | undefined;
  /** The journal this daemon runs on: a reader (`tradebot status`) checks it asked the right daemon. */
  readonly journal?: string | undefined;
}

/** What /readyz answers: ready while every bot runs, none DEGRADED, not all halted, and the venue answers. */
export function readiness(o: ReadinessInput): Readiness {
  const { bots, lastPollOk, now, journal } = o;
  const reachableMs = o.reachableMs ?? VENUE_REACHABLE_MS;
  const drift = o.drift ?? {};
  const running = bots.every((b) => b?.running === true);
  const halted = bots.length > 0 && bots.every((b) => b?.tradingState === 'HALTED');
  const age = now - lastPollOk;
  const venue = age < reachableMs;
  // A bot that gets no data is not ready, whatever else it does: /readyz says which and why.
  const degraded = bots.flatMap((b) =>
    b?.health.state === 'DEGRADED' ? [`${b.name}: ${b.health.problems.join('; ')}`] : [],
  );
  return {
    ready: running && !halted && venue && degraded.length === 0,
    detail: {
      ...(journal === undefined ? {} : { journal }),
      bots,
      venueReachable: venue,
      ...(venue ? {} : { venueSilentMs: lastPollOk > 0 ? age : null }),
      ...(degraded.length > 0 ? { degraded } : {}),
      ...(Object.keys(drift).length > 0 ? { drift } : {}),
      ...(driftAlarms(drift).length > 0 ? { driftAlarm: driftAlarms(drift) } : {}),
    },
  };
}

/** /healthz, /readyz and /metrics, when enabled (undefined when not). */
export async function serveHealth(o: {
  readonly metricsConfig: Deployment['metrics'];
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly readiness: () => Readiness;
  /** The journal: where /readyz answers is kept there, for `tradebot status` to ask the running daemon. */
  readonly store?: Store | undefined;
}): Promise<{ port: number; close(): Promise<void> } | undefined> {
  const { host, port, enabled } = o.metricsConfig;
  if (!enabled) return undefined;
  const http = await startHttp({ host, port, metrics: o.metrics, readiness: o.readiness });
  o.logger.info('health and metrics listening', {
    url: `http://${host}:${http.port}`,
    paths: '/healthz /readyz /metrics',
  });
  if (o.store !== undefined) journalHealthUrl(o.store, `http://${host}:${http.port}/readyz`);
  return http;
}

/** The bots whose newest drift report has unexplained differences, each in a sentence. */
function driftAlarms(drift: Readonly<Record<string, { unexplained: number }>>): string[] {
  return Object.entries(drift).flatMap(([bot, d]) =>
    d.unexplained > 0
      ? [`${bot}: ${d.unexplained} unexplained drift differences (tradebot drift --report)`]
      : [],
  );
}
