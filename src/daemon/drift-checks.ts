// The daemon's drift checks (src/drift): every bot's journal against the replay of the venue's candles, at
// each venue day's close on the venue's clock (deployment `drift.cron`, away from candle boundaries), through
// the runtime's client and its shared limiter. The report is kept in the journal; an unexplained difference
// is an alarm: logged as an error, counted in tradebot_drift_unexplained_total, and emitted to the services.
import type { Deployment } from '../config/index.js';
import type { RestClient } from '../client/index.js';
import { driftBotOf } from '../drift/bot.js';
import { driftAlarm, driftSummary } from '../drift/format.js';
import { runDrift } from '../drift/monitor.js';
import type { DriftBot } from '../drift/replay.js';
import type { DriftAlarmEvent } from '../drift/types.js';
import type { Clock } from '../feeds/clock.js';
import { scheduleOnClock, type ClockCron } from '../feeds/cron.js';
import { formatZoned } from '../market/zoned-time.js';
import type { Store } from '../store/index.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

/** How many unexplained differences an alarm event carries (the report in the journal has them all). */
const ALARM_DIFFERENCES = 5;

export interface DriftCheckOptions {
  readonly file: string;
  readonly cfg: Deployment;
  readonly clock: Clock;
  readonly speed: number;
  readonly logger: Logger;
  readonly client: Pick<RestClient, 'historyCandles' | 'instruments'>;
  readonly store: Store;
  readonly metrics: DaemonMetrics;
  readonly emit: (e: DriftAlarmEvent) => void;
}

/** Checks every bot now, one after the other; answers the number of unexplained differences. */
export async function checkDrift(o: DriftCheckOptions, bots: Map<string, DriftBot>): Promise<number> {
  let total = 0;
  for (const b of o.cfg.bots) {
    const bot = bots.get(b.name) ?? (await driftBotOf(o.file, o.cfg, b));
    bots.set(b.name, bot);
    const now = o.clock.now();
    try {
      const r = await runDrift({ bot, store: o.store, client: o.client, now });
      total += r.unexplained;
      o.logger.info('drift check', {
        bot: b.name,
        differences: r.differences.length,
        unexplained: r.unexplained,
        what: driftSummary(r),
      });
      if (r.unexplained === 0) continue;
      o.metrics.driftUnexplained.inc({ bot: b.name }, r.unexplained);
      const off = r.differences.filter((d) => d.cause === 'unexplained');
      for (const d of off.slice(0, ALARM_DIFFERENCES))
        o.logger.error('drift alarm', { bot: b.name, what: driftAlarm(b.name, d) });
      o.emit({
        type: 'drift-alarm',
        bot: b.name,
        ts: now,
        from: r.from,
        to: r.to,
        unexplained: r.unexplained,
        differences: off.slice(0, ALARM_DIFFERENCES),
      });
    } catch (e) {
      o.logger.error('drift check failed', {
        bot: b.name,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }
  return total;
}

/** Schedules the checks (none when `drift.enabled` is false); stop the job at shutdown. */
export function scheduleDriftChecks(o: DriftCheckOptions): ClockCron | undefined {
  const { drift } = o.cfg;
  if (!drift.enabled) return undefined;
  for (const b of o.cfg.bots) o.metrics.driftUnexplained.inc({ bot: b.name }, 0);
  const bots = new Map<string, DriftBot>();
  return scheduleOnClock({
    expression: drift.cron,
    timeZone: drift.timezone,
    clock: o.clock,
    speed: o.speed,
    run: async (at) => {
      o.logger.info('scheduled task', {
        task: 'drift',
        cron: drift.cron,
        venueTime: formatZoned(at, drift.timezone),
      });
      await checkDrift(o, bots);
    },
    onError: (e) =>
      o.logger.error('scheduled task failed', {
        task: 'drift',
        error: e instanceof Error ? e.message : String(e),
      }),
  });
}

/** Each bot's newest kept drift report in brief, for /readyz and the status: its span and unexplained count. */
export function driftDetail(store: Store): Record<string, { from: string; to: string; unexplained: number }> {
  const out: Record<string, { from: string; to: string; unexplained: number }> = {};
  for (const r of store.drift.latestBrief())
    out[r.bot] = {
      from: new Date(r.from).toISOString(),
      to: new Date(r.to).toISOString(),
      unexplained: r.unexplained,
    };
  return out;
}
