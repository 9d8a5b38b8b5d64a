// RestClient: one typed method per endpoint of the catalogue, generated from it (never written by
// hand per endpoint), with validation before sending, signing, the venue's shared rate limiter, retries
// that can never double an order, timeouts, keep-alive and a clock offset learned from the venue.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { z } from 'zod';
import {
  ApiError,
  AuthError,
  ENDPOINTS,
  ENDPOINT_NAMES,
  EnvelopeSchema,
  NetworkError,
  SUCCESS_CODE,
  TimeoutError,
  ValidationError,
  VenueError,
  apiErrorFor,
  drainUnknownWireValues,
  buildQueryString,
  isPrivate,
  sign,
  validateParams,
  type EndpointDef,
  type EndpointName,
  type Instrument,
  type ParamsIn,
  type ResponseOf,
  type ValidationIssue,
} from '../api/index.js';
import { baseUrlProblem } from './base-url.js';
import { Decimal } from '../market/decimal.js';
import { formatDuration } from '../market/duration.js';
import { liveClock, type Clock } from '../feeds/clock.js';
import { parseLossless } from './json.js';
import {
  DEFAULT_RETRY,
  MAX_WAIT_MS,
  RetryPolicySchema,
  backoffDelay,
  parseRetryAfter,
  type RetryPolicy,
} from './retry.js';
import {
  VenueLimiter,
  realSleep,
  type RequestPriority,
  type Sleep,
  type VenueLimiterOptions,
} from './venue-limiter.js';
import { WarningThrottle } from './warning-throttle.js';

export interface Credentials {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly passphrase: string;
}

/** Minimal logger; the client never logs secrets, passphrases or signatures. */
export interface ClientLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface RestClientOptions {
  /** e.g. https://api.example.com or a simulator's http://127.0.0.1:PORT */
  readonly baseUrl: string;
  readonly credentials?: Credentials | undefined;
  /** locale header (default en-US). */
  readonly locale?: string | undefined;
  /** X-CHANNEL-API-CODE sent with place-reality-order when set. */
  readonly channelApiCode?: string | undefined;
  /** Deadline of one attempt, from sending to the last byte of the answer (default 10 s). */
  readonly timeoutMs?: number | undefined;
  /** Largest answer body accepted, in bytes (default 16 MiB; a 1000-level book is about 80 kB). */
  readonly maxBodyBytes?: number | undefined;
  readonly retry?: Partial<RetryPolicy> | undefined;
  /** Whitelisted accounts may place 30 orders/s instead of 5 (spec section 8). */
  readonly whitelisted?: boolean | undefined;
  /**
   * The venue's rate limits: on by default through the process's one limiter of this venue (shared by
   * every client of the same base URL and clock); false turns them off (benchmarks against a simulator
   * without limits); an object tunes the limiter (its first user's options win); a VenueLimiter is used as is.
   */
  readonly rateLimit?: boolean | VenueLimiterOptions | VenueLimiter | undefined;
  readonly clock?: Clock | undefined;
  readonly sleep?: Sleep | undefined;
  readonly random?: (() => number) | undefined;
  /** Reality stock symbols known up front (the client also learns them from instruments answers). */
  readonly realitySymbols?: Iterable<string> | undefined;
  readonly logger?: ClientLogger | undefined;
}

type NumericKey = 'limit' | 'startTime' | 'endTime';
type DecimalKey = 'qty' | 'price' | 'leverage' | 'longLeverage' | 'shortLeverage';
type Widen<T> = {
  [K in keyof T]: K extends NumericKey ? T[K] | number : K extends DecimalKey ? T[K] | Decimal : T[K];
};
/** Parameters a client method takes: wire strings, integers for limits and times, Decimal for money. */
export type ClientParams<N extends EndpointName> = Widen<ParamsIn<N>>;

