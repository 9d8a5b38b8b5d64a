// The simulator's options as a user writes them, in a deployment's `venue:` block or as `tradebot sim`
// flags: one schema per option, so both accept the same values and refuse the others with one sentence
// (the caller names the field or the flag).
import { z } from 'zod';
import { DECIMAL_RE } from '../api/index.js';
import { Decimal } from '../market/decimal.js';
import { DEFAULT_MARGIN_MODEL, type MarginModel } from '../market/margin.js';
import { MAX_EXTRA_PAIRS } from './instruments.js';

/** The longest interest period a simulator takes: a year. */
const MAX_INTEREST_PERIOD_MS = 31_536_000_000;

/** Fastest simulated time: an hour of market per real second. */
export const MAX_SIM_SPEED = 3600;

const port = 'must be a whole number from 0 (any free port) to 65535';
/** Port of the simulator's HTTP server; 0 picks a free one. */
export const SimPortSchema = z.number({ error: port }).int(port).min(0, port).max(65535, port);

/** Seed of the simulated market (same seed, same market). */
export const SimSeedSchema = z
  .number({ error: 'must be a whole number such as 42' })
  .int('must be a whole number such as 42');

const speed = `must be a number above 0 and at most ${MAX_SIM_SPEED} (1 = real time, 60 = a minute per second)`;
/** Simulated time per real time. */
export const SimSpeedSchema = z.number({ error: speed }).positive(speed).max(MAX_SIM_SPEED, speed);

const extraPairs = `must be a whole number from 0 to ${MAX_EXTRA_PAIRS} (synthetic Reality pairs XAAAUSDT, XAABUSDT, ...)`;
/** Synthetic Reality pairs listed beside the real ones, with the same rules. */
export const SimExtraPairsSchema = z
  .number({ error: extraPairs })
  .int(extraPairs)
  .min(0, extraPairs)
  .max(MAX_EXTRA_PAIRS, extraPairs);

const interestRate =
  'must be a plain decimal string, the share of the loan charged per period, at most 1, such as "0.00002"';
const interestPeriod = `must be a whole number of milliseconds from 1000 to ${MAX_INTEREST_PERIOD_MS} (a year), such as 3600000`;
/** The margin model of MARGIN loans (src/market/margin.ts): the simulator's, never the venue's rule. */
export const SimMarginModelSchema = z.strictObject({
  interestRate: z
    .string({ error: interestRate })
    .regex(DECIMAL_RE, interestRate)
    .refine((v) => !DECIMAL_RE.test(v) || new Decimal(v).lte(1), interestRate)
    .default(DEFAULT_MARGIN_MODEL.interestRate.toFixed()),
  interestPeriodMs: z
    .number({ error: interestPeriod })
    .int(interestPeriod)
    .min(1000, interestPeriod)
    .max(MAX_INTEREST_PERIOD_MS, interestPeriod)
    .default(DEFAULT_MARGIN_MODEL.interestPeriodMs),
});

/** The MarginModel of a validated `SimMarginModelSchema` value. */
export function marginModelOf(m: z.infer<typeof SimMarginModelSchema>): MarginModel {
  return { interestRate: new Decimal(m.interestRate), interestPeriodMs: m.interestPeriodMs };
}
