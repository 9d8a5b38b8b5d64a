// The retry policy: exponential backoff with full jitter, honouring Retry-After.
import { z } from 'zod';

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
  maxDelayMs: z.number().int().min(0).default(5_000).describe('cap of one backoff'),
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

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
