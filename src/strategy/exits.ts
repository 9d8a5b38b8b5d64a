// Declarative exits and protections: what a strategy (its `exits` / `protections`) or a bot's YAML asks
// the pipeline to do on its own. Declared here, in the strategy layer, so a strategy can name them; the
// trading pipeline evaluates them (src/execution/exits.ts, src/execution/protections.ts) in a backtest
// and live alike. Ratios are decimal strings in YAML ("0.05" is 5%), Decimals once parsed.
import { z } from 'zod';
import { SESSIONS } from '../api/index.js';
import { Decimal } from '../market/decimal.js';

/** Why the pipeline closed a position; the exit order's tag, the fill's `exitReason`. */
export const EXIT_REASONS = [
  'stop_loss',
  'trailing_stop',
  'take_profit',
  'minimal_roi',
  'time_exit',
  'session_end',
  /** A backtest's `closeAtEnd`: the position still open when the data ended, sold at the last close. */
  'end_of_backtest',
] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** Whether an order tag is one of the pipeline's exits. */
export const isExitReason = (tag: string): tag is ExitReason =>
  (EXIT_REASONS as readonly string[]).includes(tag);

const ratio = (what: string) =>
  z
    .union([z.string(), z.number(), z.instanceof(Decimal)])
    .transform((v, c) => {
      let d: Decimal | undefined;
      try {
        d = new Decimal(v);
      } catch {
        d = undefined;
      }
      if (d === undefined || !d.isFinite() || d.isNeg()) {
        c.addIssue({
          code: 'custom',
          message: `${what} must be a non-negative decimal ratio such as "0.05" (5%), got ${JSON.stringify(String(v))}`,
        });
        return z.NEVER;
      }
      return d;
    })
    .describe(`${what}, a ratio of the entry price: "0.05" is 5%`);

const plainRatio = (what: string) =>
  z
    .string({ error: `${what} must be a decimal string such as "0.05"` })
    .regex(/^\d+(\.\d+)?$/, `${what} must be a non-negative decimal string such as "0.05" (5%)`)
    .describe(`${what}, a ratio of the entry price: "0.05" is 5%`);

function exitRulesShape<R extends z.ZodType>(ratio: (what: string) => R) {
  return z
    .object({
      stopLoss: ratio('stop-loss distance below the entry price').optional(),
      takeProfit: ratio('take-profit distance above the entry price').optional(),
      trailingStop: z
        .object({
          distance: ratio('trailing distance below the highest price since entry'),
          activation: ratio('profit over the entry price before the trail starts (0: at once)').optional(),
        })
        .strict()
        .optional()
        .describe('a stop that follows the highest price since entry'),
      minimalRoi: z
        .record(
          z.string().regex(/^\d+$/, 'keys are whole minutes in trade, such as "0", "30", "60"'),
          ratio('profit'),
        )
        .optional()
        .describe(
          'freqtrade\'s minimal_roi: minutes in trade -> the profit at which to exit, e.g. {"0": "0.04", "60": "0.01"}',
        ),
      maxTradeMinutes: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('time exit: close the position at market once it has been held this many minutes'),
      sessionEnd: z
        .union([
          z.boolean(),
          z
            .array(z.enum(SESSIONS, { error: `each session must be one of ${SESSIONS.join(', ')}` }))
            .min(1, 'sessionEnd needs at least one session, such as [regular]'),
        ])
        .optional()
        .describe(
          'Reality tokens: close the position at market in the last candle before a US session the bot does not trade (true: its risk.allowedSessions) or outside the sessions listed (e.g. [regular]: flat at every regular close)',
        ),
    })
    .strict();
}
/** The exits of a strategy or a bot. Every field is optional; none set means no exit is evaluated. */
export const ExitRulesSchema = exitRulesShape(ratio);
export type ExitRules = z.output<typeof ExitRulesSchema>;
export type ExitRulesInput = z.input<typeof ExitRulesSchema>;
/** The same, kept as plain data (decimal strings) for YAML, JSON Schema and sweep workers. */
export const ExitRulesYamlSchema = exitRulesShape(plainRatio);

