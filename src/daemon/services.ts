// The services started beside the bots (notifications, the dashboard) and the events they hear: every bot's
// pipeline events and the daemon's own, handed to each listener so that one that throws is logged, never felt.
import type { BotConfig, Deployment } from '../config/index.js';
import type { DeploymentEvent } from '../drift/deployment-events.js';
import type { LiveBot } from '../execution/live-bot.js';
import type { Clock } from '../feeds/clock.js';
import type { Store } from '../store/index.js';
import type { PreviousRun } from './journal-path.js';
import type { Logger } from './logger.js';

export type { BotRestartedEvent } from '../drift/deployment-events.js';
/** What the services started beside the bots hear (see `DeploymentEvent`). */
export type DaemonEvent = DeploymentEvent;

/** What a service started beside the bots is given. */
export interface DaemonServiceContext {
  readonly config: Deployment;
  /** Each bot's configuration and its running instance (none while it restarts). */
  readonly bots: () => readonly { readonly config: BotConfig; readonly bot: LiveBot | undefined }[];
  readonly store: Store;
  readonly logger: Logger;
  readonly venue: { readonly kind: string; readonly speed: number };
  /** The venue's clock (simulated for an accelerated simulator; `venue.speed` times real time). */
  readonly clock: Clock;
  /** How the journal's previous run ended (a run killed or crashed leaves no clean-stop marker). */
  readonly previousRun: PreviousRun;
  /** Every bot's pipeline events and the daemon's own; a listener that throws is logged, never felt by trading. */
  subscribe(listener: (e: DaemonEvent) => void): () => void;
}

/** A service the daemon starts after its bots and stops before closing the venue (notifications, the dashboard). */
export type DaemonService = (ctx: DaemonServiceContext) => Promise<{ close(): Promise<void> } | undefined>;

/** The listeners of the daemon's events, each handed every event in the order they subscribed. */
export class DaemonEvents {
  private readonly listeners: ((e: DaemonEvent) => void)[] = [];

  constructor(private readonly logger: Logger) {}

  /** Adds a listener; answers the call that removes it. */
  subscribe(listener: (e: DaemonEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  emit(e: DaemonEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.logger.warn('an event listener failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
}