/** What place-reality-order resolves to: the venue's acknowledgement, or a retry that found it placed. */
export type PlaceOrderResult = ResponseOf<'placeRealityOrder'> & { readonly duplicate?: boolean };
type Result<N extends EndpointName> = N extends 'placeRealityOrder' ? PlaceOrderResult : ResponseOf<N>;

/** One method per catalogue endpoint. */
type NoRequired = Record<never, never>;
export type EndpointMethods = {
  [N in EndpointName]: NoRequired extends ClientParams<N>
    ? (params?: ClientParams<N>) => Promise<Result<N>>
    : (params: ClientParams<N>) => Promise<Result<N>>;
};

interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Options of one call of `client.request`. */
export interface RequestOptions {
  /**
   * Parameters the catalogue does not know, sent as given (strings) without validation: for a
   * parameter the venue adds before this library knows it. Unknown parameters in `params` are refused,
   * because a typo is the common case.
   */
  readonly extra?: Readonly<Record<string, string>> | undefined;
  /** Order among requests waiting on the same rate budget (0 first; default by endpoint). */
  readonly priority?: RequestPriority | undefined;
  /**
   * Sends of this request, the first included (default the client's `retry.maxAttempts`). A caller that
   * resends on its own passes 1, so that one owner decides how often a request goes out: the trading
   * pipeline's executor resends an order under its clientOid and journals each attempt.
   */
  readonly maxAttempts?: number | undefined;
}

const NUMERIC_KEYS: ReadonlySet<string> = new Set<NumericKey>(['limit', 'startTime', 'endTime']);
const shown = (v: unknown): unknown => (typeof v === 'bigint' ? `${v}n` : v);

/** A parameter as the wire wants it (a string), or the issue that keeps it from being sent. */
const toWireValue = (key: string, v: unknown): string | undefined | { rule: string } => {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Decimal) return v.toFixed();
  if (typeof v === 'number' && NUMERIC_KEYS.has(key)) {
    return Number.isSafeInteger(v) && v >= 0
      ? String(v)
      : { rule: `${key} must be a whole number >= 0 (or a string of digits)` };
  }
  if (typeof v === 'number' || typeof v === 'bigint') {
    // Money and ids are never JS numbers: 0.1 + 0.2 and 2**53 + 1 would reach the venue changed.
    return {
      rule: `${key} must be a string (decimal text such as "12.5") or a Decimal, not a JS ${typeof v}`,
    };
  }
  return { rule: `${key} must be a string` };
};

const isFn = (v: unknown): boolean => typeof v === 'function';
const HEADER_SAFE = /^[\x21-\x7e]+$/;
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Decimal);

