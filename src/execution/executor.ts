// The executor: an approved order is journaled (pending) BEFORE it is sent, under a deterministic
// clientOid; a timeout, a network error or a 5xx is resolved by sending again with the SAME clientOid
// (the venue's `alreadyPlaced` answer means the first one landed), never by a second order. It is the one
// owner of an order's resends: the Venue port sends once per call, so `maxAttempts` bounds the sends of
// one order on the wire, and each is journaled as an attempt.
import { ApiError } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { formatDuration } from '../market/duration.js';
import type { OrderRecord } from '../store/orders.js';
import type { OrderIntent } from '../strategy/intent.js';
import type { OrderJournal } from './journal.js';
import type { Venue, VenueOrder } from './venue.js';

export type OrderOutcome =
  | {
      readonly status: 'acked';
      readonly clientOid: string;
      readonly orderId: string;
      readonly alreadyPlaced: boolean;
    }
  | {
      readonly status: 'rejected';
      readonly clientOid: string;
      readonly code: string;
      readonly message: string;
    }
  /** Still unknown after every attempt: left pending in the journal; reconciliation resends it. */
  | { readonly status: 'pending'; readonly clientOid: string; readonly message: string };

export interface ExecutorHooks {
  onOrder?(outcome: OrderOutcome, order: VenueOrder, latencyMs: number): void;
}

export interface ExecutorLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface ExecutorOptions {
  readonly venue: Venue;
  /** Where an order is written before it is sent (SQLite live, memory in a backtest). */
  readonly journal: OrderJournal;
  readonly clock: Clock;
  readonly logger?: ExecutorLogger | undefined;
  /** Sends of one order before it is left pending for reconciliation (default 4): its sends on the wire. */
  readonly maxAttempts?: number | undefined;
  /** First backoff between sends (default 250 ms, doubled each time). */
  readonly backoffMs?: number | undefined;
  /**
   * The longest wait before a resend (default 30 s): a venue that asks for longer (Retry-After) leaves the
   * order pending for reconciliation now, instead of holding the bot's next candle and a graceful stop.
   */
  readonly maxResendWaitMs?: number | undefined;
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
  readonly hooks?: ExecutorHooks | undefined;
  /** Runs the journal writes that precede a send as one commit (the store's transaction); default: as they come. */
  readonly atomically?: (<T>(fn: () => T) => T) | undefined;
  /**
   * Runs the journal writes that precede a new order's send as one commit that may be shared with other
   * orders' (TraderJournal.beforeSend); the order is sent once it committed. Default: `atomically`.
   */
  readonly beforeSend?: (<T>(fn: () => T) => T | Promise<T>) | undefined;
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Places orders exactly once. */
export class Executor {
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly maxResendWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly inFlight = new Set<Promise<OrderOutcome>>();

  constructor(private readonly o: ExecutorOptions) {
    this.maxAttempts = o.maxAttempts ?? 4;
    this.backoffMs = o.backoffMs ?? 250;
    this.maxResendWaitMs = o.maxResendWaitMs ?? 30_000;
    this.sleep = o.sleep ?? realSleep;
  }

  /**
   * Journals then sends an order. Resolves once the venue acknowledged or refused it (or attempts ran out).
   * `alsoJournal` writes what belongs with the order (the pipeline's intent record): it, the order and
   * its first attempt are one commit, made before the order is sent.
   */
  place(
    order: VenueOrder,
    meta: { bot?: string | undefined; intent?: OrderIntent | undefined } = {},
    alsoJournal?: () => void,
  ): Promise<OrderOutcome> {
    const orders = this.o.journal;
    const commit = this.o.beforeSend ?? this.o.atomically ?? ((fn) => fn());
    const journaled = commit(() => {
      alsoJournal?.();
      // A new order is written with its first attempt counted; one journaled before (a replay) that was
      // never sent gets its attempt here, in the same commit; any other is decided in send().
      const { inserted, record } = orders.journal({
        order,
        bot: meta.bot,
        intent: meta.intent,
        firstAttempt: true,
      });
      if (inserted) return { record, attempted: true };
      const fresh = record.state === 'pending' && record.attempts === 0;
      if (fresh) orders.markAttempt(order.clientOid);
      return { record, attempted: fresh };
    });
    // Sent only once committed: at once when the commit was made here, else when the group's is.
    const p = (
      journaled instanceof Promise
        ? journaled.then(({ record, attempted }) => this.send(record, attempted))
        : this.send(journaled.record, journaled.attempted)
    ).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
    return p;
  }

  /** Sends a journaled order again (reconciliation after a restart). */
  resend(record: OrderRecord): Promise<OrderOutcome> {
    const p = this.send(record).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
    return p;
  }

  /** Resolves when every order in flight has an outcome (graceful stop). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  get pendingCount(): number {
    return this.inFlight.size;
  }

  /** `attempted`: the first attempt was journaled with the order already. */
  private async send(record: OrderRecord, attempted = false): Promise<OrderOutcome> {
    const { journal: orders, venue, clock, logger } = this.o;
    const order = record.order;
    const clientOid = order.clientOid;
    if (record.state === 'acked' && record.orderId !== undefined) {
      return { status: 'acked', clientOid, orderId: record.orderId, alreadyPlaced: true };
    }
    if (record.state === 'rejected') {
      return {
        status: 'rejected',
        clientOid,
        code: record.rejectCode ?? '',
        message: record.rejectMsg ?? '',
      };
    }
    const started = clock.now();
    let lastError = '';
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      if (attempt > 1 || !attempted) orders.markAttempt(clientOid);
      try {
        const placed = await venue.placeOrder(order);
        // A duplicate clientOid: an earlier send landed; the venue does not say that order's id.
        const orderId = placed.orderId ?? `dup:${clientOid}`;
        orders.markAcked(clientOid, orderId);
        return this.done(
          { status: 'acked', clientOid, orderId, alreadyPlaced: placed.alreadyPlaced },
          order,
          started,
        );
      } catch (err) {
        if (err instanceof ApiError && !err.retryable) {
          orders.markRejected(clientOid, err.code, err.msg);
          logger?.warn('order rejected', { clientOid, symbol: order.symbol, code: err.code, msg: err.msg });
          return this.done(
            { status: 'rejected', clientOid, code: err.code, message: err.msg },
            order,
            started,
          );
        }
        lastError = err instanceof Error ? err.message : String(err);
        logger?.warn('order send failed, will resend with the same clientOid', {
          clientOid,
          attempt,
          error: lastError,
        });
        if (attempt < this.maxAttempts) {
          const retryAfter = err instanceof ApiError ? err.retryAfterMs : undefined;
          const wait = Math.max(retryAfter ?? 0, this.backoffMs * 2 ** (attempt - 1));
          if (wait > this.maxResendWaitMs) {
            lastError = `${lastError}; the venue asked to wait ${formatDuration(wait)} before a resend, longer than the ${formatDuration(this.maxResendWaitMs)} a resend waits: left pending, resent by the reconciliation at the next start`;
            logger?.warn('order left pending', { clientOid, symbol: order.symbol, error: lastError });
            break;
          }
          await this.sleep(wait);
        }
      }
    }
    return this.done({ status: 'pending', clientOid, message: lastError }, order, started);
  }

  private done(outcome: OrderOutcome, order: VenueOrder, started: number): OrderOutcome {
    this.o.hooks?.onOrder?.(outcome, order, this.o.clock.now() - started);
    // An acknowledged order is logged by the daemon's subscriber of the pipeline's 'order' event, with units.
    return outcome;
  }
}
