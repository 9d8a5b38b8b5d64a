// RestClient: one typed method per endpoint of the catalogue, generated from it (never written by
// hand per endpoint), with validation before sending, signing, per-endpoint token buckets, retries
// that can never double an order, timeouts, keep-alive and a clock offset learned from the venue.
import { randomUUID } from 'node:crypto';
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
  rateFor,
  sign,
  validateParams,
  type EndpointDef,
  type EndpointName,
  type Instrument,
  type ParamsIn,
  type ResponseOf,
} from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { liveClock, type Clock } from '../feeds/clock.js';
import { parseLossless } from './json.js';
import {
  DEFAULT_RETRY,
  RetryPolicySchema,
  backoffDelay,
  parseRetryAfter,
  type RetryPolicy,
} from './retry.js';
import { TokenBucket, realSleep, type Sleep } from './token-bucket.js';

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
  /** Per-attempt timeout (default 10 s). */
  readonly timeoutMs?: number | undefined;
  readonly retry?: Partial<RetryPolicy> | undefined;
  /** Whitelisted accounts may place 30 orders/s instead of 5 (spec section 8). */
  readonly whitelisted?: boolean | undefined;
  /** Turn the client-side token buckets off (benchmarks against a simulator without limits). */
  readonly rateLimit?: boolean | undefined;
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

const toWireValue = (key: string, v: unknown, endpoint: string): string | undefined => {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Decimal) return v.toFixed();
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) {
      throw new ValidationError(endpoint, [
        { field: key, value: v, rule: `${key} must be an integer when given as a number` },
      ]);
    }
    return String(v);
  }
  throw new ValidationError(endpoint, [{ field: key, value: v, rule: `${key} must be a string` }]);
};

/** Whether sending the same request twice is harmless (so it may be retried). */
const IDEMPOTENT_POSTS: ReadonlySet<EndpointName> = new Set([
  'placeRealityOrder',
  'setLeverage',
  'cancelWithdrawal',
]);

class RestClientCore {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly buckets = new Map<EndpointName, TokenBucket>();
  private readonly reality = new Set<string>();
  private offset: number | undefined;

  constructor(readonly options: RestClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`baseUrl must use http or https, got ${base.protocol}`);
    }
    this.base = base;
    this.agent =
      base.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.clock = options.clock ?? liveClock;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.retry = RetryPolicySchema.parse({ ...DEFAULT_RETRY, ...options.retry });
    this.timeoutMs = options.timeoutMs ?? 10_000;
    for (const s of options.realitySymbols ?? []) this.reality.add(s);
    for (const name of ENDPOINT_NAMES) {
      Object.defineProperty(this, name, {
        value: (params?: Record<string, unknown>) => this.request(name, params ?? {}),
        enumerable: false,
      });
      if (options.rateLimit !== false) {
        this.buckets.set(
          name,
          new TokenBucket(rateFor(ENDPOINTS[name], options.whitelisted ?? false), this.clock, this.sleep),
        );
      }
    }
  }

  /** Learned difference between the venue's clock and ours, in ms (venue - local). */
  get clockOffsetMs(): number {
    return this.offset ?? 0;
  }

  /** Whether the client knows a symbol to be a Reality stock token. */
  isRealitySymbol = (symbol: string): boolean => this.reality.has(symbol);

  /** Closes the keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }

  /** Calls any endpoint of the catalogue by name. */
  async request<N extends EndpointName>(
    name: N,
    params: ClientParams<N> | Record<string, unknown> = {},
  ): Promise<Result<N>> {
    const def: EndpointDef = ENDPOINTS[name];
    const wire: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      const s = toWireValue(k, v, name);
      if (s !== undefined) wire[k] = s;
    }
    if (name === 'placeRealityOrder' && wire.clientOid === undefined) {
      // A clientOid makes a retry safe: the venue refuses a second order under the same id.
      wire.clientOid = `tbc${randomUUID().replaceAll('-', '')}`;
    }
    const checked = validateParams(name, wire, { isRealitySymbol: this.isRealitySymbol });
    if (!checked.ok) throw new ValidationError(name, checked.issues);
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
    for (let attempt = 1; ; attempt++) {
      await this.buckets.get(name)?.take();
      try {
        const data = await this.once(def, wire);
        if (name === 'instruments') this.learnReality(data as Instrument[]);
        return data as Result<N>;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
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
        if (!retryable || !err.retryable || attempt >= this.retry.maxAttempts) throw err;
        const delay = backoffDelay(this.retry, attempt, this.random, err.retryAfterMs);
        this.options.logger?.warn('request failed, retrying', {
          endpoint: name,
          attempt,
          code: err.code,
          delayMs: delay,
        });
        await this.sleep(delay);
      }
    }
  }

  private learnReality(list: Instrument[]): void {
    for (const i of list) if (i.isReality === 'yes') this.reality.add(i.symbol);
  }

  private async once(def: EndpointDef, wire: Record<string, string>): Promise<unknown> {
    const query = def.method === 'GET' ? buildQueryString(wire) : '';
    const body = def.method === 'POST' ? JSON.stringify(wire) : '';
    const path = `${this.base.pathname.replace(/\/$/, '')}${def.path}`;
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
    return new Promise((resolve, reject) => {
      const req = mod.request(
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
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', (e) => reject(this.networkError(def, e)));
        },
      );
      req.setTimeout(this.timeoutMs, () => {
        req.destroy(
          new TimeoutError({
            kind: 'timeout',
            code: '90010',
            msg: `no answer within ${this.timeoutMs} ms`,
            endpoint: def.name,
            retryable: true,
          }),
        );
      });
      req.on('error', (e) => reject(e instanceof ApiError ? e : this.networkError(def, e)));
      if (body) req.write(body);
      req.end();
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
    let json: unknown;
    try {
      json =
        def.name === 'orderbook' || def.name === 'rpiOrderbook'
          ? parseLossless(res.body)
          : JSON.parse(res.body);
    } catch {
      if (res.status !== 200)
        throw apiErrorFor({
          code: String(res.status),
          msg: `HTTP ${res.status}`,
          endpoint: def.name,
          httpStatus: res.status,
          retryAfterMs,
        });
      throw new VenueError({
        kind: 'venue',
        code: 'MALFORMED',
        msg: 'the venue answered malformed JSON',
        endpoint: def.name,
        httpStatus: res.status,
        retryable: true,
      });
    }
    const env = EnvelopeSchema.safeParse(json);
    if (!env.success) {
      if (res.status !== 200)
        throw apiErrorFor({
          code: String(res.status),
          msg: `HTTP ${res.status}`,
          endpoint: def.name,
          httpStatus: res.status,
          retryAfterMs,
        });
      throw new VenueError({
        kind: 'venue',
        code: 'MALFORMED',
        msg: 'the answer is not a v3 envelope',
        endpoint: def.name,
        httpStatus: res.status,
        retryable: true,
      });
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
