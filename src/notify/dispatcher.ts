// One notification target (a webhook, a Telegram chat) behind a bounded queue: `push` never waits (the
// trading pipeline calls it from its event emitter), a loop sends one message at a time within the rate
// limit, resends a failed one with backoff, and drops the oldest when the queue is full (counted).
// An outage is logged once when it starts and once when it ends, with what was dropped meanwhile.

/** Where a message goes. `send` rejects on any failure (network, timeout, non-2xx answer). */
export interface Channel {
  readonly name: string;
  send(text: string, signal: AbortSignal): Promise<void>;
}

/** The logger notifications write to (the daemon's). */
export interface NotifyLogger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export interface DispatcherOptions {
  readonly channel: Channel;
  readonly logger: NotifyLogger;
  /** Messages per minute at most. */
  readonly perMinute: number;
  /** Messages waiting at most; past it the oldest is dropped. */
  readonly queue: number;
  readonly timeoutMs: number;
  /** Resends of a failed message before it is dropped. */
  readonly retries: number;
  /** Removes secrets from a text that may have picked one up (an error message quoting a URL). */
  readonly scrub: (s: string) => string;
  /** Wall-clock time (network waits are real time), for the outage's start in the log. */
  readonly now: () => number;
  /** First backoff, doubled per resend up to 30 s (default 500 ms). */
  readonly backoffMs?: number | undefined;
}

const MAX_BACKOFF_MS = 30_000;

export class Dispatcher {
  private readonly pending: string[] = [];
  private running = false;
  private stopped = false;
  private lastSend = -Infinity;
  /** When the current outage began (undefined: none). */
  private failingSince: number | undefined;
  private droppedInOutage = 0;
  private wake: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];
  /** Totals, for tests and the summary. */
  readonly counts = { sent: 0, dropped: 0, failures: 0 };

  constructor(private readonly o: DispatcherOptions) {}

  get name(): string {
    return this.o.channel.name;
  }

  /** Queues a message; never waits, never throws. */
  push(text: string): void {
    if (this.stopped) return;
    this.pending.push(text);
    while (this.pending.length > this.o.queue) {
      this.pending.shift();
      this.dropped();
    }
    if (!this.running) {
      this.running = true;
      void this.loop();
    } else this.wake?.();
  }

  /** Resolves when the queue is empty (or after `ms`). */
  async flush(ms: number): Promise<void> {
    if (!this.running) return;
    await Promise.race([
      new Promise<void>((r) => this.idleWaiters.push(r)),
      new Promise<void>((r) => setTimeout(r, ms).unref()),
    ]);
  }

  stop(): void {
    if (this.failingSince !== undefined && !this.stopped)
      this.o.logger.warn('notifications still failing at stop', {
        target: this.name,
        what: `notifications to ${this.name} failing since ${new Date(this.failingSince).toISOString()}; ${this.droppedInOutage + this.pending.length} messages dropped`,
      });
    this.stopped = true;
    this.wake?.();
  }

  private dropped(): void {
    this.counts.dropped++;
    // Counted from the last delivery: a message pushed out while the first failing send was in flight
    // belongs to the outage too.
    this.droppedInOutage++;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        r();
      }, ms);
      t.unref();
      // A stop ends the wait at once; a new message does not (the rate limit still holds).
      this.wake = () => {
        if (!this.stopped) return;
        clearTimeout(t);
        r();
      };
    });
  }

  private async loop(): Promise<void> {
    const minGap = 60_000 / this.o.perMinute;
    try {
      while (!this.stopped && this.pending.length > 0) {
        const gap = this.lastSend + minGap - this.o.now();
        if (gap > 0) await this.sleep(gap);
        if (this.stopped) break;
        const text = this.pending[0];
        if (text === undefined) break;
        await this.deliver(text);
      }
    } finally {
      this.running = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Sends the head message, resending with backoff; it leaves the queue delivered or dropped. */
  private async deliver(text: string): Promise<void> {
    const backoff = this.o.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      this.lastSend = this.o.now();
      try {
        await this.o.channel.send(text, AbortSignal.timeout(this.o.timeoutMs));
        if (this.pending[0] === text) this.pending.shift();
        this.counts.sent++;
        this.recovered();
        return;
      } catch (err) {
        this.counts.failures++;
        this.failing(err);
        // The queue may have pushed this message out while it was being sent.
        if (this.pending[0] !== text) return;
        if (attempt >= this.o.retries || this.stopped) {
          this.pending.shift();
          this.dropped();
          return;
        }
        await this.sleep(Math.min(MAX_BACKOFF_MS, backoff * 2 ** attempt));
        if (this.stopped || this.pending[0] !== text) return;
      }
    }
  }

  private failing(err: unknown): void {
    if (this.failingSince !== undefined) return;
    this.failingSince = this.o.now();
    const why = this.o.scrub(err instanceof Error ? `${err.message}${causeOf(err)}` : String(err));
    this.o.logger.warn('notifications failing', {
      target: this.name,
      what: `notifications to ${this.name} failing since ${new Date(this.failingSince).toISOString()}: ${why}; trading goes on, messages wait (at most ${this.o.queue}, the oldest dropped)`,
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
