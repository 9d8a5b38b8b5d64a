// The bots' cron tasks (flatten before the close, set-leverage, the daily report), run on the venue's clock:
// on an accelerated simulator a 16:00 ET task runs at simulated 16:00 ET.
import type { BotConfig } from '../config/index.js';
import type { LiveBot } from '../execution/live-bot.js';
import type { Clock } from '../feeds/clock.js';
import { scheduleOnClock, type ClockCron } from '../feeds/cron.js';
import { formatZoned } from '../market/zoned-time.js';
import type { Logger } from './logger.js';

/** A bot as its tasks see it: `bot` is read when a task runs (none while the bot restarts). */
type ScheduledBot = { readonly cfg: BotConfig; readonly bot?: LiveBot | undefined };

interface ScheduleOptions {
  readonly clock: Clock;
  readonly speed: number;
  readonly logger: Logger;
  /** Applies a bot's leverage entries (the set-leverage task). */
  readonly applyLeverage: (b: BotConfig) => Promise<void>;
}

/** Schedules every task of every bot; stop each job at shutdown. */
export function scheduleBotTasks(slots: readonly ScheduledBot[], o: ScheduleOptions): ClockCron[] {
  const jobs: ClockCron[] = [];
  try {
    for (const slot of slots) for (const s of slot.cfg.schedules) jobs.push(scheduleTask(slot, s, o));
  } catch (e) {
    // A task that cannot be scheduled leaves none of the others running.
    for (const j of jobs) j.stop();
    throw e;
  }
  return jobs;
}

function scheduleTask(slot: ScheduledBot, s: BotConfig['schedules'][number], o: ScheduleOptions): ClockCron {
  const { logger } = o;
  const b = slot.cfg;
  return scheduleOnClock({
    expression: s.cron,
    timeZone: s.timezone,
    clock: o.clock,
    speed: o.speed,
    run: async (at) => {
      logger.info('scheduled task', {
        bot: b.name,
        task: s.task,
        cron: s.cron,
        venueTime: formatZoned(at, s.timezone),
      });
      if (s.task === 'flatten') await slot.bot?.flatten('scheduled flatten before the close');
      else if (s.task === 'set-leverage') await o.applyLeverage(b);
      else logger.info('daily report', { ...slot.bot?.status() });
    },
    onError: (e) =>
      logger.error('scheduled task failed', {
        bot: b.name,
        task: s.task,
        error: e instanceof Error ? e.message : String(e),
      }),
  });
}