/** Every option checked before anything is built, so a bad one is a ValidationError, never a crash later. */
function checkOptions(o: unknown): { issues: ValidationIssue[]; base?: URL } {
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(o)) {
    return {
      issues: [{ field: '(options)', value: o, rule: 'RestClient takes an options object with a baseUrl' }],
    };
  }
  let base: URL | undefined;
  const urlProblem = baseUrlProblem(o.baseUrl);
  if (urlProblem !== undefined) issues.push({ field: 'baseUrl', value: o.baseUrl, rule: urlProblem });
  else base = new URL(o.baseUrl as string);
  const posInt = (field: string, max: number) => {
    const v = o[field];
    if (v !== undefined && !(typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v <= max))
      issues.push({ field, value: v, rule: `${field} must be a whole number from 1 to ${max}` });
  };
  posInt('timeoutMs', 600_000);
  posInt('maxBodyBytes', 2 ** 31 - 1);
  if (o.credentials !== undefined) {
    if (!isPlainObject(o.credentials)) {
      issues.push({
        field: 'credentials',
        value: '(redacted)',
        rule: 'credentials must be an object { apiKey, apiSecret, passphrase }',
      });
    } else {
      for (const k of ['apiKey', 'apiSecret', 'passphrase'] as const) {
        const v = o.credentials[k];
        // Never echo a secret: the value is shown redacted.
        if (typeof v !== 'string' || v === '')
          issues.push({
            field: `credentials.${k}`,
            value: '(redacted)',
            rule: `${k} must be a non-empty string`,
          });
        else if (k !== 'apiSecret' && !HEADER_SAFE.test(v))
          issues.push({
            field: `credentials.${k}`,
            value: '(redacted)',
            rule: `${k} is sent as a header: printable ASCII without spaces only`,
          });
      }
    }
  }
  for (const k of ['locale', 'channelApiCode'] as const) {
    const v = o[k];
    if (v !== undefined && !(typeof v === 'string' && HEADER_SAFE.test(v)))
      issues.push({ field: k, value: v, rule: `${k} is sent as a header: printable ASCII without spaces` });
  }
  if (o.whitelisted !== undefined && typeof o.whitelisted !== 'boolean')
    issues.push({ field: 'whitelisted', value: o.whitelisted, rule: 'whitelisted must be true or false' });
  const rl = o.rateLimit;
  if (rl !== undefined && typeof rl !== 'boolean' && !isPlainObject(rl) && !(rl instanceof VenueLimiter))
    issues.push({
      field: 'rateLimit',
      value: rl,
      rule: 'rateLimit must be true, false, limiter options or a VenueLimiter',
    });
  for (const k of ['sleep', 'random'] as const) {
    if (o[k] !== undefined && !isFn(o[k]))
      issues.push({ field: k, value: o[k], rule: `${k} must be a function` });
  }
  const clock = o.clock as { now?: unknown } | undefined;
  if (clock !== undefined && !(typeof clock === 'object' && clock !== null && isFn(clock.now)))
    issues.push({ field: 'clock', value: clock, rule: 'clock must be an object with now(): number' });
  const logger = o.logger as { warn?: unknown; debug?: unknown } | undefined;
  if (
    logger !== undefined &&
    !(typeof logger === 'object' && logger !== null && isFn(logger.warn) && isFn(logger.debug))
  )
    issues.push({ field: 'logger', value: '(object)', rule: 'logger must have debug() and warn()' });
  if (o.retry !== undefined) {
    const r = RetryPolicySchema.safeParse({
      ...DEFAULT_RETRY,
      ...(isPlainObject(o.retry) ? o.retry : { x: o.retry }),
    });
    if (!r.success)
      for (const i of r.error.issues)
        issues.push({ field: `retry.${i.path.join('.')}`, value: undefined, rule: i.message });
  }
  if (o.realitySymbols !== undefined) {
    const rs = o.realitySymbols as { [Symbol.iterator]?: unknown };
    if (
      typeof rs !== 'object' ||
      rs === null ||
      !isFn(rs[Symbol.iterator]) ||
      typeof o.realitySymbols === 'string'
    )
      issues.push({
        field: 'realitySymbols',
        value: o.realitySymbols,
        rule: 'realitySymbols must be a list of symbols',
      });
  }
  return base ? { issues, base } : { issues };
}

/** The answer's body is larger than `maxBodyBytes`: never retried, the next answer would be as large. */
export class ResponseTooLargeError extends VenueError {}

/**
 * The venue asked (Retry-After) to wait longer than this client waits (`retry.maxDelayMs`): the call fails at
 * once instead of holding its caller for hours, with the venue's refusal as `cause` and the wait it asked for in
 * `retryAfterMs`. Not retryable: sending again before then is refused again.
 */
