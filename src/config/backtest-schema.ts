// A backtest definition (config/backtest.yaml): dataset, strategy, parameters and the fill model.
import { z } from 'zod';
import { CANDLE_INTERVALS, InstrumentSchema } from '../api/index.js';
import { RiskLimitsSchema } from '../risk/limits.js';
import { BotSchema, LeverageSchema, amountDecimal, feeRateDecimal, strategiesDirField } from './schema.js';
import { ExitRulesYamlSchema, ProtectionsYamlSchema } from '../strategy/exits.js';

/**
 * The name of a run, which names its results folder: one path segment (no `/`, no `..`), so the results stay
 * inside the results folder. The one rule for a name from YAML and from `--name`.
 */
export const RunNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'name must be lower-case letters, digits and dashes, e.g. sp500-ma');

/** The fields of a backtest definition, without the checks across them (`BacktestConfigSchema` has those). */
export const BacktestConfigFields = z
  .strictObject({
    name: RunNameSchema.default('backtest').describe(
      'name of the run (results go to backtest/results/<name>)',
    ),
    dataset: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
        error: 'dataset must be a dataset reference, or a list of them (one per symbol)',
      })
      .describe(
        'a recorded candle file (CSV/JSONL, .gz allowed; Feather/Arrow; Parquet) or a bundled dataset: sp500-daily, synthetic-<interval>:<seed>:<count>[:<SYMBOL>,<SYMBOL>...] (e.g. synthetic-1m:42:5000); a list of them (one symbol each, one interval) runs one backtest over several symbols with one capital',
      ),
    strategy: z
      .string()
      .min(1)
      .describe(
        'strategy name (your strategiesDir first, then the bundled ones) or a path to a .ts/.js module',
      ),
    strategiesDir: strategiesDirField,
    params: z.record(z.string(), z.unknown()).default({}).describe('strategy parameters'),
    interval: z
      .enum(CANDLE_INTERVALS, {
        error: `interval must be one of ${CANDLE_INTERVALS.join(', ')}: the interval the bot runs at`,
      })
      .optional()
      .describe(
        "interval the bot runs at, as a live bot's (default: the data's when the strategy declares it, else the strategy's first interval); data at a finer interval that divides it is resampled, other data is refused",
      ),
    instrument: InstrumentSchema.partial()
      .optional()
      .describe(
        'instrument rules (spec 2.1) for a dataset file without tradebot metadata, e.g. a freqtrade Feather file: at least pricePrecision and quantityPrecision',
      ),
    capital: amountDecimal('capital').default('10000').describe('starting cash in the quote coin'),
    feeRate: feeRateDecimal('feeRate').default('0.001').describe('taker fee rate'),
    makerFeeRate: feeRateDecimal('makerFeeRate').optional().describe('maker fee rate (default: feeRate)'),
    slippageBps: z.number().min(0).max(1000).default(2).describe('slippage of market orders in basis points'),
    risk: RiskLimitsSchema.default(
      RiskLimitsSchema.parse({
        allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
        maxDataAgeMs: 86_400_000 * 7,
      }),
    ),
    exits: ExitRulesYamlSchema.optional().describe(
      "exits the pipeline evaluates (stopLoss, takeProfit, trailingStop, minimalRoi, maxTradeMinutes, sessionEnd); each overrides the strategy's",
    ),
    protections: ProtectionsYamlSchema.optional().describe(
      "entry locks (cooldownAfterStop, maxDrawdown, lowProfitPair); each overrides the strategy's",
    ),
    closeAtEnd: z
      .boolean()
      .default(false)
      .describe(
        'sell the positions still open when the data ends at the last close, through the pipeline (exit reason end_of_backtest, fees charged), as freqtrade does; default false: they stay open, marked at the last close, and the summary lists them',
      ),
    category: BotSchema.shape.category.describe(
      "category of the orders, as a deployment's bot: MARGIN borrows within the leverage entries (docs/margin.md)",
    ),
    leverage: z
      .array(LeverageSchema)
      .default([])
      .describe(
        "a MARGIN backtest's leverage per coin at start, as a deployment's bot: { category: MARGIN, coin: AAPL, leverage: '3' }",
      ),
    from: z.string().optional().describe('first candle time to use (ISO date)'),
    to: z.string().optional().describe('last candle time to use (ISO date)'),
  })
  .describe('a backtest definition');

/**
 * What is wrong with a backtest's `category` and `leverage` together (a path and a sentence with the fix), or
 * nothing: the one rule for the YAML and the CLI's --category and --leverage.
 */
export function marginConfigProblems(c: {
  readonly category: 'SPOT' | 'MARGIN';
  readonly leverage: readonly { readonly category: string; readonly coin?: string | undefined }[];
}): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  c.leverage.forEach((e, i) => {
    if (e.category !== 'MARGIN')
      out.push({
        path: ['leverage', i, 'category'],
        message: `a backtest sets MARGIN leverage only (it has no ${e.category} market): use category: MARGIN with a coin`,
      });
  });
  if (c.category === 'SPOT' && c.leverage.length > 0)
    out.push({
      path: ['category'],
      message: 'leverage entries apply to a MARGIN backtest: set category: MARGIN, or remove leverage',
    });
  if (c.category === 'MARGIN' && c.leverage.length === 0)
    out.push({
      path: ['leverage'],
      message:
        "a MARGIN backtest borrows within the leverage set per coin (1, no borrowing, until set): add leverage: [{ category: MARGIN, coin: SPX, leverage: '3' }] for the coin it borrows",
    });
  return out;
}

export const BacktestConfigSchema = BacktestConfigFields.superRefine((c, ctx) => {
  for (const p of marginConfigProblems(c)) ctx.addIssue({ code: 'custom', ...p });
});
export type BacktestConfig = z.output<typeof BacktestConfigSchema>;
