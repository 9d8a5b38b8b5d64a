// A MARGIN bot's risk ratio at the warning ratio raises an alarm: the daemon reads each MARGIN bot's margin
// (its status, LiveBot) on a timer, and when it reaches its pair's warningRiskRatio, or falls back, says so
// once: a log line, the metrics, and a daemon event the notifications hear (execution/margin-warning.ts).
import type { LiveBot } from '../execution/live-bot.js';
import { MarginWarnings, marginWarningText, type MarginWarningEvent } from '../execution/margin-warning.js';
import type { Clock } from '../feeds/clock.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

/** How often (wall ms) the MARGIN bots' risk ratios are read: prices move it, and interest. */
export const MARGIN_CHECK_MS = 1000;

export function watchMarginRatio(o: {
  /** The MARGIN bots (a SPOT bot has no loans). */
  readonly bots: () => readonly {
    readonly name: string;
    readonly bot: Pick<LiveBot, 'status'> | undefined;
  }[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
  readonly emit: (e: MarginWarningEvent) => void;
  readonly everyMs?: number | undefined;
}): { stop(): void; check(): void } {
  const warnings = new MarginWarnings();
  const check = (): void => {
    for (const { name, bot } of o.bots()) {
      const m = bot?.status().margin;
      if (m === undefined) continue;
      // A ratio, not money: the gauge's float is for graphs and alert rules.
      o.metrics.marginRiskRatio.set({ bot: name }, Number(m.riskRatio));
      const e = warnings.see(name, o.clock.now(), m);
      if (e === undefined) continue;
      const fields = { bot: name, riskRatio: e.riskRatio, warningRiskRatio: e.warningRiskRatio };
      if (e.state === 'warning') {
        o.metrics.marginWarnings.inc({ bot: name });
        o.logger.warn('margin warning', { ...fields, what: marginWarningText(e) });
      } else o.logger.info('margin normal again', { ...fields, what: marginWarningText(e) });
      o.emit(e);
    }
  };
  const timer = setInterval(check, o.everyMs ?? MARGIN_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), check };
}