export class RetryAfterTooLongError extends ApiError {
  constructor(
    refusal: ApiError,
    /** The longest wait this client takes (its retry.maxDelayMs). */
    readonly capMs: number,
    /** When the venue will take requests again, by the venue's clock, in Unix ms. */
    readonly retryAt: number,
  ) {
    super({
      kind: refusal.kind,
      code: refusal.code,
      msg: refusal.msg,
      endpoint: refusal.endpoint,
      httpStatus: refusal.httpStatus,
      retryable: false,
      retryAfterMs: refusal.retryAfterMs,
      requestTime: refusal.requestTime,
      cause: refusal,
    });
    const asked = refusal.retryAfterMs ?? 0;
    const when = Math.abs(retryAt) <= 8.64e15 ? ` (until ${new Date(retryAt).toISOString()})` : '';
    this.message = `${refusal.endpoint}: the venue answered ${refusal.httpStatus ?? refusal.code} and asked to wait ${formatDuration(asked)}${when} before the next request (Retry-After), longer than this client waits (retry.maxDelayMs ${formatDuration(capMs)}); nothing was resent: try again later, or raise retry.maxDelayMs (at most ${formatDuration(MAX_WAIT_MS)})`;
  }
}

/** The client was closed while the call waited (a backoff, the rate limiter) or before it started. */
export class ClientClosedError extends ApiError {
  constructor(endpoint: string) {
    super({
      kind: 'network',
      code: 'CLOSED',
      msg: 'client closed',
      endpoint,
      // Nothing more was sent; an order may still have landed with an earlier send, so it stays unknown, not refused.
      retryable: true,
    });
    this.message = `${endpoint}: client closed before the call could finish; nothing more was sent (close() ends the calls still waiting)`;
  }
}

/** Whether sending the same request twice is harmless (so it may be retried). */
const IDEMPOTENT_POSTS: ReadonlySet<EndpointName> = new Set([
  'placeRealityOrder',
  'setLeverage',
  'cancelWithdrawal',
]);

/** At most one retry warning per this many ms (see RestClientCore.logRetry). */
export const RETRY_WARN_EVERY_MS = 10_000;

class RestClientCore {
  private readonly base: URL;
  private readonly agent: http.Agent;
  /** Aborted by close(): waiting calls end, failures are no longer retried, new calls are refused. */
  private readonly closing = new AbortController();
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  /** The process's limiter of this venue, or undefined when rate limiting is off. */
  readonly limiter: VenueLimiter | undefined;
  private readonly reality = new Set<string>();
  private readonly basePath: string;
  private offset: number | undefined;
  /** Retries said at warn at most once every RETRY_WARN_EVERY_MS of real time. */
  private readonly retryWarnings: WarningThrottle;

  constructor(readonly options: RestClientOptions) {
    const checked = checkOptions(options);
    if (checked.issues.length > 0 || !checked.base) throw new ValidationError('RestClient', checked.issues);
    const base = checked.base;
    this.base = base;
    this.basePath = base.pathname.replace(/\/$/, '');
    this.agent =
      base.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    // Every call waiting in a backoff or the limiter listens to it: as many listeners as calls in flight.
    setMaxListeners(0, this.closing.signal);
    this.clock = options.clock ?? liveClock;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.retry = RetryPolicySchema.parse({ ...DEFAULT_RETRY, ...options.retry });
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
    for (const s of options.realitySymbols ?? []) this.reality.add(String(s));
    const rl = options.rateLimit;
    this.limiter =
      rl === false
        ? undefined
        : rl instanceof VenueLimiter
          ? rl
          : VenueLimiter.for(base.href, this.clock, this.sleep, {
              logger: options.logger,
              ...(typeof rl === 'object' ? rl : {}),
            });
    // On an accelerated venue (the limiter's timeScale) the clock runs faster: the warnings stay 10 s apart in real time.
    this.retryWarnings = new WarningThrottle(
      this.clock,
      RETRY_WARN_EVERY_MS,
      typeof rl === 'object' && !(rl instanceof VenueLimiter) ? (rl.timeScale ?? 1) : 1,
    );
    for (const name of ENDPOINT_NAMES) {
      Object.defineProperty(this, name, {
        value: (params?: Record<string, unknown>) => this.request(name, params ?? {}),
        enumerable: false,
      });
    }
  }

  /** Learned difference between the venue's clock and ours, in ms (venue - local). */
  get clockOffsetMs(): number {
    return this.offset ?? 0;
  }

