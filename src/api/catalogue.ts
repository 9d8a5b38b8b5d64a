// The endpoint catalogue (DESIGN principle 2): each of the 21 endpoints of spec section 4 declared once
// with its method, path, permission, rate limit (section 8), parameter schema and response schema.
// The client's methods, the simulator's routes and the docs are all derived from this table.
import { z } from 'zod';
import * as P from './params.js';
import { HISTORY_CANDLES_MAX_RANGE_MS } from './params.js';
import {
  CandleSchema,
  CompanyOverviewSchema,
  DividendSchema,
  EarningsForecastSchema,
  InsiderTradeSchema,
  InstrumentSchema,
  MarketCalendarSchema,
  MarketStateSchema,
  OrderAckSchema,
  OrderBookSchema,
  PublicFillSchema,
  REALITY_CANDLE_INTERVALS,
  RealityFillSchema,
  RpiOrderBookSchema,
  RpiSymbolSchema,
  ShareholderSchema,
  SuccessStringSchema,
  SuspensionSchema,
  TickerSchema,
  ValuationSchema,
  pageOf,
} from './resources.js';
import type { ValidationIssue } from './errors.js';

export type Permission = 'none' | 'trade-read' | 'trade-read-write' | 'management' | 'withdrawal';
export type EndpointGroup = 'market' | 'reality' | 'trade' | 'account';

export interface RateLimit {
  /** public endpoints are limited per IP, account endpoints per UID (spec section 8). */
  readonly scope: 'ip' | 'uid';
  readonly perSecond: number;
  /** place-reality-order: the higher limit of whitelisted accounts. */
  readonly whitelistedPerSecond?: number;
  /**
   * Name of a budget shared by several endpoints; absent: the endpoint has a budget of its own.
   * Spec section 8 gives one row "All GET /api/v3/reality/market/* endpoints 1/sec/IP": the only
   * reading that can never exceed it is one budget for the whole group.
   */
  readonly shared?: string;
}

export interface EndpointDef<
  N extends string = string,
  PS extends z.ZodType = z.ZodType,
  RS extends z.ZodType = z.ZodType,
> {
  readonly name: N;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly group: EndpointGroup;
  readonly permission: Permission;
  /** reality-fills needs whitelist access besides its permission (spec section 5). */
  readonly whitelist: boolean;
  readonly rateLimit: RateLimit;
  readonly params: PS;
  readonly response: RS;
  /** Whether the endpoint takes the Reality-symbol candle rules of spec 4.1. */
  readonly realityCandleRules?: boolean;
  /** Whether the endpoint answers a cursor page (spec 2.19). */
  readonly paged?: boolean;
  readonly summary: string;
}

function endpoint<const N extends string, PS extends z.ZodType, RS extends z.ZodType>(
  def: EndpointDef<N, PS, RS>,
): EndpointDef<N, PS, RS> {
  return def;
}

const ipLimit = (perSecond: number): RateLimit => ({ scope: 'ip', perSecond });
const uidLimit = (perSecond: number): RateLimit => ({ scope: 'uid', perSecond });
const pub = { group: 'market', permission: 'none', whitelist: false, method: 'GET' } as const;
const reality = {
  group: 'reality',
  permission: 'none',
  whitelist: false,
  method: 'GET',
  rateLimit: { scope: 'ip', perSecond: 1, shared: 'reality-market' },
} as const;

