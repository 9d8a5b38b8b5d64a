// Notifications of a running deployment: the pipeline's events (fills, exits with their reason, denial
// bursts, trading-state changes, operator actions), the daemon's (start, stop, an unclean previous end, a
// bot restarted) and a daily summary on the venue's clock, to a webhook and/or Telegram. Trading never
// waits on it: an event becomes a row of the journal's outbox at once (fills of one order coalescing into
// one message), and each target sends from the outbox by priority (see Dispatcher).
import { randomUUID } from 'node:crypto';
import type { NotifyConfig, NotifyEventKind } from '../config/index.js';
import type { DeploymentEvent } from '../drift/deployment-events.js';
import { denialBurstText } from '../execution/denial-burst.js';
import { liquidationText, marginWarningText } from '../execution/margin-warning.js';
import type { LiveBotStatus } from '../execution/live-bot.js';
import type { TraderEvent, TraderFill } from '../execution/trader.js';
import type { Clock } from '../feeds/clock.js';
import { scheduleOnClock, type ClockCron } from '../feeds/cron.js';
import { liveClock } from '../feeds/clock.js';
import type { OutboxRepository } from '../store/index.js';
import { counted } from '../market/spelling.js';
import { formatZoned } from '../market/zoned-time.js';
import { telegramChannel, webhookChannel } from './channels.js';
import { Dispatcher, type Channel, type NotifyLogger } from './dispatcher.js';
import { TelegramCommands, type CommandedBot } from './telegram-commands.js';
import { exitReasonOf } from '../execution/describe.js';
import { ExitBlockedTally } from '../execution/exit-blocked.js';
import {
  controlText,
  driftAlarmText,
  exitBlockedText,
  feedHealthText,
  fillsMismatchText,
  orderFillsText,
  restartText,
  startText,
  stateText,
  stopText,
  summaryText,
  type PreviousRun,
} from './format.js';

export type { BotRestartedEvent } from '../drift/deployment-events.js';
/** What the notifier hears (see `DeploymentEvent`). */
export type NotifiableEvent = DeploymentEvent;

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
  /** The journal's outbox: every message is written there before it is sent. */
  readonly outbox: OutboxRepository;
  /** Channels instead of those of the config (tests). */
  readonly channels?: readonly Channel[] | undefined;
  /** Wall-clock time (default the live clock): the rate limit, the fill window, the timeouts. */
  readonly now?: (() => number) | undefined;
  /** The first backoff of a resend (default 500 ms). */
  readonly backoffMs?: number | undefined;
}

/** Replaces every secret in a text. */
const scrubber = (secrets: readonly string[]) => (s: string) => {
  let out = s;
  for (const v of secrets) if (v.length >= 4) out = out.split(v).join('[redacted]');
  return out;
};

/** Which messages go first when the rate limit or an outage holds them back: lower first. */
/** Between a message's text and its time: `a bought 4 AAPL … · 2026-11-23 10:32:05 EST`. */
export const TIME_SEPARATOR = ' · ';

export const PRIORITY = {
  /** Trading state, operator actions, errors, start and stop. */
  urgent: 0,
  /** Denial bursts, the daily summary. */
  normal: 1,
  fill: 2,
} as const;

/** The fills of one order told so far, in one message while it waits. */
interface FillGroup {
  readonly key: string;
  readonly fills: TraderFill[];
  readonly firstAt: number;
  /** The venue's time of the first fill: the message's time, whatever joins it. */
  readonly at: number;
}

