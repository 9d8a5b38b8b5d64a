// Seeded fault injection for the daemon's reliability tests: latency, 5xx answers, dropped
// connections, malformed JSON and bursts of 429. Decisions come from a seeded PRNG in request order.
import { z } from 'zod';
import { Prng } from './rng.js';

/** A share of requests, from 0 to 1; the caller names the field or the flag. */
const share = () => {
  const why = 'must be a share from 0 to 1, such as 0.05';
  return z.number({ error: why }).min(0, why).max(1, why);
};
/** Longest added latency: a minute; longer is a dropped connection (dropRate), not a slow one. */
export const MAX_FAULT_LATENCY_MS = 60_000;
const latency = () => {
  const why = `must be a whole number of milliseconds from 0 to ${MAX_FAULT_LATENCY_MS}`;
  return z.number({ error: why }).int(why).min(0, why).max(MAX_FAULT_LATENCY_MS, why);
};

/** Fault configuration (all off by default). Shares are probabilities per request. */
export const FaultConfigSchema = z.strictObject({
  /** Added latency, uniformly in [min, max] real milliseconds. */
  latencyMs: z
    .tuple([latency(), latency()], { error: 'must be [min, max] in milliseconds, such as [10, 50]' })
    .refine(([a, b]) => a <= b, 'its minimum must not exceed its maximum')
    .optional(),
  /** Share of requests answered with HTTP 500/503. */
  errorRate: share().optional(),
  /** Share of requests whose connection is destroyed without an answer. */
  dropRate: share().optional(),
  /** Share of requests answered with a truncated (malformed) JSON body. */
  malformedRate: share().optional(),
  /** Share of requests that start a burst of 429 answers. */
  burst429Rate: share().optional(),
  /** Length of a 429 burst in requests (default 5). */
  burst429Length: z.number().int().min(1).max(1000).optional(),
  /** Seed of the fault sequence (default: the simulator seed). */
  seed: z.number().int().optional(),
});
export type FaultConfig = z.infer<typeof FaultConfigSchema>;

export type FaultAction = 'none' | 'error' | 'drop' | 'malformed' | 'rate_limit';

/** Decides, request by request, which fault (if any) to inject. */
export class FaultInjector {
  private cfg: FaultConfig = {};
  private rng: Prng;
  private burstLeft = 0;

  constructor(
    private readonly defaultSeed: number,
    cfg: FaultConfig = {},
  ) {
    this.rng = new Prng(defaultSeed);
    this.set(cfg);
  }

  /** Replaces the configuration (validated) and restarts the seeded sequence. */
  set(cfg: FaultConfig): FaultConfig {
    const parsed = FaultConfigSchema.safeParse(cfg);
    if (!parsed.success) {
      throw new Error(
        `faults: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ')}`,
      );
    }
    this.cfg = parsed.data;
    this.rng = new Prng(this.cfg.seed ?? this.defaultSeed);
    this.burstLeft = 0;
    return this.cfg;
  }

  get config(): FaultConfig {
    return this.cfg;
  }

  get active(): boolean {
    const c = this.cfg;
    return !!(c.latencyMs || c.errorRate || c.dropRate || c.malformedRate || c.burst429Rate);
  }

  /** The fault for the next request and the latency to add before answering. */
  next(): { action: FaultAction; latencyMs: number } {
    const c = this.cfg;
    const latencyMs = c.latencyMs
      ? c.latencyMs[0] + Math.floor(this.rng.next() * (c.latencyMs[1] - c.latencyMs[0] + 1))
      : 0;
    if (this.burstLeft > 0) {
      this.burstLeft--;
      return { action: 'rate_limit', latencyMs };
    }
    const u = this.rng.next();
    let edge = 0;
    const hit = (rate: number | undefined): boolean => {
      edge += rate ?? 0;
      return u < edge;
    };
    if (hit(c.dropRate)) return { action: 'drop', latencyMs };
    if (hit(c.errorRate)) return { action: 'error', latencyMs };
    if (hit(c.malformedRate)) return { action: 'malformed', latencyMs };
    if (hit(c.burst429Rate)) {
      this.burstLeft = (c.burst429Length ?? 5) - 1;
      return { action: 'rate_limit', latencyMs };
    }
    return { action: 'none', latencyMs };
  }
}
