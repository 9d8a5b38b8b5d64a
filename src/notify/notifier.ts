// Notifications of a running deployment: the pipeline's events (fills, exits with their reason, denial
// bursts, trading-state changes), the daemon's (a bot restarted) and a daily summary on the venue's
// clock, to a webhook and/or Telegram. Trading never waits on it: events are turned into text and
// queued synchronously; each target sends from its own queue (see Dispatcher).
import type { NotifyConfig, NotifyEventKind } from '../config/index.js';
import type { LiveBotStatus } from '../execution/live-bot.js';
import type { TraderEvent } from '../execution/trader.js';
import type { Clock } from '../feeds/clock.js';
import { scheduleOnClock, type ClockCron } from '../feeds/cron.js';
import { liveClock } from '../feeds/clock.js';
import { telegramChannel, webhookChannel } from './channels.js';
import { Dispatcher, type Channel, type NotifyLogger } from './dispatcher.js';
import { exitReasonOf } from '../execution/describe.js';
import { burstText, fillText, restartText, stateText, summaryText } from './format.js';

/** An event of the daemon itself, beside the pipeline's. */
export type BotRestartedEvent = {
  readonly type: 'bot-restarted';
  readonly bot: string;
  readonly ts: number;
  readonly restarts: number;
  readonly error: string;
};
export type NotifiableEvent = TraderEvent | BotRestartedEvent;

/** What the notifier needs of the daemon it runs in. */
export interface NotifyHost {
  readonly logger: NotifyLogger;
  /** The venue's clock (simulated for an accelerated simulator) and its speed. */
  readonly clock: Clock;
  readonly speed: number;
  /** Said first in every message (PAPER on a paper run). */
  readonly label?: string | undefined;
  bots(): readonly LiveBotStatus[];
  subscribe(listener: (e: NotifiableEvent) => void): () => void;
}

export interface NotifierOptions {
  readonly config: NotifyConfig;
  readonly host: NotifyHost;
  /** Channels instead of those of the config (tests). */
  readonly channels?: readonly Channel[] | undefined;
}

/** Replaces every secret in a text. */
const scrubber = (secrets: readonly string[]) => (s: string) => {
  let out = s;
  for (const v of secrets) if (v.length >= 4) out = out.split(v).join('[redacted]');
  return out;
};

export class Notifier {
  readonly dispatchers: readonly Dispatcher[];
  private readonly wanted: ReadonlySet<NotifyEventKind>;
  private readonly denials = new Map<string, { ts: number; code: string }[]>();
  private readonly unsubscribe: () => void;
  private readonly summary: ClockCron | undefined;

  constructor(private readonly o: NotifierOptions) {
    const c = o.config;
    const secrets = [c.telegram?.botToken ?? '', c.webhook?.url ?? ''];
    const scrub = scrubber(secrets);
    const channels = o.channels ?? [
      ...(c.webhook ? [webhookChannel(c.webhook.url)] : []),
      ...(c.telegram ? [telegramChannel(c.telegram)] : []),
    ];
    this.dispatchers = channels.map(
      (channel) =>
        new Dispatcher({
          channel,
          logger: o.host.logger,
          perMinute: c.perMinute,
          queue: c.queue,
          timeoutMs: c.timeoutMs,
          retries: c.retries,
          scrub,
          now: () => liveClock.now(),
        }),
    );
    this.wanted = new Set(c.events);
    this.unsubscribe = o.host.subscribe((e) => this.onEvent(e));
    this.summary = this.wanted.has('daily-summary')
      ? scheduleOnClock({
          expression: c.dailySummary.cron,
          timeZone: c.dailySummary.timezone,
          clock: o.host.clock,
          speed: o.host.speed,
          run: (at) => this.send(summaryText(o.host.bots(), at, c.dailySummary.timezone)),
        })
      : undefined;
    o.host.logger.info('notifications on', {
      what: `notifications to ${channels.map((x) => x.name).join(' and ')}: ${c.events.join(', ')}`,
    });
  }

  /** Queues a text for every target. */
  send(text: string): void {
    const label = this.o.host.label;
    for (const d of this.dispatchers) d.push(label === undefined ? text : `[${label}] ${text}`);
  }

  /** A pipeline or daemon event: turned into text (or counted) at once, never awaited. */
  private onEvent(e: NotifiableEvent): void {
    try {
      const w = this.wanted;
      switch (e.type) {
        case 'fill': {
          const exit = exitReasonOf(e.fill) !== undefined;
          if (exit ? w.has('exit') : w.has('fill')) this.send(fillText(e.bot, e.fill));
          break;
        }
        case 'denied':
          // A replayed candle's signal is denied by design (the warm-up): not an alarm.
          if (w.has('denials') && e.code !== 'STALE_SIGNAL') this.denied(e.bot, e.ts, e.code);
          break;
        case 'trading-state':
          if (w.has('trading-state')) this.send(stateText(e.bot, e.from, e.to, e.reason));
          break;
        case 'bot-restarted':
          if (w.has('restart')) this.send(restartText(e.bot, e.restarts, e.error));
          break;
        default:
          break;
      }
    } catch (err) {
      // A notification must never break the pipeline that emitted the event.
      this.o.host.logger.warn('notification not built', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** N denials of a bot within the window (venue time) make one message; the count starts again after it. */
  private denied(bot: string, ts: number, code: string): void {
    const { count, windowMs } = this.o.config.denialBurst;
    const recent = (this.denials.get(bot) ?? []).filter((d) => ts - d.ts < windowMs);
    recent.push({ ts, code });
    if (recent.length >= count) {
      this.send(
        burstText(
          bot,
          recent.map((d) => d.code),
          windowMs,
        ),
      );
      this.denials.set(bot, []);
    } else this.denials.set(bot, recent);
  }

  /** Stops listening; waits a little (`ms`) for the queues to drain, then stops the targets. */
  async stop(ms = 2000): Promise<void> {
    this.unsubscribe();
    this.summary?.stop();
    await Promise.all(this.dispatchers.map((d) => d.flush(ms)));
    for (const d of this.dispatchers) d.stop();
  }
}

/** The notifier of a deployment with a `notify:` block, or undefined. */
export function notifierFor(
  config: { notify?: NotifyConfig | undefined },
  host: NotifyHost,
): Notifier | undefined {
  return config.notify === undefined ? undefined : new Notifier({ config: config.notify, host });
}

/** What the daemon gives a service (structurally: notify does not import the daemon, one layer). */
export interface NotifyServiceContext {
  readonly config: { notify?: NotifyConfig | undefined };
  readonly bots: () => readonly { readonly bot: { status(): LiveBotStatus } | undefined }[];
  readonly logger: NotifyLogger;
  readonly venue: { readonly speed: number; readonly kind?: string | undefined };
  readonly clock: Clock;
  subscribe(listener: (e: NotifiableEvent) => void): () => void;
}

/** Notifications as a daemon service: started with the bots, closed (queues flushed briefly) at stop. */
export function notifyService(ctx: NotifyServiceContext): Promise<{ close(): Promise<void> } | undefined> {
  const n = notifierFor(ctx.config, {
    logger: ctx.logger,
    clock: ctx.clock,
    speed: ctx.venue.speed,
    label: ctx.venue.kind === 'paper' ? 'PAPER' : undefined,
    bots: () => ctx.bots().flatMap((b) => (b.bot === undefined ? [] : [b.bot.status()])),
    subscribe: (l) => ctx.subscribe(l),
  });
  return Promise.resolve(n === undefined ? undefined : { close: () => n.stop() });
}