export class Notifier {
  readonly dispatchers: readonly Dispatcher[];
  private readonly wanted: ReadonlySet<NotifyEventKind>;
  private readonly fillGroups = new Map<string, FillGroup>();
  /** Each bot's blocked exits: one message per episode (see ExitBlockedTally), not one per candle. */
  private readonly blocked = new Map<string, ExitBlockedTally>();
  private readonly unsubscribe: () => void;
  private readonly summary: ClockCron | undefined;
  private readonly scrub: (s: string) => string;
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly o: NotifierOptions) {
    const c = o.config;
    const secrets = [c.telegram?.botToken ?? '', c.webhook?.url ?? ''];
    this.scrub = scrubber(secrets);
    this.now = o.now ?? (() => liveClock.now());
    const channels = o.channels ?? [
      ...(c.webhook ? [webhookChannel(c.webhook.url)] : []),
      ...(c.telegram ? [telegramChannel(c.telegram)] : []),
    ];
    this.dispatchers = channels.map(
      (channel) =>
        new Dispatcher({
          channel,
          outbox: o.outbox,
          logger: o.host.logger,
          perMinute: c.perMinute,
          queue: c.queue,
          timeoutMs: c.timeoutMs,
          retries: c.retries,
          scrub: this.scrub,
          now: this.now,
          backoffMs: o.backoffMs,
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
          run: (at) =>
            void this.send(summaryText(o.host.bots(), at, c.dailySummary.timezone), PRIORITY.normal),
          onError: (e) =>
            o.host.logger.warn('daily summary not sent', {
              error: this.scrub(e instanceof Error ? e.message : String(e)),
            }),
        })
      : undefined;
    const backlog = this.dispatchers.reduce((n, d) => n + d.waiting, 0);
    o.host.logger.info('notifications on', {
      what:
        `notifications to ${channels.map((x) => x.name).join(' and ')}: ${c.events.join(', ')}` +
        (backlog > 0
          ? `; ${counted(backlog, 'notification')} carried over from the last run are sent first`
          : ''),
    });
    // The backlog of the last run goes out now, by priority.
    for (const d of this.dispatchers) d.start();
  }

  /**
   * A message as it goes out, from one place for every kind: the label first (`[PAPER] ...` on a paper
   * deployment), then the text, then the venue's time of what it tells, in the daily summary's zone (the
   * journal's clock, not this machine's); secrets scrubbed.
   */
  private compose(text: string, at: number): string {
    const label = this.o.host.label;
    const stamped = `${text}${TIME_SEPARATOR}${formatZoned(at, this.o.config.dailySummary.timezone)}`;
    return this.scrub(label === undefined ? stamped : `[${label}] ${stamped}`);
  }

  /**
   * Queues a text for every target in the outbox (durable before this returns); answers its idempotency
   * key. `delayMs` holds it back that long (real time), during which `retext` may still change it. `at` is
   * the venue's time of what it tells (default: now on the venue's clock).
   */
  send(text: string, priority: number = PRIORITY.urgent, delayMs = 0, at = this.o.host.clock.now()): string {
    const key = randomUUID();
    if (this.stopped) return key;
    const now = this.now();
    this.o.outbox.add({
      targets: this.dispatchers.map((d) => d.name),
      key,
      priority,
      text: this.compose(text, at),
      // Due on the wall clock (the sends wait in real time); created on the venue's, as the journal is.
      dueTs: now + delayMs,
      ts: at,
    });
    for (const d of this.dispatchers) d.pushed();
    return key;
  }

  /** Tells the start (and an unclean end of the previous run), when lifecycle messages are wanted. */
  started(o: { bots: readonly string[]; venue: string; previousRun: PreviousRun }): void {
    if (this.wanted.has('lifecycle')) this.send(startText(o.bots, o.venue, o.previousRun));
  }

  /** A pipeline or daemon event: turned into text (or counted) at once, never awaited. */
  private onEvent(e: NotifiableEvent): void {
    try {
      const w = this.wanted;
      if (
        e.type !== 'bot-restarted' &&
        e.type !== 'feed-health' &&
        e.type !== 'fills-mismatch' &&
        e.type !== 'drift-alarm' &&
        e.type !== 'denial-burst' &&
        e.type !== 'margin-warning' &&
        (w.has('exit') || w.has('denials'))
      )
        this.exitBlocked(e);
      switch (e.type) {
        case 'fill': {
          if (e.fill.liquidation === true) {
            if (w.has('margin')) this.send(liquidationText(e.bot, e.fill), PRIORITY.urgent, 0, e.ts);
            break;
          }
          const exit = exitReasonOf(e.fill) !== undefined;
          if (exit ? w.has('exit') : w.has('fill')) this.fill(e.bot, e.fill);
          break;
        }
        case 'denial-burst':
          // Counted by the daemon per bot and code (execution/denial-burst.ts). STALE_SIGNAL counts too: the
          // warm-up's own candles never reach the gate, so a burst of stale signals is trades the backtest makes
          // and this run missed (a gap, a slow daemon).
          if (w.has('denials')) this.send(denialBurstText(e), PRIORITY.normal, 0, e.ts);
          break;
        case 'trading-state':
          if (w.has('trading-state'))
            this.send(stateText(e.bot, e.from, e.to, e.reason), PRIORITY.urgent, 0, e.ts);
          break;
        case 'control':
          if (w.has('control')) this.send(controlText(e.bot, e.control), PRIORITY.urgent, 0, e.ts);
          break;
        case 'bot-restarted':
          if (w.has('restart')) this.send(restartText(e.bot, e.restarts, e.error), PRIORITY.urgent, 0, e.ts);
          break;
        case 'feed-health':
          if (w.has('feed-health')) this.send(feedHealthText(e), PRIORITY.urgent, 0, e.ts);
          break;
        case 'fills-mismatch':
          if (w.has('account')) this.send(fillsMismatchText(e));
          break;
        case 'margin-warning':
          // Urgent when it warns (liquidation is near); the all-clear at normal priority.
          if (w.has('margin'))
            this.send(
              marginWarningText(e),
              e.state === 'warning' ? PRIORITY.urgent : PRIORITY.normal,
              0,
              e.ts,
            );
          break;
        case 'drift-alarm':
          // At the priority of a halt: live no longer equals the backtest, for a reason nobody knows.
          if (w.has('drift')) this.send(driftAlarmText(e));
          break;
        default:
          break;
      }
    } catch (err) {
      // A notification must never break the pipeline that emitted the event.
      this.o.host.logger.warn('notification not built', {
        error: this.scrub(err instanceof Error ? err.message : String(err)),
      });
    }
  }

  /**
   * A fill: the fills of one order make one message while it waits (the first holds it back
   * `fillWindowMs`), with their total size, average price and fees.
   */
  private fill(bot: string, f: TraderFill): void {
    const now = this.now();
    const window = this.o.config.fillWindowMs;
    for (const [k, g] of this.fillGroups)
      if (now - g.firstAt > Math.max(window, 60_000)) this.fillGroups.delete(k);
    const order = `${bot}|${f.orderId ?? f.clientOid ?? f.execId}`;
    const g = this.fillGroups.get(order);
    if (
      g !== undefined &&
      this.o.outbox.retext(g.key, this.compose(orderFillsText(bot, [...g.fills, f]), g.at))
    ) {
      g.fills.push(f);
      return;
    }
    const key = this.send(orderFillsText(bot, [f]), PRIORITY.fill, window, f.ts);
    this.fillGroups.set(order, { key, fills: [f], firstAt: now, at: f.ts });
  }

  /** The first blocked exit of an episode (a symbol's, until a sell of it fills) makes one message. */
  private exitBlocked(e: TraderEvent): void {
    let tally = this.blocked.get(e.bot);
    if (tally === undefined) {
      if (e.type !== 'denied' || e.code !== 'EXIT_BLOCKED') return;
      tally = new ExitBlockedTally();
      this.blocked.set(e.bot, tally);
    }
    const started = tally.see(e);
    if (started !== undefined) this.send(exitBlockedText(e.bot, started));
  }

  /**
   * Stops listening, tells the stop, and gives the backlog `ms` (default `stopFlushMs`) to go out; what
   * is left stays in the outbox for the next start, and the log says how much. Answers that count.
   */
  async stop(ms: number = this.o.config.stopFlushMs): Promise<number> {
    this.unsubscribe();
    this.summary?.stop();
    if (this.wanted.has('lifecycle')) this.send(stopText(0));
    this.stopped = true;
    // Fills still in their window go now.
    this.o.outbox.dueNow(this.now());
    await Promise.all(this.dispatchers.map((d) => d.drain(ms)));
    await Promise.all(this.dispatchers.map((d) => d.stop()));
    const left = this.dispatchers.reduce((n, d) => n + d.waiting, 0);
    if (left > 0)
      this.o.host.logger.warn('notifications carried over', {
        what: `${counted(left, 'notification')} carried over to the next start (kept in the journal's outbox)`,
        count: left,
        targets: this.dispatchers.filter((d) => d.waiting > 0).map((d) => d.name),
      });
    return left;
  }
}

