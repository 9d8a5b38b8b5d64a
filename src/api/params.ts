// Parameter schemas of spec section 4, on wire values (strings). Both the client (before sending) and
// the simulator (on receipt) validate with these, so a rule is written once. Parsing applies the
// spec's defaults; context-dependent rules (Reality symbols) live in `catalogue.ts`.
// Every rule names its source: "spec 4.x" is a line of ../shared/spec/trading-api-v3.md; "ours" is a
// rule of this library the spec does not state (documented in the README's client section). A rule
// stricter than the spec would refuse requests the venue accepts, so "ours" rules are few and safe.
// Unknown parameters are refused (strictObject): ours, because a typo is the common case; the client's
// `extra` option sends a parameter the venue added later.
import { z } from 'zod';
import { CANDLE_INTERVALS, CANDLE_TYPES, CATEGORIES, FUTURES_CATEGORIES } from './resources.js';

const DAY_MS = 86_400_000;
/** Maximum time range of one history-candles query (spec 4.1). */
export const HISTORY_CANDLES_MAX_RANGE_MS = 90 * DAY_MS;

const required = (field: string) => ({
  error: (iss: { input: unknown }) =>
    iss.input === undefined ? `${field} is required` : `${field} must be a string`,
});

const nonEmpty = (field: string) => z.string(required(field)).min(1, `${field} must not be empty`);

/**
 * A decimal number written as the venue expects it: digits, an optional fraction, no exponent. Spec 4.3
 * and 4.4 type qty, price and leverage as string; the plain-decimal form is ours (the venue's number
 * grammar is not shown), chosen as what every venue of this family accepts.
 */
export const DECIMAL_RE = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;
/** The same with an optional minus sign (balances after fees, PnL, admin adjustments). */
export const SIGNED_DECIMAL_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const positiveDecimal = (field: string) =>
  z
    .string(required(field))
    .regex(DECIMAL_RE, `${field} must be a plain decimal string such as "12.5" (no sign, no exponent)`)
    .refine((s) => /[1-9]/.test(s), `${field} must be greater than zero`);

const msTimestamp = (field: string) =>
  z
    .string(required(field))
    .regex(/^\d{1,16}$/, `${field} must be a Unix millisecond timestamp written as digits`)
    .transform(Number);

