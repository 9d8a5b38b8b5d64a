// One notification target (a webhook, a Telegram chat) sending from the journal's outbox: a message is
// marked sent only once the receiver acknowledged it, so a failure, a stop or a crash leaves it there for
// the next attempt or the next start. Each send takes the most urgent message due (the rate limit is spent
// on trading state and errors before fills); a failed send is retried with the same idempotency key after a
// backoff that doubles up to 30 s, and a send that gets no answer in time is cancelled (its connection
// closed) before the next attempt. An outage is logged once when it starts and once when it ends.
import type { OutboxMessage, OutboxRepository } from '../store/index.js';

/** What a channel sends: the text, and the key a receiver deduplicates on. */
export interface OutgoingMessage {
  readonly key: string;
  readonly text: string;
}

/** Where a message goes. `send` rejects on any failure (network, abort, non-2xx answer). */
export interface Channel {
  readonly name: string;
  /**
   * Whether the receiver keeps one copy of a message whatever our resends send (the webhook's idempotency key).
   * Without it (Telegram) a send that got no answer may have arrived: it is resent once, never more.
   */
  readonly dedupes?: boolean | undefined;
  send(message: OutgoingMessage, signal: AbortSignal): Promise<void>;
}

/** The logger notifications write to (the daemon's). */
export interface NotifyLogger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** The part of the journal's outbox a dispatcher uses. */
export type Outbox = Pick<
  OutboxRepository,
  'next' | 'nextDue' | 'markSent' | 'markAttempt' | 'dropOne' | 'drop' | 'waiting'
>;

export interface DispatcherOptions {
  readonly channel: Channel;
  readonly outbox: Outbox;
  readonly logger: NotifyLogger;
  /** Messages per minute at most. */
  readonly perMinute: number;
  /** Messages waiting at most; past it the oldest of the lowest priority is dropped. */
  readonly queue: number;
  /** A send without an answer within this is cancelled and counted failed. */
  readonly timeoutMs: number;
  /** Doublings of the backoff between resends (from `backoffMs`, at most 30 s). */
  readonly retries: number;
  /** Removes secrets from a text that may have picked one up (an error message quoting a URL). */
  readonly scrub: (s: string) => string;
  /** Wall-clock time (network waits are real time). */
  readonly now: () => number;
  /** First backoff (default 500 ms). */
  readonly backoffMs?: number | undefined;
}

const MAX_BACKOFF_MS = 30_000;

interface Waker {
  /** Whether a new message ends the wait (not while the rate limit or a backoff holds). */
  readonly onPush: boolean;
  readonly done: () => void;
}

export class Dispatcher {
  private stopped = false;
  private loopDone: Promise<void> | undefined;
  private lastSend = -Infinity;
  private failuresInRow = 0;
  /** When the current outage began (undefined: none). */
  private failingSince: number | undefined;
  private droppedInOutage = 0;
  private waker: Waker | undefined;
  private inFlight: AbortController | undefined;
  private idleWaiters: (() => void)[] = [];
  /** Messages whose send got no answer in time, by outbox id (a channel without dedupe resends them once). */
  private readonly unanswered = new Set<number>();
  /** Totals, for tests and the summary. */
  readonly counts = { sent: 0, dropped: 0, failures: 0, unconfirmed: 0 };

  constructor(private readonly o: DispatcherOptions) {}

  get name(): string {
    return this.o.channel.name;
  }

  /** Messages waiting for this target in the outbox. */
  get waiting(): number {
    return this.o.outbox.waiting(this.name);
  }

  /** Starts sending what the outbox holds (a backlog from the last run first, by priority). */
  start(): void {
    this.loopDone ??= this.loop();
  }

  /** A message was added to the outbox: the backlog is kept within its bound and the loop woken. */
  pushed(): void {
    if (this.stopped) return;
    while (this.o.outbox.waiting(this.name) > this.o.queue) this.drop();
    if (this.waker?.onPush === true) this.waker.done();
    this.start();
  }

