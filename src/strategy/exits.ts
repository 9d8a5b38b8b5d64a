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

/**
 * The sentence for a ratio at or above its bound (a stop 100% or more below the entry is below a price of 0),
 * or undefined.
 */
const boundProblem = (what: string, d: Decimal, below: number | undefined): string | undefined =>
  below !== undefined && d.gte(below)
    ? `${what} must be at least 0 and below ${below} (${below * 100}%), got ${d.toFixed()} (${d.mul(100).toFixed()}%)`
    : undefined;

const ratio = (what: string, below?: number) =>
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
      const bound = boundProblem(what, d, below);
      if (bound !== undefined) {
        c.addIssue({ code: 'custom', message: bound });
        return z.NEVER;
      }
      return d;
    })
    .describe(
      `${what}, a ratio of the entry price: "0.05" is 5%${below === undefined ? '' : `, below ${below}`}`,
    );

const plainRatio = (what: string, below?: number) =>
  z
    .string({ error: `${what} must be a decimal string such as "0.05"` })
    .regex(/^\d+(\.\d+)?$/, `${what} must be a non-negative decimal string such as "0.05" (5%)`)
    .superRefine((v, c) => {
      if (!/^\d+(\.\d+)?$/.test(v)) return;
      const bound = boundProblem(what, new Decimal(v), below);
      if (bound !== undefined) c.addIssue({ code: 'custom', message: bound });
    })
    .describe(
      `${what}, a ratio of the entry price: "0.05" is 5%${below === undefined ? '' : `, below ${below}`}`,
    );

/** A count where 0 means off (no cooldown, no lock, no time exit). */
const countOrOff = (what: string) =>
  z
    .number({ error: `${what} must be a whole number, 0 or more` })
    .int(`${what} must be a whole number, 0 or more`)
    .nonnegative(`${what} must be a whole number, 0 or more (0: off)`);

function exitRulesShape<R extends z.ZodType>(ratio: (what: string, below?: number) => R) {
  return z
    .object({
      stopLoss: ratio('stop-loss distance below the entry price', 1).optional(),
      takeProfit: ratio('take-profit distance above the entry price').optional(),
      trailingStop: z
        .object({
          distance: ratio('trailing distance below the highest price since entry', 1),
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
      maxTradeMinutes: countOrOff('maxTradeMinutes')
        .optional()
        .describe('time exit: close the position at market once it has been held this many minutes (0: off)'),
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

function protectionsShape<R extends z.ZodType, M extends z.ZodType>(
  ratio: (what: string, below?: number) => R,
  money: M,
) {
  return z
    .object({
      cooldownAfterStop: countOrOff('cooldownAfterStop')
        .optional()
        .describe('candles a symbol takes no new entry after a stop-loss or trailing-stop exit (0: none)'),
      maxDrawdown: z
        .object({
          ratio: ratio('drawdown of equity from its peak that locks entries', 1),
          lockCandles: countOrOff('lockCandles').describe('candles entries stay locked (0: off)'),
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
          lockCandles: countOrOff('lockCandles').describe('candles the symbol stays locked (0: off)'),
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
export const timeExitsSet = (r: ExitRules): boolean =>
  (r.maxTradeMinutes !== undefined && r.maxTradeMinutes > 0) || sessionEndArmed(r);

/** Whether the session-end exit is on: `true`, or a list of the sessions to be in the market in. */
export const sessionEndArmed = (r: ExitRules): boolean =>
  r.sessionEnd !== undefined && r.sessionEnd !== false;

/** Whether any protection is set. */
export const hasProtections = (p: Protections | undefined): boolean =>
  p !== undefined &&
  (p.cooldownAfterStop !== undefined || p.maxDrawdown !== undefined || p.lowProfitPair !== undefined);

const isTable = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !Decimal.isDecimal(v);

/**
 * The one rule for exits and protections over a strategy's declaration (a bot's or a backtest's YAML, a sweep's
 * grid): field by field, and inside an exit or protection that is a table (trailingStop, minimalRoi,
 * maxDrawdown, lowProfitPair) key by key, so `trailingStop: { distance: '0.01' }` keeps the declared
 * activation as `--grid exits.trailingStop.distance=0.01` does. A value that is not a table replaces the
 * declared one. Works on parsed rules (Decimals) and on plain data (decimal strings) alike.
 */
export function mergeRules<T extends object>(declared: T | undefined, own: T | undefined): T {
  const out: Record<string, unknown> = { ...(declared ?? {}) };
  for (const [k, v] of Object.entries(own ?? {})) {
    if (v === undefined) continue;
    const d = out[k];
    out[k] = isTable(d) && isTable(v) ? { ...d, ...v } : v;
  }
  return out as T;
}

/** Rules as plain data (Decimals as decimal strings): what YAML, result.json and a sweep worker carry. */
export const rulesAsData = (v: unknown): unknown =>
  Decimal.isDecimal(v)
    ? v.toFixed()
    : Array.isArray(v)
      ? v.map(rulesAsData)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rulesAsData(x)]))
        : v;

/** Exits or protections in one line, copyable into YAML (a JSON object is YAML): `none` when empty. */
export const rulesText = (rules: object | undefined): string =>
  rules === undefined || Object.keys(rules).length === 0 ? 'none' : JSON.stringify(rulesAsData(rules));

/** The bot's YAML over the strategy's declaration (mergeRules). */
export const mergeExitRules = (strategy: ExitRules | undefined, bot: ExitRules | undefined): ExitRules =>
  mergeRules(strategy, bot);
export const mergeProtections = (
  strategy: Protections | undefined,
  bot: Protections | undefined,
): Protections => mergeRules(strategy, bot);