/** `limit`: an integer string between 1 and max; the default applies when omitted (spec 4.1, 4.2, 4.4, 8). */
const limitParam = (def: number, max: number) =>
  z
    .string({ error: 'limit must be a string of digits' })
    .regex(/^\d+$/, `limit must be a whole number from 1 to ${max}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `limit must be from 1 to ${max} (default ${def})`)
    .optional()
    .transform((n) => n ?? def);

const categoryOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (iss) =>
      iss.input === undefined
        ? 'category is required'
        : `category must be one of ${values.join(', ')} for this endpoint`,
  });

const SPOT_AND_FUTURES = ['SPOT', ...FUTURES_CATEGORIES] as const;

// Spec 4.1: instruments and fills take every category; tickers, orderbook, candles take SPOT and futures.
export const InstrumentsParams = z.strictObject({
  category: categoryOf(CATEGORIES),
  symbol: nonEmpty('symbol').optional(),
});

export const RpiSymbolsParams = z.strictObject({});

export const TickersParams = z.strictObject({
  category: categoryOf(SPOT_AND_FUTURES),
  symbol: nonEmpty('symbol').optional(),
});

export const OrderbookParams = z.strictObject({
  category: categoryOf(SPOT_AND_FUTURES),
  symbol: nonEmpty('symbol'),
  limit: limitParam(5, 1000),
});

export const RpiOrderbookParams = OrderbookParams;

export const FillsParams = z.strictObject({
  category: categoryOf(CATEGORIES),
  symbol: nonEmpty('symbol'),
  limit: limitParam(100, 100),
});

const candleShape = (limitDefault: number, limitMax: number) =>
  z.strictObject({
    category: categoryOf(SPOT_AND_FUTURES),
    symbol: nonEmpty('symbol'),
    interval: z.enum(CANDLE_INTERVALS, {
      error: (iss) =>
        iss.input === undefined
          ? 'interval is required'
          : `interval must be one of ${CANDLE_INTERVALS.join(', ')}`,
    }),
    startTime: msTimestamp('startTime').optional(),
    endTime: msTimestamp('endTime').optional(),
    type: z
      .enum(CANDLE_TYPES, { error: `type must be one of ${CANDLE_TYPES.join(', ')}` })
      .optional()
      .transform((t) => t ?? 'market'),
    limit: limitParam(limitDefault, limitMax),
  });

// Ours: a range that ends before it starts can only be a mistake.
const startBeforeEnd = (
  p: { startTime?: number | undefined; endTime?: number | undefined },
  ctx: z.RefinementCtx,
) => {
  if (p.startTime !== undefined && p.endTime !== undefined && p.startTime > p.endTime) {
    ctx.addIssue({ code: 'custom', path: ['startTime'], message: 'startTime must not be after endTime' });
  }
};

// Spec 4.1 candles: limit default and maximum 1000.
export const CandlesParams = candleShape(1000, 1000).superRefine(startBeforeEnd);

// Spec 4.1 history-candles: limit default and maximum 100; "the maximum time range of one query is 90
// days". With both bounds the range is endTime - startTime; with startTime alone it runs to now, which
// `validateParams` checks with the clock it is given (ValidationContext.now).
export const HistoryCandlesParams = candleShape(100, 100).superRefine((p, ctx) => {
  startBeforeEnd(p, ctx);
  if (
    p.startTime !== undefined &&
    p.endTime !== undefined &&
    p.endTime - p.startTime > HISTORY_CANDLES_MAX_RANGE_MS
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['endTime'],
      message: 'the time range of one history-candles query is at most 90 days; split the range',
    });
  }
});

// Spec 4.2: code required; the paged ones take limit (default 20, maximum 100) and cursor.
const codeParam = { code: nonEmpty('code') };
export const CodeParams = z.strictObject(codeParam);
export const CodePageParams = z.strictObject({
  ...codeParam,
  limit: limitParam(20, 100),
  cursor: z.string().optional(),
});
export const NoParams = z.strictObject({});

// Spec 4.3 place-reality-order: category SPOT or MARGIN (default SPOT); symbol, side, orderType, qty
// required; price required when orderType is limit; clientOid optional.
export const PlaceRealityOrderParams = z
  .strictObject({
    category: z
      .enum(['SPOT', 'MARGIN'], { error: 'category must be SPOT or MARGIN (default SPOT)' })
      .optional()
      .transform((c) => c ?? 'SPOT'),
    symbol: nonEmpty('symbol'),
    side: z.enum(['buy', 'sell'], { error: 'side must be buy or sell' }),
    orderType: z.enum(['limit', 'market'], { error: 'orderType must be limit or market' }),
    qty: positiveDecimal('qty'),
    price: positiveDecimal('price').optional(),
    // Ours: the spec only says string. Ids go into journals, logs and URLs, so the alphabet and
    // length are kept to what every venue of this family accepts (README, client section).
    clientOid: z
      .string()
      .regex(/^[A-Za-z0-9_\-.:]{1,64}$/, 'clientOid must be 1 to 64 characters of letters, digits, _ - . :')
      .optional(),
  })
  .superRefine((p, ctx) => {
    if (p.orderType === 'limit' && p.price === undefined) {
      ctx.addIssue({ code: 'custom', path: ['price'], message: 'price is required when orderType is limit' });
    }
  });

// Spec 4.4 reality-fills: symbol required; limit default and maximum 100.
export const RealityFillsParams = z.strictObject({
  symbol: nonEmpty('symbol'),
  limit: limitParam(100, 100),
});

// Spec 4.4 set-leverage: category required (MARGIN or a futures line); every other field optional,
// leverage included. The spec's conditional rules are checked; longLeverage/shortLeverage are only
// described as applying in isolated two-way mode ("applies only with ..."), which is the venue's
// reading of them, not a refusal the spec states, so they are passed on.
export const SetLeverageParams = z
  .strictObject({
    category: categoryOf(['MARGIN', ...FUTURES_CATEGORIES] as const),
    symbol: nonEmpty('symbol').optional(),
    leverage: positiveDecimal('leverage').optional(),
    coin: nonEmpty('coin').optional(),
    posSide: z.enum(['long', 'short'], { error: 'posSide must be long or short' }).optional(),
    marginMode: z
      .enum(['crossed', 'isolated'], { error: 'marginMode must be crossed or isolated' })
      .optional()
      .transform((m) => m ?? 'crossed'),
    longLeverage: positiveDecimal('longLeverage').optional(),
    shortLeverage: positiveDecimal('shortLeverage').optional(),
  })
  .superRefine((p, ctx) => {
    const futures = p.category !== 'MARGIN';
    // Spec 4.4: symbol "Required to set leverage for futures".
    if (futures && p.symbol === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['symbol'],
        message: 'symbol is required to set leverage for futures',
      });
    }
    // Spec 4.4: coin "Required to set leverage for margin trading".
    if (!futures && p.coin === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['coin'],
        message: 'coin is required to set leverage for margin trading',
      });
    }
    // Spec 4.4 marginMode: "only futures product lines support isolated leverage adjustment".
    if (p.marginMode === 'isolated' && !futures) {
      ctx.addIssue({
        code: 'custom',
        path: ['marginMode'],
        message: 'only futures product lines support isolated leverage adjustment',
      });
    }
    // Spec 4.4 posSide: "required to set leverage for isolated margin". With longLeverage or
    // shortLeverage each side is named already (rules 1 and 2), so posSide is not asked for then.
    const twoWay = p.longLeverage !== undefined || p.shortLeverage !== undefined;
    if (p.marginMode === 'isolated' && futures && p.posSide === undefined && !twoWay) {
      ctx.addIssue({
        code: 'custom',
        path: ['posSide'],
        message:
          'posSide (long or short) is required to set isolated leverage, unless longLeverage/shortLeverage are given',
      });
    }
  });
export type SetLeverageInput = z.output<typeof SetLeverageParams>;

/**
 * The leverage each side ends up with (spec 4.4 rules 1 and 2): in two-way mode longLeverage and
 * shortLeverage take precedence over leverage; otherwise leverage applies to the side given by
 * posSide, or to both.
 */
export function effectiveLeverage(p: SetLeverageInput): { long?: string; short?: string } {
  const long = p.longLeverage ?? p.leverage;
  const short = p.shortLeverage ?? p.leverage;
  if (p.posSide === 'long' && p.longLeverage === undefined && p.shortLeverage === undefined) {
    return long === undefined ? {} : { long };
  }
  if (p.posSide === 'short' && p.longLeverage === undefined && p.shortLeverage === undefined) {
    return short === undefined ? {} : { short };
  }
  return { ...(long !== undefined ? { long } : {}), ...(short !== undefined ? { short } : {}) };
}

/**
 * Whether a set-leverage call names a leverage (leverage, longLeverage or shortLeverage). The spec makes
 * each optional, so the wire accepts a call without any; it sets nothing, and what a user asks for (a flag,
 * a configured entry) is refused when it names none.
 */
export const namesLeverage = (p: {
  readonly leverage?: unknown;
  readonly longLeverage?: unknown;
  readonly shortLeverage?: unknown;
}): boolean => p.leverage !== undefined || p.longLeverage !== undefined || p.shortLeverage !== undefined;

// Spec 4.4 cancel-withdrawal rule 1: one of orderId and clientOid must be passed.
export const CancelWithdrawalParams = z
  .strictObject({
    orderId: nonEmpty('orderId').optional(),
    clientOid: nonEmpty('clientOid').optional(),
  })
  .superRefine((p, ctx) => {
    if (p.orderId === undefined && p.clientOid === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['orderId'],
        message: 'one of orderId and clientOid must be passed',
      });
    }
  });

/** Which id cancel-withdrawal acts on (spec 4.4 rule 2: orderId wins when both are passed). */
export function withdrawalKey(p: {
  orderId?: string | undefined;
  clientOid?: string | undefined;
}): { by: 'orderId'; id: string } | { by: 'clientOid'; id: string } {
  if (p.orderId !== undefined) return { by: 'orderId', id: p.orderId };
  if (p.clientOid !== undefined) return { by: 'clientOid', id: p.clientOid };
  throw new Error('withdrawalKey: neither orderId nor clientOid given');
}