function protectionsShape<R extends z.ZodType, M extends z.ZodType>(ratio: (what: string) => R, money: M) {
  return z
    .object({
      cooldownAfterStop: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('candles a symbol takes no new entry after a stop-loss or trailing-stop exit'),
      maxDrawdown: z
        .object({
          ratio: ratio('drawdown of equity from its peak that locks entries'),
          lockCandles: z.number().int().positive().describe('candles entries stay locked'),
        })
        .strict()
        .optional()
        .describe('pause every entry of the bot after a drawdown'),
      lowProfitPair: z
        .object({
          trades: z.number().int().positive().describe('closed trades of the symbol looked at'),
          minProfit: money.describe(
            'profit ratio of those trades together below which the symbol is locked, e.g. "0" or "-0.02"',
          ),
          lockCandles: z.number().int().positive().describe('candles the symbol stays locked'),
        })
        .strict()
        .optional()
        .describe('lock a symbol whose last trades lost together'),
    })
    .strict();
}
/** Protections: locks on new entries after bad outcomes. Exits are never locked. */
export const ProtectionsSchema = protectionsShape(
  ratio,
  z.union([z.string(), z.number()]).transform((v) => new Decimal(v)),
);
export type Protections = z.output<typeof ProtectionsSchema>;
export type ProtectionsInput = z.input<typeof ProtectionsSchema>;
/** The same, kept as plain data (decimal strings) for YAML, JSON Schema and sweep workers. */
export const ProtectionsYamlSchema = protectionsShape(
  plainRatio,
  z.string().regex(/^-?\d+(\.\d+)?$/, 'minProfit must be a decimal string such as "0" or "-0.02"'),
);

/** Parses exit rules (a strategy's declaration or a bot's YAML), naming the field and the fix. */
export function parseExitRules(raw: unknown, where: string): ExitRules {
  const r = ExitRulesSchema.safeParse(raw ?? {});
  if (!r.success)
    throw new TypeError(
      `${where}: ${r.error.issues.map((i) => `${i.path.join('.') || 'exits'}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

/** Parses protections, naming the field and the fix. */
export function parseProtections(raw: unknown, where: string): Protections {
  const r = ProtectionsSchema.safeParse(raw ?? {});
  if (!r.success)
    throw new TypeError(
      `${where}: ${r.error.issues.map((i) => `${i.path.join('.') || 'protections'}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

/** Whether any exit is set (none: the pipeline does no exit work at all). */
export const hasExits = (r: ExitRules | undefined): boolean =>
  r !== undefined &&
  (r.stopLoss !== undefined ||
    r.takeProfit !== undefined ||
    r.trailingStop !== undefined ||
    r.minimalRoi !== undefined ||
    timeExitsSet(r));

/** Whether a time exit is set (maxTradeMinutes or sessionEnd): decided at a candle's close, not on its range. */
export const timeExitsSet = (r: ExitRules): boolean => r.maxTradeMinutes !== undefined || sessionEndArmed(r);

/** Whether the session-end exit is on: `true`, or a list of the sessions to be in the market in. */
export const sessionEndArmed = (r: ExitRules): boolean =>
  r.sessionEnd !== undefined && r.sessionEnd !== false;

/** Whether any protection is set. */
export const hasProtections = (p: Protections | undefined): boolean =>
  p !== undefined &&
  (p.cooldownAfterStop !== undefined || p.maxDrawdown !== undefined || p.lowProfitPair !== undefined);

/** The bot's YAML wins over the strategy's declaration, field by field. */
export function mergeExitRules(strategy: ExitRules | undefined, bot: ExitRules | undefined): ExitRules {
  return { ...(strategy ?? {}), ...(bot ?? {}) };
}
export function mergeProtections(
  strategy: Protections | undefined,
  bot: Protections | undefined,
): Protections {
  return { ...(strategy ?? {}), ...(bot ?? {}) };
}
