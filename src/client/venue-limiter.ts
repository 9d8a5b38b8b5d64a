// One rate limiter per venue (base URL) in a process, shared by every client, bot, feed and command
// that talks to it, so their requests add up against one budget the way the venue counts them (spec
// section 8): per IP for public endpoints (one budget per venue), per UID for account endpoints (one
// budget per API key).
//
// The venue counts requests on arrival in a sliding one-second window. A bucket that refills at
// exactly the venue's rate and takes the token before sending overshoots as soon as network jitter
// brings two requests closer on arrival than they left. So each budget spaces its requests evenly at
// a headroom below the limit, and never closer than (window + jitter) / limit: then no window of
// arrivals can hold more requests than the limit, whatever the jitter up to that allowance.
// A 429 that still arrives halves that budget's rate (AIMD) and each success gives a little back.
import {
  ENDPOINTS,
  ValidationError,
  rateFor,
  rateGroupOf,
  type EndpointDef,
  type EndpointName,
} from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { scaledSleep } from '../feeds/time-scale.js';
import { MAX_WAIT_MS } from './retry.js';
import { WarningThrottle } from './warning-throttle.js';

/**
 * Waits `ms`; `signal`, when given, may end the wait early (a sleep that ignores it is still left at once by the
 * client, but its timer runs on).
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
/** Real time: ends early on `signal`, and never hands setTimeout more than it takes. */
export const realSleep: Sleep = scaledSleep(1);

/** Lower numbers leave first when several requests of one budget wait. */
export type RequestPriority = 0 | 1 | 2 | 3;

/**
 * Default priority of an endpoint's requests: orders and fills first, then prices, then reference data
 * (instruments, sessions), then company data.
 */
export function defaultPriority(name: EndpointName): RequestPriority {
  const def: EndpointDef = ENDPOINTS[name];
  if (def.group === 'trade' || def.group === 'account') return 0;
  if (name === 'instruments' || name === 'rpiSymbols') return 2;
  if (def.group === 'market') return 1;
  if (name === 'marketStates' || name === 'marketCalendar') return 2;
  return 3;
}

export interface VenueLimiterOptions {
  /** Fraction of each limit used (0 < headroom <= 1; default 0.8). */
  readonly headroom?: number | undefined;
  /**
   * Arrival jitter the spacing absorbs, in real milliseconds (default 10). Small, because the exact
   * bound (leave a window after the answer of the request `limit` places back) holds whatever the
   * jitter; the spacing only keeps requests from bunching up against that bound.
   */
  readonly jitterMs?: number | undefined;
  /** Venue milliseconds per real millisecond (an accelerated simulator; default 1). */
  readonly timeScale?: number | undefined;
  /** Called once per 429 answer the venue's limits gave, with the budget's name. */
  readonly onThrottled?: ((group: string) => void) | undefined;
  readonly logger?: { warn(message: string, fields?: Record<string, unknown>): void } | undefined;
}

/** Call when the request let through is settled (answered or failed). */
export type Done = () => void;

interface Waiter {
  readonly priority: RequestPriority;
  readonly seq: number;
  readonly resolve: (done: Done) => void;
}

const WINDOW_MS = 1000;
/** Lowest fraction of the rate AIMD may fall to. */
const MIN_FACTOR = 1 / 16;
/** Share of the full rate a success gives back after a slow-down. */
const INCREASE = 0.05;

/** One request let through: when it settled (undefined while in flight) and a wake-up for waiters. */
interface Flight {
  settledAt: number | undefined;
  readonly settled: Promise<void>;
  readonly settle: () => void;
}

class Budget {
  /** Venue time before which the next request may not leave. */
  next = Number.NEGATIVE_INFINITY;
  /** The last `limit` requests let through, oldest first. */
  readonly flights: Flight[] = [];
  factor = 1;
  throttleLogged = false;
  pumping = false;
  /** Ends the pump's current sleep: every waiter left (their clients closed), so there is nothing to wait for. */
  wake: AbortController | undefined;
  readonly waiting: Waiter[] = [];
  constructor(readonly name: string) {}
}

/** At most one slow-down warning per rate group per this many ms of real time. */
const THROTTLE_WARN_EVERY_MS = 10_000;

/** The limiter of one venue and account; get it with `VenueLimiter.for` to share it. */
export class VenueLimiter {
  private readonly budgets = new Map<string, Budget>();
  private readonly headroom: number;
  private readonly jitterVenueMs: number;
  private readonly throttledListeners = new Set<(group: string) => void>();
  private seq = 0;
  /** Requests let through so far (all budgets). */
  released = 0;
  /** Requests let through and not yet settled (all budgets). */
  inFlight = 0;
  /** Slow-downs said at most once per group every THROTTLE_WARN_EVERY_MS of real time. */
  private readonly throttleWarnings: WarningThrottle;

