// The venue's front door without sockets: routes a request through the catalogue (by method and path), then
// authentication, rate limits and parameter validation (validateParams), to the engine, and renders
// the envelope. Everything here is derived from src/api, the same table the client is built from.
import type { EndpointDef, EndpointName } from '../api/index.js';
import {
  ENDPOINTS,
  ERROR_CODES,
  errorInfo,
  fail,
  ok,
  rateFor,
  rateGroupOf,
  validateParams,
} from '../api/index.js';
import { liveClock } from '../feeds/clock.js';
import { authenticate } from './auth.js';
import type { SimCredentials } from './auth.js';
import type { SimEngine } from './engine.js';
import { SimError } from './sim-error.js';
import { SlidingWindowLimiter } from './rate-limit.js';

/** A request as received, byte-exact where signing needs it. */
export interface GatewayRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** The query string exactly as received, without the '?'. */
  readonly rawQuery: string;
  readonly rawBody: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Caller address, the key of per-IP limits. */
  readonly ip: string;
}

export interface GatewayResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** The catalogue by `METHOD path`, the first entry winning as in `endpointFor`: one lookup per request. */
const ROUTES = new Map<string, EndpointDef>();
for (const e of Object.values(ENDPOINTS) as EndpointDef[]) {
  const key = `${e.method} ${e.path}`;
  if (!ROUTES.has(key)) ROUTES.set(key, e);
}

/**
 * The public market answers that are a pure function of (parameters, simulated time): the market model
 * is pure in (seed, instrument, time) and the instrument table never changes, so within one millisecond of
 * simulated time the same query string gets the same bytes (validation included: it depends on nothing
 * else). Pollers asking the same thing many times a millisecond are answered from `MarketAnswerCache`.
 */
const CACHED: ReadonlySet<string> = new Set<EndpointName>([
  'tickers',
  'orderbook',
  'rpiOrderbook',
  'candles',
  'historyCandles',
  'fills',
]);

/** The 200 answers of the CACHED endpoints at one instant of simulated time, by `name?rawQuery`. */
class MarketAnswerCache {
  private at = Number.NaN;
  private readonly answers = new Map<string, GatewayResponse>();

  get(key: string, now: number): GatewayResponse | undefined {
    if (now !== this.at) {
      this.at = now;
      this.answers.clear();
      return undefined;
    }
    return this.answers.get(key);
  }

  set(key: string, now: number, answer: GatewayResponse): void {
    // Many distinct queries in one millisecond: the map is emptied at the next one anyway.
    if (now === this.at && this.answers.size < 1000) this.answers.set(key, answer);
  }
}

/** Routes requests to the engine. */
export class Gateway {
  readonly limiter = new SlidingWindowLimiter();
  /** 429 answers given by the rate limits (not by injected faults), by budget: what a client should never see. */
  readonly rateLimited429 = new Map<string, number>();
  /**
   * Requests of the v3 API received, by path, counted on arrival (before an injected fault answers them):
   * how many times a client sent something, e.g. one order's sends under faults.
   */
  readonly received = new Map<string, number>();

  private readonly cache = new MarketAnswerCache();

  constructor(private readonly engine: SimEngine) {}

  private error(code: string, msg: string, now: number, extra: Record<string, string> = {}): GatewayResponse {
    const status = errorInfo(code)?.httpStatus ?? 400;
    return { status, body: JSON.stringify(fail(code, msg, now)), headers: { ...JSON_HEADERS, ...extra } };
  }

