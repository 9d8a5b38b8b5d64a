// RestClient: one typed method per endpoint of the catalogue, generated from it (never written by
// hand per endpoint), with validation before sending, signing, the venue's shared rate limiter, retries
// that can never double an order, timeouts, keep-alive and a clock offset learned from the venue.
// The parts are beside it: options (client-options.ts), parameters (wire-params.ts), one HTTP exchange
// (http-send.ts), reading the answer (read-answer.ts), the decision to resend (resend.ts), its errors.
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import {
  ApiError,
  AuthError,
  ENDPOINT_NAMES,
  ValidationError,
  buildQueryString,
  isPrivate,
  signer,
  type EndpointDef,
  type EndpointName,
  type Instrument,
  type ResponseOf,
} from '../api/index.js';
import { liveClock, type Clock } from '../feeds/clock.js';
import type { Timed } from '../feeds/source.js';
import { ClientClosedError } from './client-errors.js';
import { checkOptions, type RestClientOptions } from './client-options.js';
import { Deadlines, sendHttp, type HttpTarget, type RawResponse } from './http-send.js';
import { answerData, readEnvelope } from './read-answer.js';
import { afterFailure, mayResend } from './resend.js';
import { DEFAULT_RETRY, RetryPolicySchema, type RetryPolicy } from './retry.js';
import { VenueLimiter, realSleep, type RequestPriority, type Sleep } from './venue-limiter.js';
import { WarningThrottle } from './warning-throttle.js';
import {
  callOptions,
  endpointOf,
  wireParams,
  type ClientParams,
  type RequestOptions,
} from './wire-params.js';

export { ClientClosedError, ResponseTooLargeError, RetryAfterTooLongError } from './client-errors.js';
export type { Timed } from '../feeds/source.js';
export type { AnswerTime, ClientLogger, Credentials, RestClientOptions } from './client-options.js';
export type { ClientParams, RequestOptions } from './wire-params.js';

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

/** At most one retry warning per this many ms (see RestClientCore.logRetry). */
export const RETRY_WARN_EVERY_MS = 10_000;

class RestClientCore {
  /** The venue's address, the keep-alive agent and the limits of one answer. */
  private readonly target: HttpTarget;
  /** Aborted by close(): waiting calls end, failures are no longer retried, new calls are refused. */
  private readonly closing = new AbortController();
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  /** The process's limiter of this venue, or undefined when rate limiting is off. */
  readonly limiter: VenueLimiter | undefined;
  private readonly reality = new Set<string>();
  private readonly basePath: string;
  private offset: number | undefined;
  /** Retries said at warn at most once every RETRY_WARN_EVERY_MS of real time. */
  private readonly retryWarnings: WarningThrottle;
  /** The headers every request carries (Host, Content-Type, locale), as name, value pairs. */
  private readonly commonHeaders: readonly string[];
  /** ACCESS-SIGN of a request, by the configured secret (undefined without credentials). */
  private readonly signRequest: ReturnType<typeof signer> | undefined;