  constructor(
    private readonly clock: Clock,
    private readonly sleep: Sleep,
    private readonly options: VenueLimiterOptions = {},
  ) {
    const issues = [];
    const h = options.headroom ?? 0.8;
    if (typeof h !== 'number' || !(h > 0 && h <= 1))
      issues.push({ field: 'headroom', value: h, rule: 'headroom must be a number above 0 and at most 1' });
    const j = options.jitterMs ?? 10;
    if (typeof j !== 'number' || !(j >= 0 && Number.isFinite(j)))
      issues.push({ field: 'jitterMs', value: j, rule: 'jitterMs must be a finite number of ms >= 0' });
    const s = options.timeScale ?? 1;
    if (typeof s !== 'number' || !(s > 0 && Number.isFinite(s)))
      issues.push({ field: 'timeScale', value: s, rule: 'timeScale must be a finite number above 0' });
    if (issues.length > 0) throw new ValidationError('rateLimit', issues);
    this.headroom = h;
    this.jitterVenueMs = j * s;
    this.throttleWarnings = new WarningThrottle(clock, THROTTLE_WARN_EVERY_MS, s);
    if (options.onThrottled) this.throttledListeners.add(options.onThrottled);
  }

  /** Also tell `listener` of every 429 (e.g. a metrics counter); returns the unsubscribe. */
  onThrottled(listener: (group: string) => void): () => void {
    this.throttledListeners.add(listener);
    return () => this.throttledListeners.delete(listener);
  }

  /** Minimum venue milliseconds between two departures of a budget of `perSecond`. */
  spacingMs(perSecond: number, factor = 1): number {
    const rate = perSecond * factor;
    // Whole milliseconds, rounded up: never closer than the bound, and clocks stay on integers.
    return Math.ceil(Math.max(WINDOW_MS / (rate * this.headroom), (WINDOW_MS + this.jitterVenueMs) / rate));
  }

  /** Current rate factor of an endpoint's budget (1 until a 429 slows it down). */
  factorOf(name: EndpointName, apiKey?: string): number {
    return this.budgets.get(this.keyOf(name, apiKey))?.factor ?? 1;
  }

  private budget(group: string): Budget {
    let b = this.budgets.get(group);
    if (!b) {
      b = new Budget(group);
      this.budgets.set(group, b);
    }
    return b;
  }

  private keyOf(name: EndpointName, apiKey: string | undefined): string {
    const def: EndpointDef = ENDPOINTS[name];
    const group = rateGroupOf(def);
    return def.rateLimit.scope === 'uid' ? `${group}|uid:${apiKey ?? ''}` : group;
  }