  /** Resolves when nothing waits for this target (or after `ms`). */
  async drain(ms: number): Promise<void> {
    if (this.waiting === 0 || this.stopped) return;
    if (this.waker?.onPush === true) this.waker.done();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((r) => this.idleWaiters.push(r)),
      new Promise<void>((r) => (timer = setTimeout(r, ms))),
    ]);
    clearTimeout(timer);
  }

  /** Stops sending: a send in flight is cancelled (its message stays in the outbox, sent again next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.inFlight?.abort(new Error('the daemon stops'));
    this.waker?.done();
    await this.loopDone;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private drop(): void {
    const m = this.o.outbox.dropOne(this.name, this.o.now());
    if (m === undefined) return;
    this.counts.dropped++;
    // The first drop of a backlog is logged with what went; the rest are counted in the recovery line.
    if (this.droppedInOutage++ === 0)
      this.o.logger.warn('notification dropped', {
        target: this.name,
        what: `notifications to ${this.name}: more than ${this.o.queue} waiting, the oldest of the lowest priority dropped (${this.o.scrub(m.text.slice(0, 80))}); further drops are counted in the recovery line`,
      });
  }

  private sleep(ms: number, onPush: boolean): Promise<void> {
    return new Promise((r) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => done(), Math.max(0, ms)) : undefined;
      const done = (): void => {
        clearTimeout(timer);
        if (this.waker === waker) this.waker = undefined;
        r();
      };
      const waker: Waker = { onPush, done };
      this.waker = waker;
    });
  }

  private async loop(): Promise<void> {
    const minGap = 60_000 / this.o.perMinute;
    while (!this.stopped) {
      const now = this.o.now();
      const gap = this.lastSend + minGap - now;
      if (gap > 0) {
        await this.sleep(gap, false);
        continue;
      }
      // Picked after the rate limit's wait: a HALTED queued meanwhile goes before the fills.
      const m = this.o.outbox.next(this.name, now);
      if (m === undefined) {
        this.idle();
        const due = this.o.outbox.nextDue(this.name);
        await this.sleep(due === undefined ? Infinity : due - now, true);
        continue;
      }
      await this.attempt(m);
    }
  }

  private idle(): void {
    if (this.o.outbox.waiting(this.name) > 0) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /** One send of a message, cancelled when it gets no answer in time; a failure waits out the backoff. */
  private async attempt(m: OutboxMessage): Promise<void> {
    this.lastSend = this.o.now();
    const ac = new AbortController();
    this.inFlight = ac;
    const timer = setTimeout(
      () => ac.abort(new Error(`no answer within ${this.o.timeoutMs} ms`)),
      this.o.timeoutMs,
    );
    try {
      await this.o.channel.send({ key: m.key, text: m.text }, ac.signal);
      this.o.outbox.markSent(m.id, this.o.now());
      this.unanswered.delete(m.id);
      this.counts.sent++;
      this.failuresInRow = 0;
      this.recovered();
    } catch (err) {
      if (this.stopped) return;
      this.o.outbox.markAttempt(m.id);
      this.counts.failures++;
      this.failing(ac.signal.aborted ? ac.signal.reason : err);
      if (ac.signal.aborted) this.unansweredAgain(m);
      const doublings = Math.min(this.failuresInRow++, this.o.retries);
      await this.sleep(Math.min(MAX_BACKOFF_MS, (this.o.backoffMs ?? 500) * 2 ** doublings), false);
    } finally {
      clearTimeout(timer);
      this.inFlight = undefined;
    }
  }

  /**
   * A send that got no answer in time may still have reached a receiver that keeps no key (a late Telegram):
   * it is resent once; a second silence gives it up, said in the log, rather than risk a third copy.
   */
  private unansweredAgain(m: OutboxMessage): void {
    if (this.o.channel.dedupes === true) return;
    if (!this.unanswered.has(m.id)) {
      this.unanswered.add(m.id);
      return;
    }
    this.unanswered.delete(m.id);
    this.o.outbox.drop(m.id, this.o.now());
    this.counts.unconfirmed++;
    this.o.logger.warn('notification unconfirmed', {
      target: this.name,
      what: `a notification to ${this.name} got no answer within ${this.o.timeoutMs} ms twice: it may have arrived, and ${this.name} keeps no idempotency key, so it is not sent a third time (${this.o.scrub(m.text.slice(0, 80))})`,
    });
  }

  private failing(err: unknown): void {
    if (this.failingSince !== undefined) return;
    this.failingSince = this.o.now();
    const why = this.o.scrub(err instanceof Error ? `${err.message}${causeOf(err)}` : String(err));
    this.o.logger.warn('notifications failing', {
      target: this.name,
      what: `notifications to ${this.name} failing since ${new Date(this.failingSince).toISOString()}: ${why}; trading goes on, messages wait in the journal (at most ${this.o.queue}) and are resent with the same idempotency key`,
      error: why,
    });
  }

  private recovered(): void {
    if (this.failingSince === undefined) {
      this.droppedInOutage = 0;
      return;
    }
    const since = new Date(this.failingSince).toISOString();
    this.o.logger.info('notifications recovered', {
      target: this.name,
      what: `notifications to ${this.name} delivered again (failing since ${since}); ${this.droppedInOutage} messages dropped`,
      failingSince: since,
      dropped: this.droppedInOutage,
    });
    this.failingSince = undefined;
    this.droppedInOutage = 0;
  }
}

const causeOf = (e: Error): string => {
  const c = (e as { cause?: unknown }).cause;
  return c instanceof Error ? ` (${c.message})` : '';
};