  constructor(readonly options: RestClientOptions) {
    const checked = checkOptions(options);
    if (checked.issues.length > 0 || !checked.base) throw new ValidationError('RestClient', checked.issues);
    const base = checked.base;
    this.basePath = base.pathname.replace(/\/$/, '');
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.target = {
      base,
      agent:
        base.protocol === 'https:'
          ? new https.Agent({ keepAlive: true })
          : new http.Agent({ keepAlive: true }),
      timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? 16 * 1024 * 1024,
      deadlines: new Deadlines(timeoutMs),
    };
    // URL.host is what node:http would send as Host: the hostname, and the port unless it is the default.
    this.commonHeaders = [
      'Host',
      base.host,
      'Content-Type',
      'application/json',
      'locale',
      options.locale ?? 'en-US',
    ];
    this.signRequest = options.credentials ? signer(options.credentials.apiSecret) : undefined;
    // Every call waiting in a backoff or the limiter listens to it: as many listeners as calls in flight.
    setMaxListeners(0, this.closing.signal);
    this.clock = options.clock ?? liveClock;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.retry = RetryPolicySchema.parse({ ...DEFAULT_RETRY, ...options.retry });
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

  /** The venue's time now, Unix ms (our clock plus the learned offset). */
  private readonly venueNow = (): number => this.clock.now() + this.clockOffsetMs;
  /** What checking a call's parameters reads; made once, not per call. */
  private readonly paramRules = { isRealitySymbol: this.isRealitySymbol, venueNow: this.venueNow };

  /**
   * Closes the keep-alive sockets and ends every call still waiting (a backoff, a Retry-After, the rate limiter)
   * with ClientClosedError; a request failing after this is not retried (its owner is gone), a new one is refused.
   */
  close(): void {
    this.closing.abort();
    this.target.agent.destroy();
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
  request<N extends EndpointName>(
    name: N,
    params: ClientParams<N> | Record<string, unknown> = {},
    opts: RequestOptions = {},
  ): Promise<Result<N>> {
    return this.call(name, params, opts, false) as Promise<Result<N>>;
  }

  /**
   * Calls an endpoint like `request`, answering its data with the envelope's requestTime: what the venue's
   * data was as of, e.g. which candles had closed (feeds/closed-candles.ts).
   */
  timed<N extends EndpointName>(
    name: N,
    params: ClientParams<N> | Record<string, unknown> = {},
    opts: RequestOptions = {},
  ): Promise<Timed<Result<N>>> {
    return this.call(name, params, opts, true) as Promise<Timed<Result<N>>>;
  }

  /**
   * `request` (the data alone) and `timed` (with the requestTime): the call checked, then sent. Not an async
   * function of its own, so a call is one promise deep above the exchange; a refusal is still a rejection.
   */
  private call(
    name: EndpointName,
    params: unknown,
    opts: RequestOptions,
    withTime: boolean,
  ): Promise<unknown> {
    try {
      const def = endpointOf(name);
      const wire = wireParams(name, params, opts.extra, this.paramRules);
      const { priority, maxAttempts } = callOptions(name, opts, this.retry.maxAttempts);
      if (isPrivate(def) && this.options.credentials === undefined) {
        throw new AuthError({
          kind: 'auth',
          code: '90001',
          msg: 'this endpoint needs credentials (apiKey, apiSecret, passphrase); none were configured',
          endpoint: name,
          retryable: false,
        });
      }
      return this.sendAndResend(name, def, wire, priority, maxAttempts, withTime);
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  /** Sends a checked request, and again as long as `afterFailure` says so: its answer, or the error for the caller. */
  private async sendAndResend(
    name: EndpointName,
    def: EndpointDef,
    wire: Record<string, string>,
    priority: RequestPriority | undefined,
    maxAttempts: number,
    withTime: boolean,
  ): Promise<unknown> {
    const resendable = mayResend(name, def);
    const apiKey = this.options.credentials?.apiKey;
    const startedAt = this.clock.now();
    for (let attempt = 1; ; attempt++) {
      // Without a limiter there is no budget to wait for: no promise to await.
      if (this.closed) throw new ClientClosedError(name);
      // Within the budget the slot is taken at once, without a promise; else the limiter queues the request.
      const done =
        this.limiter === undefined
          ? undefined
          : (this.limiter.tryAcquire(name, { apiKey, whitelisted: this.options.whitelisted }) ??
            (await this.admit(name, apiKey, priority)));
      try {
        const answer =
          done === undefined ? await this.once(def, wire) : await this.once(def, wire).finally(done);
        this.limiter?.succeeded(name, apiKey);
        if (name === 'instruments') this.learnReality(answer.data as Instrument[]);
        return withTime ? answer : answer.data;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.kind === 'rate_limit' && err.code === '429')
          this.limiter?.throttled(
            name,
            apiKey,
            err.retryAfterMs === undefined ? undefined : Math.min(err.retryAfterMs, this.retry.maxDelayMs),
          );
        const step = afterFailure(err, {
          name,
          clientOid: wire.clientOid,
          attempt,
          maxAttempts,
          resendable,
          closed: this.closed,
          policy: this.retry,
          random: this.random,
          venueNow: this.venueNow,
          elapsedMs: () => this.clock.now() - startedAt,
        });
        if (step.next === 'return')
          return withTime
            ? { data: step.value, requestTime: err.requestTime ?? this.venueNow() }
            : step.value;
        if (step.next === 'throw') throw step.error;
        if (step.afterMs !== undefined) {
          this.logRetry({ endpoint: name, attempt, code: err.code, delayMs: step.afterMs });
          await this.pause(step.afterMs, name);
        }
      }
    }
  }

  /** Waits for the rate budget of one send (none when rate limiting is off); ClientClosedError once closed. */
  private async admit(
    name: EndpointName,
    apiKey: string | undefined,
    priority: RequestPriority | undefined,
  ): Promise<(() => void) | undefined> {
    if (this.closed) throw new ClientClosedError(name);
    try {
      return await this.limiter?.acquire(
        name,
        { apiKey, whitelisted: this.options.whitelisted },
        priority,
        this.closing.signal,
      );
    } catch (e) {
      if (this.closed) throw new ClientClosedError(name);
      throw e;
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

  private once(def: EndpointDef, wire: Record<string, string>): Promise<Timed<unknown>> {
    const query = def.method === 'GET' ? buildQueryString(wire) : '';
    const body = def.method === 'POST' ? JSON.stringify(wire) : '';
    const path = `${this.basePath}${def.path}`;
    const headers = this.commonHeaders.slice();
    const c = this.options.credentials;
    if (isPrivate(def) && c !== undefined && this.signRequest !== undefined) {
      const ts = String(Math.round(this.clock.now() + this.clockOffsetMs));
      headers.push(
        'ACCESS-KEY',
        c.apiKey,
        'ACCESS-SIGN',
        this.signRequest(ts, def.method, def.path, query, body),
        'ACCESS-PASSPHRASE',
        c.passphrase,
        'ACCESS-TIMESTAMP',
        ts,
      );
    }
    if (def.name === 'placeRealityOrder' && this.options.channelApiCode) {
      headers.push('X-CHANNEL-API-CODE', this.options.channelApiCode);
    }
    const sentAt = this.clock.now();
    const sentRealMs = liveClock.now();
    return sendHttp(this.target, def, path + (query ? `?${query}` : ''), headers, body).then((res) =>
      this.answer(def, res, sentAt, sentRealMs),
    );
  }

  /** The answer to a request sent at `sentAt` (our clock) and `sentRealMs` (the wall clock): its data, or its error. */
  private answer(def: EndpointDef, res: RawResponse, sentAt: number, sentRealMs: number): Timed<unknown> {
    const now = this.clock.now();
    const receivedRealMs = liveClock.now();
    const env = readEnvelope(def, res, now);
    this.learnOffset(env.requestTime, sentAt, now);
    if (Number.isFinite(env.requestTime))
      this.options.onAnswerTime?.({ requestTime: env.requestTime, sentRealMs, receivedRealMs });
    return { data: answerData(def, res, env, this.options.logger), requestTime: env.requestTime };
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