  /** Whether the client knows a symbol to be a Reality stock token. */
  isRealitySymbol = (symbol: string): boolean => this.reality.has(symbol);

  /**
   * Closes the keep-alive sockets and ends every call still waiting (a backoff, a Retry-After, the rate limiter)
   * with ClientClosedError; a request failing after this is not retried (its owner is gone), a new one is refused.
   */
  close(): void {
    this.closing.abort();
    this.agent.destroy();
  }

  private get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Sleeps `ms` (never more than the policy's cap) unless the client is closed first: then ClientClosedError. */
  private async pause(ms: number, endpoint: string): Promise<void> {
    const signal = this.closing.signal;
    let onClose: () => void = () => undefined;
    // The race ends the wait at close() even when an injected sleep ignores the signal.
    const closed = new Promise<void>((r) => (onClose = r));
    signal.addEventListener('abort', onClose, { once: true });
    try {
      if (!signal.aborted)
        await Promise.race([this.sleep(Math.min(ms, this.retry.maxDelayMs), signal), closed]);
    } finally {
      signal.removeEventListener('abort', onClose);
    }
    if (signal.aborted) throw new ClientClosedError(endpoint);
  }

  /** Calls any endpoint of the catalogue by name. */
  async request<N extends EndpointName>(
    name: N,
    params: ClientParams<N> | Record<string, unknown> = {},
    opts: RequestOptions = {},
  ): Promise<Result<N>> {
    if (typeof name !== 'string' || !Object.hasOwn(ENDPOINTS, name)) {
      throw new ValidationError(String(name), [
        {
          field: '(endpoint)',
          value: name,
          rule: `not an endpoint of the catalogue; one of ${ENDPOINT_NAMES.join(', ')}`,
        },
      ]);
    }
    const def: EndpointDef = ENDPOINTS[name];
    if (!isPlainObject(params)) {
      throw new ValidationError(name, [
        { field: '(parameters)', value: params, rule: 'parameters must be an object' },
      ]);
    }
    const wire: Record<string, string> = {};
    const issues: ValidationIssue[] = [];
    for (const [k, v] of Object.entries(params)) {
      const s = toWireValue(k, v);
      if (typeof s === 'string') wire[k] = s;
      else if (s !== undefined) issues.push({ field: k, value: shown(v), rule: s.rule });
    }
    if (issues.length > 0) throw new ValidationError(name, issues);
    if (name === 'placeRealityOrder' && wire.clientOid === undefined) {
      // A clientOid makes a retry safe: the venue refuses a second order under the same id.
      wire.clientOid = `tbc${randomUUID().replaceAll('-', '')}`;
    }
    const checked = validateParams(name, wire, {
      isRealitySymbol: this.isRealitySymbol,
      now: this.clock.now() + this.clockOffsetMs,
    });
    if (!checked.ok) throw new ValidationError(name, checked.issues);
    if (opts.extra !== undefined) {
      if (!isPlainObject(opts.extra)) {
        throw new ValidationError(name, [
          { field: 'extra', value: opts.extra, rule: 'extra must be an object of strings' },
        ]);
      }
      for (const [k, v] of Object.entries(opts.extra)) {
        if (typeof v !== 'string')
          issues.push({ field: `extra.${k}`, value: shown(v), rule: 'extra parameters must be strings' });
        else if (Object.hasOwn(wire, k))
          issues.push({
            field: `extra.${k}`,
            value: v,
            rule: `${k} is a known parameter: pass it in params`,
          });
        else wire[k] = v;
      }
      if (issues.length > 0) throw new ValidationError(name, issues);
    }
    const priority = opts.priority;
    if (priority !== undefined && ![0, 1, 2, 3].includes(priority)) {
      throw new ValidationError(name, [
        { field: 'priority', value: priority, rule: 'priority must be 0, 1, 2 or 3' },
      ]);
    }
    const maxAttempts = opts.maxAttempts ?? this.retry.maxAttempts;
    if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
      throw new ValidationError(name, [
        { field: 'maxAttempts', value: opts.maxAttempts, rule: 'maxAttempts must be a whole number >= 1' },
      ]);
    }
    if (isPrivate(def) && this.options.credentials === undefined) {
      throw new AuthError({
        kind: 'auth',
        code: '90001',
        msg: 'this endpoint needs credentials (apiKey, apiSecret, passphrase); none were configured',
        endpoint: name,
        retryable: false,
      });
    }
    const retryable = def.method === 'GET' || IDEMPOTENT_POSTS.has(name);
    const apiKey = this.options.credentials?.apiKey;
    const account = { apiKey, whitelisted: this.options.whitelisted };
    const startedAt = this.clock.now();
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new ClientClosedError(name);
      let done: (() => void) | undefined;
      try {
        done = await this.limiter?.acquire(name, account, priority, this.closing.signal);
      } catch (e) {
        if (this.closed) throw new ClientClosedError(name);
        throw e;
      }
      try {
        const data = await this.once(def, wire).finally(done);
        this.limiter?.succeeded(name, apiKey);
        if (name === 'instruments') this.learnReality(data as Instrument[]);
        return data as Result<N>;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.kind === 'rate_limit' && err.code === '429')
          this.limiter?.throttled(
            name,
            apiKey,
            err.retryAfterMs === undefined ? undefined : Math.min(err.retryAfterMs, this.retry.maxDelayMs),
          );
        if (attempt > 1 && name === 'placeRealityOrder' && err.kind === 'duplicate_order') {
          // A retry found the first send placed: that is the success we were after.
          return { orderId: '', clientOid: wire.clientOid ?? '', duplicate: true } as Result<N>;
        }
        if (attempt > 1 && name === 'cancelWithdrawal' && err.code === '95303') return 'success' as Result<N>;
        if (
          attempt === 1 &&
          (err.code === '90004' || err.code === '90008') &&
          err.requestTime !== undefined
        ) {
          // The refusal carried the venue's time and the offset is now learned: one immediate re-sign
          // and resend is safe (the request was refused, so nothing happened at the venue).
          continue;
        }
        if (err.retryAfterMs !== undefined && err.retryAfterMs > this.retry.maxDelayMs) {
          // Waiting that long would hold the caller (a command, a bot's loop) for as long: fail now, saying when.
          throw new RetryAfterTooLongError(
            err,
            this.retry.maxDelayMs,
            this.clock.now() + this.clockOffsetMs + err.retryAfterMs,
          );
        }
        if (!retryable || !err.retryable || this.closed) throw err;
        if (attempt >= maxAttempts) {
          // Say what the whole budget was, not only the last attempt: "no answer within 10000 ms"
          // alone hides that 4 attempts took 41 s.
          if (attempt > 1) {
            const secs = ((this.clock.now() - startedAt) / 1000).toFixed(1);
            err.message = `${err.message.replace(/\.$/, '')}; gave up after ${attempt} attempts over ${secs} s`;
          }
          throw err;
        }
        const delay = backoffDelay(this.retry, attempt, this.random, err.retryAfterMs);
        this.logRetry({ endpoint: name, attempt, code: err.code, delayMs: delay });
        await this.pause(delay, name);
      }
    }
  }

  /**
   * A retry, at warn at most once every RETRY_WARN_EVERY_MS of real time (the first of an outage is seen at once); the
   * others at debug, counted by code into the next warning, so a venue in trouble is a line every few
   * seconds rather than dozens a second.
   */
  private logRetry(f: { endpoint: string; attempt: number; code: string; delayMs: number }): void {
    const logger = this.options.logger;
    if (logger === undefined) return;
    const said = this.retryWarnings.pass('retry', f.code);
    if (said === undefined) {
      logger.debug('request failed, retrying', f);
      return;
    }
    const { total: more, kinds: codes } = said;
    logger.warn('request failed, retrying', {
      ...f,
      ...(more > 0 ? { retriedSinceLastWarning: more, codes } : {}),
      what: `${f.endpoint} failed (${f.code}); retry ${f.attempt} in ${f.delayMs} ms${more > 0 ? `; ${more} more retries since the last warning (${codes}), logged at debug` : ''}`,
    });
  }

  private learnReality(list: Instrument[]): void {
    for (const i of list) if (i.isReality === 'yes') this.reality.add(i.symbol);
  }

  private async once(def: EndpointDef, wire: Record<string, string>): Promise<unknown> {
    const query = def.method === 'GET' ? buildQueryString(wire) : '';
    const body = def.method === 'POST' ? JSON.stringify(wire) : '';
    const path = `${this.basePath}${def.path}`;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      locale: this.options.locale ?? 'en-US',
    };
    if (isPrivate(def) && this.options.credentials) {
      const c = this.options.credentials;
      const ts = String(Math.round(this.clock.now() + this.clockOffsetMs));
      headers['ACCESS-KEY'] = c.apiKey;
      headers['ACCESS-SIGN'] = sign(c.apiSecret, ts, def.method, def.path, query, body);
      headers['ACCESS-PASSPHRASE'] = c.passphrase;
      headers['ACCESS-TIMESTAMP'] = ts;
    }
    if (def.name === 'placeRealityOrder' && this.options.channelApiCode) {
      headers['X-CHANNEL-API-CODE'] = this.options.channelApiCode;
    }
    const sentAt = this.clock.now();
    const res = await this.send(def, path + (query ? `?${query}` : ''), headers, body);
    return this.parse(def, res, sentAt);
  }

  private send(
    def: EndpointDef,
    pathAndQuery: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<RawResponse> {
    const mod = this.base.protocol === 'https:' ? https : http;
    const limit = this.maxBodyBytes;
    return new Promise((resolve, reject) => {
      let settled = false;
      let gotHeaders = false;
      let received = 0;
      // One deadline over the whole answer, headers and body: a socket idle timeout alone lets a venue
      // that drips one byte a second hold a call forever.
      const fail = (e: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        req?.destroy();
        reject(e);
      };
      const deadline = setTimeout(() => {
        fail(
          new TimeoutError({
            kind: 'timeout',
            code: '90010',
            msg: gotHeaders
              ? `the answer's body was not complete within the ${this.timeoutMs} ms deadline (timeoutMs; ${received} bytes received)`
              : `no answer within the ${this.timeoutMs} ms deadline (timeoutMs)`,
            endpoint: def.name,
            retryable: true,
          }),
        );
      }, this.timeoutMs);
      const tooLarge = (size: number): VenueError =>
        new ResponseTooLargeError({
          kind: 'venue',
          code: 'TOO_LARGE',
          msg: `the answer's body exceeds maxBodyBytes ${limit} (${size} bytes or more); raise maxBodyBytes if the venue really sends that much`,
          endpoint: def.name,
          retryable: false,
        });
      let req: http.ClientRequest | undefined;
      try {
        req = mod.request(
          {
            protocol: this.base.protocol,
            hostname: this.base.hostname,
            port: this.base.port,
            method: def.method,
            path: pathAndQuery,
            headers: body ? { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } : headers,
            agent: this.agent,
          },
          (res) => {
            gotHeaders = true;
            res.on('error', (e) => fail(this.networkError(def, e)));
            res.on('aborted', () =>
              fail(this.networkError(def, new Error('the venue closed the answer midway'))),
            );
            const declared = Number(res.headers['content-length']);
            if (Number.isFinite(declared) && declared > limit) {
              fail(tooLarge(declared));
              return;
            }
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => {
              received += c.length;
              if (received > limit) fail(tooLarge(received));
              else chunks.push(c);
            });
            res.on('end', () => {
              if (settled) return;
              settled = true;
              clearTimeout(deadline);
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body:
                  chunks.length === 1
                    ? (chunks[0] as Buffer).toString('utf8')
                    : Buffer.concat(chunks).toString('utf8'),
              });
            });
          },
        );
        // Attached before anything else can happen to the request: an 'error' without a listener would
        // crash the host process.
        req.on('error', (e) => fail(e instanceof ApiError ? e : this.networkError(def, e)));
        // One write with the headers: a separate write for the body costs a second packet.
        if (body) req.end(body);
        else req.end();
      } catch (e) {
        // Options are checked at construction, so this is unexpected; still a rejection, never a throw.
        fail(this.networkError(def, e instanceof Error ? e : new Error(String(e))));
      }
    });
  }

  private networkError(def: EndpointDef, e: Error): NetworkError {
    return new NetworkError({
      kind: 'network',
      code: 'NETWORK',
      msg: e.message,
      endpoint: def.name,
      retryable: true,
      cause: e,
    });
  }

  private parse(def: EndpointDef, res: RawResponse, sentAt: number): unknown {
    const now = this.clock.now();
    const retryAfterMs = parseRetryAfter(
      Array.isArray(res.headers['retry-after']) ? res.headers['retry-after'][0] : res.headers['retry-after'],
      now,
    );
    // An answer that cannot be read: the HTTP status's error when there is one, else a malformed answer.
    const unreadable = (why: string): ApiError =>
      res.status !== 200
        ? apiErrorFor({
            code: String(res.status),
            msg: `HTTP ${res.status}`,
            endpoint: def.name,
            httpStatus: res.status,
            retryAfterMs,
          })
        : new VenueError({
            kind: 'venue',
            code: 'MALFORMED',
            msg: why,
            endpoint: def.name,
            httpStatus: res.status,
            retryable: true,
          });
    let json: unknown;
    try {
      json =
        def.name === 'orderbook' || def.name === 'rpiOrderbook'
          ? parseLossless(res.body)
          : JSON.parse(res.body);
    } catch {
      throw unreadable('the venue answered malformed JSON');
    }
    const env = EnvelopeSchema.safeParse(json);
    if (!env.success) {
      throw unreadable('the answer is not a v3 envelope');
    }
    const { code, msg, requestTime, data } = env.data;
    this.learnOffset(requestTime, sentAt, now);
    if (res.status !== 200 || code !== SUCCESS_CODE) {
      throw apiErrorFor({ code, msg, endpoint: def.name, httpStatus: res.status, retryAfterMs, requestTime });
    }
    const parsed = (def.response as z.ZodType).safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new VenueError({
        kind: 'venue',
        code: 'BAD_RESPONSE',
        msg: `unexpected answer at data.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
        endpoint: def.name,
        httpStatus: res.status,
        retryable: false,
      });
    }
    // Tolerant reading: unknown enum values parsed as strings; say so once per value.
    for (const u of drainUnknownWireValues()) {
      this.options.logger?.warn('unknown value in a venue answer', { endpoint: def.name, ...u });
    }
    return parsed.data;
  }

  private learnOffset(requestTime: number, sentAt: number, receivedAt: number): void {
    const sample = requestTime - (sentAt + receivedAt) / 2;
    // Smoothed, so one slow answer does not swing the signature timestamp; a jump of seconds (a clock
    // step on either side) is taken at once.
    this.offset =
      this.offset === undefined || Math.abs(sample - this.offset) > 5_000
        ? sample
        : this.offset * 0.7 + sample * 0.3;
  }
}

/** A typed REST client for every endpoint of the v3 API. */
export type RestClient = RestClientCore & EndpointMethods;

/**
 * @example
 * const client = new RestClient({ baseUrl: 'http://127.0.0.1:8080', credentials: { apiKey, apiSecret, passphrase } });
 * const [ticker] = await client.tickers({ category: 'SPOT', symbol: 'AAPLUSDT' });
 * const ack = await client.placeRealityOrder({ symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: '100' });
 */
export const RestClient = RestClientCore as unknown as new (options: RestClientOptions) => RestClient;
