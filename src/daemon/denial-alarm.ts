// A bot denied again and again raises an alarm: each bot's denials counted by code (execution/denial-burst.ts),
// and a burst said once: a log line, a metric, and a daemon event the notifications hear.
import type { BotConfig, Deployment } from '../config/index.js';
import { INTERVAL_MS } from '../api/index.js';
import {
  DenialBursts,
  denialBurstLimits,
  denialBurstText,
  type DenialBurstEvent,
} from '../execution/denial-burst.js';
import type { TraderListener } from '../execution/trader.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

/** The listener of one bot's pipeline events that watches its denials. */
export function denialAlarm(o: {
  readonly bot: BotConfig;
  readonly cfg: Deployment;
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
  readonly emit: (e: DenialBurstEvent) => void;
}): TraderListener {
  const limits = denialBurstLimits(INTERVAL_MS[o.bot.interval], o.bot.denialBurst, o.cfg.notify?.denialBurst);
  const bursts = new DenialBursts(o.bot.name, limits);
  return (e) => {
    if (e.type !== 'denied') return;
    const burst = bursts.see(e.ts, e.code);
    if (burst === undefined) return;
    o.metrics.denialBursts.inc({ bot: burst.bot, code: burst.code });
    o.logger.warn('denial burst', {
      bot: burst.bot,
      code: burst.code,
      count: burst.count,
      windowMs: burst.windowMs,
      what: denialBurstText(burst),
    });
    o.emit(burst);
  };
}
