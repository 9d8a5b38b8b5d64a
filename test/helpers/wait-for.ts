// Waits on the condition a test is about instead of a fixed sleep: polls until `condition` answers a
// truthy value, or fails after a generous cap with what was awaited, so a slow machine only waits longer.
export interface WaitOptions {
  /** The cap: fail after this many wall-clock milliseconds. */
  readonly timeoutMs: number;
  /** What is awaited, for the failure message ("3 orders at the venue"). */
  readonly what: string;
  /** Poll period (default 50 ms). */
  readonly intervalMs?: number;
  /** Extra detail for the failure message, read when the cap is reached (e.g. a log tail). */
  readonly detail?: () => string;
}

/** Resolves with the first truthy answer of `condition`; rejects after `timeoutMs`. */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { timeoutMs, what, intervalMs = 50, detail }: WaitOptions,
): Promise<NonNullable<T>> {
  const started = Date.now();
  for (;;) {
    const v = await condition();
    if (v !== undefined && v !== null && v !== false && v !== 0 && v !== '') return v as NonNullable<T>;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail()}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
