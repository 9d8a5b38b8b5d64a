// Risk limits of a bot: a zod schema with a description and default for every field, shared by the
// YAML configuration and the gate. Money limits are decimal strings in YAML and Decimal after parsing.
import { z } from 'zod';
import { DECIMAL_RE, SESSIONS } from '../api/index.js';
import { Decimal } from '../market/decimal.js';

const money = (what: string) =>
  z
    .string({ error: `${what} must be a decimal string such as "500" (quoted, so YAML keeps it exact)` })
    .regex(DECIMAL_RE, `${what} must be a plain decimal string such as "500"`)
    .transform((s) => new Decimal(s))
    .optional()
    .describe(`${what}; absent means no limit`);

export const RiskLimitsSchema = z
  .strictObject({
    allowedSessions: z
      .array(z.enum(SESSIONS, { error: `each session must be one of ${SESSIONS.join(', ')}` }))
      .min(1, 'allowedSessions needs at least one session')
      .default(['regular'])
      .describe('US sessions in which Reality orders may be placed'),
    maxDataAgeMs: z
      .number()
      .int()
      .min(100)
      .default(15_000)
      .describe('market data older than this (ms) is stale and nothing trades on it'),
    whitelisted: z
      .boolean()
      .default(false)
      .describe('whitelisted accounts may place 30 orders/s instead of 5'),
    maxOrdersPerSecond: z
      .number()
      .int()
      .min(1)
      .max(30)
      .optional()
      .describe('order rate cap below the venue limit (default 5, or 30 when whitelisted)'),
    maxPositionQty: money('maximum base quantity held per symbol'),
    maxPositionNotional: money('maximum position value per symbol, in the quote coin'),
    maxOrderNotional: money('maximum value of one order, in the quote coin'),
    maxGrossExposure: money('maximum sum of |position| x price over all symbols, in the quote coin'),
    dailyLossLimit: money('loss from the start-of-day equity at which trading halts, in the quote coin'),
    marginSafety: z
      .string({ error: 'marginSafety must be a decimal string such as "0.1"' })
      .regex(DECIMAL_RE, 'marginSafety must be a plain decimal string such as "0.1"')
      .transform((s) => new Decimal(s))
      .optional()
      .describe(
        "MARGIN: how far below the pair's warningRiskRatio an order may leave the risk ratio; absent means 0.1 (below 0.7 when the warning is 0.8)",
      ),
    reduceAt: z
      .number()
      .min(0)
      .max(1)
      .default(0.8)
      .describe('share of dailyLossLimit at which the bot only reduces positions (REDUCING)'),
  })
  .describe('risk limits of a bot');

export type RiskLimits = z.output<typeof RiskLimitsSchema>;

/** The margin of safety below warningRiskRatio when `marginSafety` is absent. */
export const DEFAULT_MARGIN_SAFETY = new Decimal('0.1');
export type RiskLimitsInput = z.input<typeof RiskLimitsSchema>;

export const DEFAULT_RISK_LIMITS: RiskLimits = RiskLimitsSchema.parse({});

/** The plain (serialisable) form of parsed limits: Decimals back to strings, e.g. to send to a worker. */
export function riskLimitsToInput(l: RiskLimits): RiskLimitsInput {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(l))
    if (v !== undefined) out[k] = v instanceof Decimal ? v.toFixed() : v;
  return out as RiskLimitsInput;
}