/** What the daemon gives a service (structurally: notify does not import the daemon, one layer). */
export interface NotifyServiceContext {
  readonly config: { notify?: NotifyConfig | undefined };
  readonly bots: () => readonly CommandedBot[];
  /** The journal: its outbox holds the messages, its meta the Telegram update offset. */
  readonly store: {
    readonly outbox: OutboxRepository;
    readonly meta: { get(key: string): string | undefined; set(key: string, value: string): void };
  };
  readonly logger: NotifyLogger;
  readonly venue: { readonly kind: string; readonly speed: number };
  readonly clock: Clock;
  /** How the journal's previous run ended. */
  readonly previousRun?: PreviousRun | undefined;
  subscribe(listener: (e: NotifiableEvent) => void): () => void;
}

/**
 * Notifications as a daemon service: started with the bots (the backlog of the last run sent first, the
 * start told), Telegram commands read when configured; at stop the backlog gets `stopFlushMs`, the rest is
 * carried over in the outbox.
 */
export function notifyService(ctx: NotifyServiceContext): Promise<{ close(): Promise<void> } | undefined> {
  const config = ctx.config.notify;
  if (config === undefined) return Promise.resolve(undefined);
  const n = new Notifier({
    config,
    outbox: ctx.store.outbox,
    host: {
      logger: ctx.logger,
      clock: ctx.clock,
      speed: ctx.venue.speed,
      label: ctx.venue.kind === 'paper' ? 'PAPER' : undefined,
      bots: () => ctx.bots().flatMap((b) => (b.bot === undefined ? [] : [b.bot.status()])),
      subscribe: (l) => ctx.subscribe(l),
    },
  });
  n.started({
    bots: ctx.bots().map((b) => b.config.name),
    venue: ctx.venue.kind,
    previousRun: ctx.previousRun ?? 'first',
  });
  const tg = config.telegram;
  const commands =
    tg?.commands?.enabled === true
      ? new TelegramCommands({
          botToken: tg.botToken,
          apiBaseUrl: tg.apiBaseUrl,
          allowedChatIds: tg.commands.allowedChatIds ?? [tg.chatId],
          control: tg.commands.control,
          pollTimeoutS: tg.commands.pollTimeoutS,
          bots: ctx.bots,
          logger: ctx.logger,
          meta: ctx.store.meta,
          scrub: scrubber([tg.botToken, config.webhook?.url ?? '']),
        })
      : undefined;
  commands?.start();
  return Promise.resolve({
    close: async () => {
      await commands?.stop();
      await n.stop();
    },
  });
}