/** The catalogue, keyed by method name. */
export const ENDPOINTS = {
  instruments: endpoint({
    ...pub,
    name: 'instruments',
    path: '/api/v3/market/instruments',
    rateLimit: ipLimit(20),
    params: P.InstrumentsParams,
    response: z.array(InstrumentSchema),
    summary: 'Instrument specifications (precision, limits, status) of a category.',
  }),
  rpiSymbols: endpoint({
    ...pub,
    name: 'rpiSymbols',
    path: '/api/v3/market/rpi-symbols',
    rateLimit: ipLimit(10),
    params: P.RpiSymbolsParams,
    response: z.array(RpiSymbolSchema),
    summary: 'Symbols that support Retail Price Improvement.',
  }),
  tickers: endpoint({
    ...pub,
    name: 'tickers',
    path: '/api/v3/market/tickers',
    rateLimit: ipLimit(20),
    params: P.TickersParams,
    response: z.array(TickerSchema),
    summary: 'Last price, best bid/ask and 24h statistics.',
  }),
  orderbook: endpoint({
    ...pub,
    name: 'orderbook',
    path: '/api/v3/market/orderbook',
    rateLimit: ipLimit(20),
    params: P.OrderbookParams,
    response: OrderBookSchema,
    summary: 'Order book depth (default 5 levels, at most 1000).',
  }),
  rpiOrderbook: endpoint({
    ...pub,
    name: 'rpiOrderbook',
    path: '/api/v3/market/rpi-orderbook',
    rateLimit: ipLimit(10),
    params: P.RpiOrderbookParams,
    response: RpiOrderBookSchema,
    summary: 'Order book with RPI and non-RPI quantities per level.',
  }),
  fills: endpoint({
    ...pub,
    name: 'fills',
    path: '/api/v3/market/fills',
    rateLimit: ipLimit(20),
    params: P.FillsParams,
    response: z.array(PublicFillSchema),
    summary: 'Recent public fills (default and maximum 100).',
  }),
  candles: endpoint({
    ...pub,
    name: 'candles',
    path: '/api/v3/market/candles',
    rateLimit: ipLimit(20),
    params: P.CandlesParams,
    response: z.array(CandleSchema),
    realityCandleRules: true,
    summary: 'Recent candles (default and maximum 1000).',
  }),
  historyCandles: endpoint({
    ...pub,
    name: 'historyCandles',
    path: '/api/v3/market/history-candles',
    rateLimit: ipLimit(20),
    params: P.HistoryCandlesParams,
    response: z.array(CandleSchema),
    realityCandleRules: true,
    summary: 'Older candles, at most 100 per query and 90 days per range.',
  }),
  innerTrades: endpoint({
    ...reality,
    name: 'innerTrades',
    path: '/api/v3/reality/market/inner-trades',
    params: P.CodePageParams,
    response: pageOf(InsiderTradeSchema),
    paged: true,
    summary: 'Insider trades of a company, cursor paged.',
  }),
  dividends: endpoint({
    ...reality,
    name: 'dividends',
    path: '/api/v3/reality/market/dividends',
    params: P.CodePageParams,
    response: pageOf(DividendSchema),
    paged: true,
    summary: 'Dividend and split history, cursor paged.',
  }),
  shareholdDetail: endpoint({
    ...reality,
    name: 'shareholdDetail',
    path: '/api/v3/reality/market/sharehold-detail',
    params: P.CodePageParams,
    response: pageOf(ShareholderSchema),
    paged: true,
    summary: 'Major shareholders, cursor paged.',
  }),
  valuationIndicators: endpoint({
    ...reality,
    name: 'valuationIndicators',
    path: '/api/v3/reality/market/valuation-indicators',
    params: P.CodeParams,
    response: ValuationSchema,
    summary: 'Valuation ratios (P/E, P/B, EV/EBITDA ...).',
  }),
  earningsForecast: endpoint({
    ...reality,
    name: 'earningsForecast',
    path: '/api/v3/reality/market/earnings-forecast',
    params: P.CodeParams,
    response: EarningsForecastSchema,
    summary: 'Earnings forecast or actuals.',
  }),
  suspensionResumptionInfo: endpoint({
    ...reality,
    name: 'suspensionResumptionInfo',
    path: '/api/v3/reality/market/suspension-resumption-info',
    params: P.CodeParams,
    response: SuspensionSchema,
    summary: 'Trading suspension and resumption of a company.',
  }),
  companyOverview: endpoint({
    ...reality,
    name: 'companyOverview',
    path: '/api/v3/reality/market/company-overview',
    params: P.CodeParams,
    response: CompanyOverviewSchema,
    summary: 'Company overview.',
  }),
  marketStates: endpoint({
    ...reality,
    name: 'marketStates',
    path: '/api/v3/reality/market/states',
    params: P.NoParams,
    response: z.array(MarketStateSchema),
    summary: 'US market sessions and whether daylight saving time applies.',
  }),
  marketCalendar: endpoint({
    ...reality,
    name: 'marketCalendar',
    path: '/api/v3/reality/market/calendar',
    params: P.NoParams,
    response: MarketCalendarSchema,
    summary: 'US market closures: holidays and weekly closures.',
  }),
  placeRealityOrder: endpoint({
    name: 'placeRealityOrder',
    method: 'POST',
    path: '/api/v3/trade/place-reality-order',
    group: 'trade',
    permission: 'trade-read-write',
    whitelist: false,
    rateLimit: { scope: 'uid', perSecond: 5, whitelistedPerSecond: 30 },
    params: P.PlaceRealityOrderParams,
    response: OrderAckSchema,
    summary:
      'Place a limit or market order on a Reality pair. qty is in quote coin for a market buy, in base coin otherwise.',
  }),
  realityFills: endpoint({
    name: 'realityFills',
    method: 'GET',
    path: '/api/v3/account/reality-fills',
    group: 'account',
    permission: 'trade-read',
    whitelist: true,
    rateLimit: uidLimit(10),
    params: P.RealityFillsParams,
    response: z.array(RealityFillSchema),
    summary: "The account's fills of one Reality pair in the last 3 months (whitelist required).",
  }),
  setLeverage: endpoint({
    name: 'setLeverage',
    method: 'POST',
    path: '/api/v3/account/set-leverage',
    group: 'account',
    permission: 'management',
    whitelist: false,
    rateLimit: uidLimit(10),
    params: P.SetLeverageParams,
    response: SuccessStringSchema,
    summary: 'Set leverage for a futures symbol or a margin coin.',
  }),
  cancelWithdrawal: endpoint({
    name: 'cancelWithdrawal',
    method: 'POST',
    path: '/api/v3/account/cancel-withdrawal',
    group: 'account',
    permission: 'withdrawal',
    whitelist: false,
    rateLimit: uidLimit(1),
    params: P.CancelWithdrawalParams,
    response: SuccessStringSchema,
    summary: 'Cancel a withdrawal that is still in its cooling period.',
  }),
} as const;