  /**
   * Waits until a request of `name` may leave, then reserves its slot. `apiKey` names the account of
   * per-UID budgets; `priority` orders requests waiting on one budget (default by endpoint). When `signal`
   * aborts first (its client closed), the request leaves the queue and the promise rejects with the signal's reason.
   */
  acquire(
    name: EndpointName,
    account: { apiKey?: string | undefined; whitelisted?: boolean | undefined } = {},
    priority: RequestPriority = defaultPriority(name),
    signal?: AbortSignal,
  ): Promise<Done> {
    const def: EndpointDef = ENDPOINTS[name];
    const b = this.budget(this.keyOf(name, account.apiKey));
    const perSecond = rateFor(def, account.whitelisted ?? false);
    return new Promise<Done>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const leave = (): void => {
        const i = b.waiting.indexOf(w);
        if (i >= 0) b.waiting.splice(i, 1);
        // Nobody left to serve: the pump's sleep (a Retry-After, the spacing) would only keep the process up.
        if (b.waiting.length === 0) b.wake?.abort();
        reject(signal?.reason);
      };
      const w: Waiter = {
        priority,
        seq: this.seq++,
        resolve: (done) => {
          signal?.removeEventListener('abort', leave);
          resolve(done);
        },
      };
      signal?.addEventListener('abort', leave, { once: true });
      b.waiting.push(w);
      if (!b.pumping) void this.pump(b, perSecond);
    });
  }

  /**
   * The request of `name` may leave now, and its slot is taken: its Done; or undefined when it would have to
   * wait (a request queued before it, the spacing, the window of the request `limit` places back), and then
   * `acquire` queues it. No promise when nothing waits: the common case of a client within its budget.
   */
  tryAcquire(
    name: EndpointName,
    account: { apiKey?: string | undefined; whitelisted?: boolean | undefined } = {},
  ): Done | undefined {
    const def: EndpointDef = ENDPOINTS[name];
    const b = this.budget(this.keyOf(name, account.apiKey));
    if (b.pumping || b.waiting.length > 0) return undefined;
    const now = this.clock.now();
    if (b.next > now) return undefined;
    const perSecond = rateFor(def, account.whitelisted ?? false);
    if (b.flights.length >= perSecond) {
      const gate = b.flights[b.flights.length - perSecond] as Flight;
      if (gate.settledAt === undefined || gate.settledAt + WINDOW_MS > now) return undefined;
    }
    return this.release(b, perSecond);
  }

  /** Lets one request of budget `b` leave: the next may not before the spacing; its Done settles its flight. */
  private release(b: Budget, perSecond: number): Done {
    b.next = this.clock.now() + this.spacingMs(perSecond, b.factor);
    this.released++;
    this.inFlight++;
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((r) => (settle = r));
    const flight: Flight = { settledAt: undefined, settled, settle };
    b.flights.push(flight);
    if (b.flights.length > perSecond) b.flights.splice(0, b.flights.length - perSecond);
    return () => {
      if (flight.settledAt !== undefined) return;
      flight.settledAt = this.clock.now();
      this.inFlight--;
      flight.settle();
    };
  }

  private async pump(b: Budget, perSecond: number): Promise<void> {
    b.pumping = true;
    try {
      let slept = false;
      let compensated = false;
      while (b.waiting.length > 0) {
        const wait = b.next - this.clock.now();
        // Re-check after each sleep: a request of higher priority may have arrived meanwhile.
        if (wait > 0) {
          b.wake = new AbortController();
          await this.sleep(wait, b.wake.signal);
          b.wake = undefined;
          slept = true;
          continue;
        }
        // A wake-up late by L means the process was busy for L; the previous request may have sat
        // unsent for as long, so it may still be on its way: give it L more (once per departure).
        const late = slept && !compensated ? -wait : 0;
        slept = false;
        if (late > 0) {
          compensated = true;
          b.next = this.clock.now() + Math.min(late, this.spacingMs(perSecond, b.factor));
          continue;
        }
        // The exact bound, whatever the jitter: the request `limit` places back arrived at the venue
        // before it was answered, so leaving a window after its answer can never make `limit + 1`
        // arrivals in one window. While it is in flight, wait for it (a failure settles it too).
        if (b.flights.length >= perSecond) {
          const gate = b.flights[b.flights.length - perSecond] as Flight;
          if (gate.settledAt === undefined) {
            await gate.settled;
            continue;
          }
          if (gate.settledAt + WINDOW_MS > this.clock.now()) {
            b.next = gate.settledAt + WINDOW_MS;
            continue;
          }
        }
        let best = 0;
        for (let i = 1; i < b.waiting.length; i++) {
          const w = b.waiting[i] as Waiter;
          const cur = b.waiting[best] as Waiter;
          if (w.priority < cur.priority || (w.priority === cur.priority && w.seq < cur.seq)) best = i;
        }
        const [w] = b.waiting.splice(best, 1);
        compensated = false;
        w?.resolve(this.release(b, perSecond));
      }
    } finally {
      b.pumping = false;
    }
  }

  /** A request of `name` was answered without a rate-limit refusal: give back some rate. */
  succeeded(name: EndpointName, apiKey?: string): void {
    const b = this.budgets.get(this.keyOf(name, apiKey));
    if (b && b.factor < 1) {
      b.factor = Math.min(1, b.factor + INCREASE);
      if (b.factor === 1) b.throttleLogged = false;
    }
  }

  /**
   * The venue answered 429 to a request of `name`: halve its budget's rate, wait out Retry-After (at most
   * MAX_WAIT_MS: a venue asking for hours must not hold every request of the group that long; the client
   * passes its own, smaller cap and fails the call that got the long Retry-After).
   */
  throttled(name: EndpointName, apiKey?: string, retryAfterMs?: number): void {
    const group = rateGroupOf(ENDPOINTS[name]);
    const b = this.budget(this.keyOf(name, apiKey));
    b.factor = Math.max(MIN_FACTOR, b.factor / 2);
    if (retryAfterMs !== undefined && retryAfterMs > 0)
      b.next = Math.max(b.next, this.clock.now() + Math.min(retryAfterMs, MAX_WAIT_MS));
    for (const l of this.throttledListeners) l(group);
    if (!b.throttleLogged) {
      // Once per slow-down, not per 429, and at most once per group every 10 s of real time: bursts that
      // keep coming would otherwise repeat it every few seconds. The others count into the next one.
      b.throttleLogged = true;
      const said = this.throttleWarnings.pass(group, 'slow-down');
      if (said === undefined) return;
      this.options.logger?.warn('venue rate limit hit, slowing down', {
        group,
        rateFactor: b.factor,
        retryAfterMs,
        ...(said.total > 0 ? { slowDownsSinceLastWarning: said.total } : {}),
      });
    }
  }

  private static readonly shared = new WeakMap<Clock, Map<string, VenueLimiter>>();

  /**
   * The process's limiter of a venue on a clock: every client built with the same base URL and clock
   * gets the same instance (options of the first caller win; listeners of every caller are kept).
   */
  static for(baseUrl: string, clock: Clock, sleep: Sleep, options: VenueLimiterOptions = {}): VenueLimiter {
    let byVenue = VenueLimiter.shared.get(clock);
    if (!byVenue) {
      byVenue = new Map();
      VenueLimiter.shared.set(clock, byVenue);
    }
    const key = new URL(baseUrl).origin;
    let l = byVenue.get(key);
    if (!l) {
      l = new VenueLimiter(clock, sleep, options);
      byVenue.set(key, l);
    } else if (options.onThrottled) {
      l.onThrottled(options.onThrottled);
    }
    return l;
  }
}
