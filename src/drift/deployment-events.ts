// Every event a running deployment tells its services (notifications, the dashboard): each bot's pipeline
// events, the alarms of its feeds, fills, denials and margin, the drift monitor's, and the daemon's own bot
// restarts. Declared once, in the lowest layer that knows all of them (the drift alarm is this folder's), below
// both the daemon that emits them and the notifier that hears them (which may not import each other).
import type { DenialBurstEvent } from '../execution/denial-burst.js';
import type { FeedHealthEvent } from '../execution/feed-watch.js';
import type { FillMismatch } from '../execution/fill-router.js';
import type { MarginWarningEvent } from '../execution/margin-warning.js';
import type { TraderEvent } from '../execution/trader.js';
import type { DriftAlarmEvent } from './types.js';

/** An event of the daemon itself, beside the pipeline's: a failed bot restarted. */
export interface BotRestartedEvent {
  readonly type: 'bot-restarted';
  readonly bot: string;
  readonly ts: number;
  readonly restarts: number;
  readonly error: string;
}

/** What a deployment's services hear. */
export type DeploymentEvent =
  | TraderEvent
  | BotRestartedEvent
  | FeedHealthEvent
  | FillMismatch
  | DriftAlarmEvent
  | DenialBurstEvent
  | MarginWarningEvent;