export type Endpoints = typeof ENDPOINTS;
export type EndpointName = keyof Endpoints;
export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];
export type ParamsOut<N extends EndpointName> = z.output<Endpoints[N]['params']>;
export type ParamsIn<N extends EndpointName> = z.input<Endpoints[N]['params']>;
export type ResponseOf<N extends EndpointName> = z.output<Endpoints[N]['response']>;

/** Finds the endpoint for a method and path, for the simulator's router. */
export function endpointFor(method: string, path: string): EndpointDef | undefined {
  return Object.values(ENDPOINTS).find((e) => e.method === method && e.path === path);
}

/** Whether an endpoint needs credentials. */
export const isPrivate = (e: Pick<EndpointDef, 'permission'>): boolean => e.permission !== 'none';

/** Rate a client or the simulator enforces for an endpoint, given the account's whitelist status. */
export function rateFor(e: Pick<EndpointDef, 'rateLimit'>, whitelisted = false): number {
  return whitelisted && e.rateLimit.whitelistedPerSecond !== undefined
    ? e.rateLimit.whitelistedPerSecond
    : e.rateLimit.perSecond;
}

/** The budget an endpoint's requests count against: its own, or the group it shares (spec section 8). */
export function rateGroupOf(e: Pick<EndpointDef, 'name' | 'rateLimit'>): string {
  return e.rateLimit.shared ?? e.name;
}

/** What the validator knows beyond the parameters themselves. */
export interface ValidationContext {
  /** Whether a symbol is a Reality stock token (isReality yes); unknown symbols answer false. */
  readonly isRealitySymbol?: (symbol: string) => boolean;
  /** The venue's time now, for rules relative to it (history-candles with startTime alone). */
  readonly now?: number;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * Validates wire parameters against the endpoint's schema and its context rules, and returns them
 * normalised (defaults applied; for Reality symbols the candle type falls back to market).
 */
export function validateParams<N extends EndpointName>(
  name: N,
  input: unknown,
  ctx: ValidationContext = {},
): ValidationResult<ParamsOut<N>> {
  const def: EndpointDef = ENDPOINTS[name];
  const parsed = def.params.safeParse(input ?? {});
  if (!parsed.success) {
    const raw = (input ?? {}) as Record<string, unknown>;
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => {
        const field = i.path.map(String).join('.');
        const unknownKeys = i.code === 'unrecognized_keys' ? i.keys : undefined;
        return unknownKeys
          ? {
              field: unknownKeys.join(', '),
              value: unknownKeys.map((k) => raw[k]),
              rule: 'not a parameter of this endpoint',
            }
          : { field, value: field ? raw[field] : raw, rule: i.message };
      }),
    };
  }
  const value = parsed.data as Record<string, unknown>;
  if (
    name === 'historyCandles' &&
    ctx.now !== undefined &&
    typeof value.startTime === 'number' &&
    value.endTime === undefined &&
    ctx.now - value.startTime > HISTORY_CANDLES_MAX_RANGE_MS
  ) {
    // Spec 4.1: at most 90 days per query; without endTime the range runs from startTime to now.
    return {
      ok: false,
      issues: [
        {
          field: 'startTime',
          value: value.startTime,
          rule: 'the time range of one history-candles query is at most 90 days, and without endTime it runs to now; give endTime too',
        },
      ],
    };
  }
  if (def.realityCandleRules && ctx.isRealitySymbol?.(String(value.symbol))) {
    if (!(REALITY_CANDLE_INTERVALS as readonly string[]).includes(String(value.interval))) {
      return {
        ok: false,
        issues: [
          {
            field: 'interval',
            value: value.interval,
            rule: `Reality stock symbols support only ${REALITY_CANDLE_INTERVALS.join(', ')}`,
          },
        ],
      };
    }
    // Spec 4.1 Reality rule 1: mark, index and premium are treated as market, without an error.
    value.type = 'market';
  }
  return { ok: true, value: value as ParamsOut<N> };
}