  /** A 429 answer with its Retry-After (whole seconds, at least 1). */
  rateLimited(now: number, retryAfterMs: number, what: string): GatewayResponse {
    return this.error('429', `${ERROR_CODES['429'].msg}: ${what}`, now, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    });
  }

  /** Handles one request of the v3 API. */
  handle(req: GatewayRequest): GatewayResponse {
    const now = this.engine.now();
    const def = ROUTES.get(`${req.method} ${req.path}`);
    if (!def) return this.error('90404', `Request URL NOT FOUND: ${req.method} ${req.path}`, now);
    const name = def.name as EndpointName;
    let account: SimCredentials | undefined;
    if (def.permission !== 'none') {
      const auth = authenticate(
        req,
        now,
        this.engine.credentials,
        def.permission,
        def.whitelist,
        liveClock.now(),
        this.engine.clock.speed,
      );
      if (!auth.ok) return this.error(auth.code, auth.msg, now);
      account = auth.account;
    }
    if (this.engine.rateLimits) {
      const limited = this.checkRate(def, account, req.ip, now);
      if (limited) return limited;
    }
    const cacheKey = CACHED.has(name) ? `${name}?${req.rawQuery}` : undefined;
    const cached = cacheKey === undefined ? undefined : this.cache.get(cacheKey, now);
    if (cached) return cached;
    const params = this.paramsOf(req, def);
    if (!params.ok) return this.error('90017', params.msg, now);
    const v = validateParams(name, params.value, { isRealitySymbol: this.engine.isRealitySymbol, now });
    if (!v.ok) {
      const missing = v.issues.some((i) => i.value === undefined && i.field !== '');
      const msg = v.issues.map((i) => `${i.field || '(parameters)'}: ${i.rule}`).join('; ');
      return this.error(missing ? '90019' : '90017', msg, now);
    }
    try {
      const locale = req.headers.locale;
      const result = this.engine.handle(
        name,
        v.value,
        { account, locale: Array.isArray(locale) ? locale[0] : locale },
        now,
      );
      const body =
        'raw' in result
          ? `{"code":"00000","msg":"success","requestTime":${now},"data":${result.raw}}`
          : JSON.stringify(ok(result.data, now));
      const answer = { status: 200, body, headers: JSON_HEADERS };
      if (cacheKey !== undefined) this.cache.set(cacheKey, now, answer);
      return answer;
    } catch (err) {
      if (err instanceof SimError) return this.error(err.code, err.message, now);
      return this.error('90015', `System error: ${err instanceof Error ? err.message : String(err)}`, now);
    }
  }

  private checkRate(
    def: EndpointDef,
    account: SimCredentials | undefined,
    ip: string,
    now: number,
  ): GatewayResponse | undefined {
    const scope = def.rateLimit.scope === 'uid' && account ? `uid:${account.uid}` : `ip:${ip}`;
    const limit = rateFor(def, account?.whitelisted ?? false);
    // The reality-market group shares one budget across its endpoints (spec section 8, one row for all).
    const group = rateGroupOf(def);
    const r = this.limiter.take(`${group}|${scope}`, limit, now);
    if (r.ok) return undefined;
    this.rateLimited429.set(group, (this.rateLimited429.get(group) ?? 0) + 1);
    const what = def.rateLimit.shared
      ? `all GET /api/v3/reality/market/* endpoints share ${limit} request per second per IP`
      : `${def.path} allows ${limit} requests per second per ${def.rateLimit.scope === 'uid' ? 'UID' : 'IP'}`;
    return this.rateLimited(now, r.retryAfterMs, what);
  }

  private paramsOf(
    req: GatewayRequest,
    def: EndpointDef,
  ): { ok: true; value: Record<string, unknown> } | { ok: false; msg: string } {
    if (def.method === 'GET') {
      const value: Record<string, unknown> = {};
      for (const [k, v] of new URLSearchParams(req.rawQuery)) value[k] = v;
      return { ok: true, value };
    }
    if (req.rawBody.trim() === '') return { ok: true, value: {} };
    let parsed: unknown;
    try {
      parsed = JSON.parse(req.rawBody);
    } catch {
      return {
        ok: false,
        msg: 'body: the request body must be a JSON object (Content-Type application/json)',
      };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return { ok: false, msg: 'body: the request body must be a JSON object of string parameters' };
    }
    return { ok: true, value: parsed as Record<string, unknown> };
  }
}
