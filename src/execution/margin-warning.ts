// A MARGIN bot whose risk ratio reaches its pair's warningRiskRatio is an alarm: said once when it reaches it,
// and once when it falls back below (the simulator's model, docs/margin.md; the venue liquidates at
// liquidationRiskRatio).
import { describeFill } from './describe.js';
import type { TraderFill } from './trader-events.js';
import type { LiveBotMargin } from './live-bot-status.js';

/** A bot's risk ratio reached the warning ratio (`warning`), or fell back below it (`normal`). */
export interface MarginWarningEvent {
  readonly type: 'margin-warning';
  readonly bot: string;
  /** The venue time of the reading. */
  readonly ts: number;
  readonly state: 'warning' | 'normal';
  readonly riskRatio: string;
  readonly warningRiskRatio: string;
}

/** Which bots are in the warning state: a reading answers an event only when it changes that. */
export class MarginWarnings {
  private readonly warned = new Set<string>();

  see(bot: string, ts: number, m: LiveBotMargin): MarginWarningEvent | undefined {
    const warning = m.state !== 'normal';
    if (warning === this.warned.has(bot)) return undefined;
    if (warning) this.warned.add(bot);
    else this.warned.delete(bot);
    const state = warning ? 'warning' : 'normal';
    return {
      type: 'margin-warning',
      bot,
      ts,
      state,
      riskRatio: m.riskRatio,
      warningRiskRatio: m.warningRiskRatio,
    };
  }
}

/** The alarm's sentence (log, notification). */
export function marginWarningText(e: MarginWarningEvent): string {
  const ratio = Number(e.riskRatio).toFixed(4);
  return e.state === 'warning'
    ? `${e.bot} MARGIN WARNING: risk ratio ${ratio} reached warningRiskRatio ${e.warningRiskRatio} (loans and interest over assets); reduce the loans before the venue liquidates`
    : `${e.bot} margin back to normal: risk ratio ${ratio}, below warningRiskRatio ${e.warningRiskRatio}`;
}

/** A notification's text for a margin liquidation's fill booked to a bot (the venue closed its position). */
export function liquidationText(bot: string, fill: TraderFill): string {
  return `${bot} LIQUIDATED: the venue closed its ${fill.side === 'buy' ? 'short' : 'long'} by force: ${describeFill(fill)}`;
}
