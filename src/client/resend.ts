// What a failed send leads to, the one place that decides whether a request goes out again: a success after all
// (a retry that found its first send done), a re-signed resend at once, a resend after a backoff, or the error.
import type { ApiError, EndpointDef, EndpointName } from '../api/index.js';
import { RetryAfterTooLongError } from './client-errors.js';
import { backoffDelay, type RetryPolicy } from './retry.js';

/** Whether sending the same request twice is harmless (so it may be retried). */
const IDEMPOTENT_POSTS: ReadonlySet<EndpointName> = new Set([
  'placeRealityOrder',
  'setLeverage',
  'cancelWithdrawal',
]);

/** Whether a failed request of this endpoint may be sent again: a GET, or a POST that cannot happen twice. */
export const mayResend = (name: EndpointName, def: EndpointDef): boolean =>
  def.method === 'GET' || IDEMPOTENT_POSTS.has(name);

/** A send that failed with `err`, and what the decision may read. */
export interface FailedSend {
  readonly name: EndpointName;
  /** The wire's clientOid of a place-reality-order. */
  readonly clientOid: string | undefined;
  /** This send's number, the first being 1. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** The endpoint may be sent again (mayResend). */
  readonly resendable: boolean;
  /** The client is closed: its caller is gone, nothing is resent. */
  readonly closed: boolean;
  readonly policy: RetryPolicy;
  readonly random: () => number;
  /** The venue's time now, Unix ms. */
  readonly venueNow: () => number;
  /** How long the call has taken so far, in ms. */
  readonly elapsedMs: () => number;
}

export type NextStep =
  /** The call succeeded after all: it resolves to `value`. */
  | { readonly next: 'return'; readonly value: unknown }
  /** Send again, at once (`afterMs` undefined) or after a backoff of `afterMs`. */
  | { readonly next: 'resend'; readonly afterMs?: number }
  /** The call fails with `error`. */
  | { readonly next: 'throw'; readonly error: ApiError };

/** What follows a send that failed with `err` (a 429's hold on the rate limiter is the client's to apply). */
export function afterFailure(err: ApiError, s: FailedSend): NextStep {
  if (s.attempt > 1 && s.name === 'placeRealityOrder' && err.kind === 'duplicate_order') {
    // A retry found the first send placed: that is the success we were after.
    return { next: 'return', value: { orderId: '', clientOid: s.clientOid ?? '', duplicate: true } };
  }
  if (s.attempt > 1 && s.name === 'cancelWithdrawal' && err.code === '95303')
    return { next: 'return', value: 'success' };
  if (s.attempt === 1 && (err.code === '90004' || err.code === '90008') && err.requestTime !== undefined) {
    // The refusal carried the venue's time and the offset is now learned: one immediate re-sign
    // and resend is safe (the request was refused, so nothing happened at the venue).
    return { next: 'resend' };
  }
  if (err.retryAfterMs !== undefined && err.retryAfterMs > s.policy.maxDelayMs) {
    // Waiting that long would hold the caller (a command, a bot's loop) for as long: fail now, saying when.
    return {
      next: 'throw',
      error: new RetryAfterTooLongError(err, s.policy.maxDelayMs, s.venueNow() + err.retryAfterMs),
    };
  }
  if (!s.resendable || !err.retryable || s.closed) return { next: 'throw', error: err };
  if (s.attempt >= s.maxAttempts) {
    // Say what the whole budget was, not only the last attempt: "no answer within 10000 ms"
    // alone hides that 4 attempts took 41 s.
    if (s.attempt > 1) {
      const secs = (s.elapsedMs() / 1000).toFixed(1);
      err.message = `${err.message.replace(/\.$/, '')}; gave up after ${s.attempt} attempts over ${secs} s`;
    }
    return { next: 'throw', error: err };
  }
  return { next: 'resend', afterMs: backoffDelay(s.policy, s.attempt, s.random, err.retryAfterMs) };
}
