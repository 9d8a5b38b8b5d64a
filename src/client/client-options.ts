// The RestClient's options: what each may be, all checked before anything is built, so a bad one is a
// ValidationError naming the field, never a crash later. Secrets are never echoed in an issue.
import type { ValidationIssue } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { baseUrlProblem } from './base-url.js';
import { DEFAULT_RETRY, RetryPolicySchema, type RetryPolicy } from './retry.js';
import { VenueLimiter, type Sleep, type VenueLimiterOptions } from './venue-limiter.js';
import { isPlainObject } from './wire-params.js';

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
  /**
   * Told of every answer that carried the venue's requestTime, with when it was sent and received on the wall
   * clock (liveClock): a clock following the venue's time re-estimates itself from these (feeds/venue-clock.ts).
   */
  readonly onAnswerTime?: ((t: AnswerTime) => void) | undefined;
}

/** One answer's timing: the venue's requestTime, and the wall-clock ms the request was sent and answered at. */
export interface AnswerTime {
  readonly requestTime: number;
  readonly sentRealMs: number;
  readonly receivedRealMs: number;
}

const isFn = (v: unknown): boolean => typeof v === 'function';
/** What a header value may hold. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** Every option checked before anything is built, so a bad one is a ValidationError, never a crash later. */
export function checkOptions(o: unknown): { issues: ValidationIssue[]; base?: URL } {
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
  if (o.credentials !== undefined) issues.push(...credentialIssues(o.credentials));
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
  issues.push(...hookIssues(o));
  if (o.retry !== undefined) issues.push(...retryIssues(o.retry));
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

/** The credentials: three non-empty strings, the two sent as headers printable; each value shown redacted. */
function credentialIssues(credentials: unknown): ValidationIssue[] {
  if (!isPlainObject(credentials)) {
    return [
      {
        field: 'credentials',
        value: '(redacted)',
        rule: 'credentials must be an object { apiKey, apiSecret, passphrase }',
      },
    ];
  }
  const issues: ValidationIssue[] = [];
  for (const k of ['apiKey', 'apiSecret', 'passphrase'] as const) {
    const v = credentials[k];
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
  return issues;
}

/** What the client calls back: sleep, random, the clock and the logger. */
function hookIssues(o: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const k of ['sleep', 'random', 'onAnswerTime'] as const) {
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
  return issues;
}

/** The retry policy over its defaults, each issue at retry.<field>. */
function retryIssues(retry: unknown): ValidationIssue[] {
  const r = RetryPolicySchema.safeParse({
    ...DEFAULT_RETRY,
    ...(isPlainObject(retry) ? retry : { x: retry }),
  });
  return r.success
    ? []
    : r.error.issues.map((i) => ({ field: `retry.${i.path.join('.')}`, value: undefined, rule: i.message }));
}
