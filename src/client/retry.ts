// The retry policy: exponential backoff with full jitter, honouring Retry-After.
import { z } from 'zod';

/**
 * The longest one wait of the client may be, whatever its settings or the venue's Retry-After: ten minutes.
 * A venue that asks for more fails the call at once (RetryAfterTooLongError) instead of holding it.
 */
export const MAX_WAIT_MS = 600_000;

export const RetryPolicySchema = z.strictObject({
  maxAttempts: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(4)
    .describe('sends of one request, the first included'),
  baseDelayMs: z
    .number()
    .int()
    .min(0)
    .default(200)
    .describe('backoff before the second send, doubled each time'),
  maxDelayMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_MS)
    .default(5_000)
    .describe(
      "cap of one wait before a resend; a venue's Retry-After above it fails the call at once (RetryAfterTooLongError)",
    ),
});
export type RetryPolicy = z.output<typeof RetryPolicySchema>;
export const DEFAULT_RETRY: RetryPolicy = RetryPolicySchema.parse({});

/** Delay before send number `attempt + 1`, given the venue's Retry-After if any. */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number,
  retryAfterMs?: number,
): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.floor(random() * exp);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date. Whole milliseconds up to Number.MAX_SAFE_INTEGER
 * (a string of a thousand nines is a long wait, not Infinity).
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const ms = /^\d+(\.\d+)?$/.test(value.trim()) ? Math.ceil(Number(value) * 1000) : Date.parse(value) - now;
  return Number.isNaN(ms) ? undefined : Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, ms));
}
