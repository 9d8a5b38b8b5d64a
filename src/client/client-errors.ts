// The RestClient's own errors: an answer too large to read, a Retry-After longer than the client waits, and a
// call ended by close(). The venue's refusals are the catalogue's errors (src/api/errors.ts).
import { ApiError, VenueError } from '../api/index.js';
import { formatDuration } from '../market/duration.js';
import { MAX_WAIT_MS } from './retry.js';

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
