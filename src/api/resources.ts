// The resources of spec section 2, declared once as zod schemas; the TypeScript types are inferred
// from them so the validator and the type can never disagree. Wire values stay strings, as on the wire.
import { z } from 'zod';

/** Product types of the category parameter (spec section 1). */
export const CATEGORIES = ['SPOT', 'MARGIN', 'USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'] as const;
export type Category = (typeof CATEGORIES)[number];
export const FUTURES_CATEGORIES = ['USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES'] as const;
export type FuturesCategory = (typeof FUTURES_CATEGORIES)[number];
export const isFuturesCategory = (c: string): c is FuturesCategory =>
  (FUTURES_CATEGORIES as readonly string[]).includes(c);

/** Instrument status values (spec 2.1, 3.1). */
export const INSTRUMENT_STATUSES = [
  'listed',
  'online',
  'limit_open',
  'limit_close',
  'offline',
  'restrictedAPI',
] as const;
export type InstrumentStatus = (typeof INSTRUMENT_STATUSES)[number];

/** Delivery status of delivery contracts (spec 3.2). */
export const DELIVERY_STATUSES = [
  'delivery_config_period',
  'delivery_normal',
  'delivery_before',
  'delivery_period',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** US market sessions (spec 3.3). */
export const SESSIONS = ['pre_market', 'regular', 'after_hours', 'overnight'] as const;
export type SessionName = (typeof SESSIONS)[number];

/** Candle intervals (spec 4.1) and the subset a Reality stock symbol accepts. */
export const CANDLE_INTERVALS = ['1m', '3m', '5m', '15m', '30m', '1H', '4H', '6H', '12H', '1D'] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];
export const REALITY_CANDLE_INTERVALS = ['1m', '5m', '15m', '1H', '4H', '1D'] as const;
export const CANDLE_TYPES = ['market', 'mark', 'index', 'premium'] as const;
export type CandleType = (typeof CANDLE_TYPES)[number];

const MINUTE = 60_000;
/** Length of each candle interval in milliseconds. */
export const INTERVAL_MS: Readonly<Record<CandleInterval, number>> = {
  '1m': MINUTE,
  '3m': 3 * MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1H': 60 * MINUTE,
  '4H': 240 * MINUTE,
  '6H': 360 * MINUTE,
  '12H': 720 * MINUTE,
  '1D': 1440 * MINUTE,
};

const str = z.string();
const optStr = z.string().optional();

/**
 * A value of an enum the venue answered with that this version does not know. Kept as the string the
 * venue sent, so a new instrument status or fill side does not fail the whole call; code that acts on
 * the value must treat an unknown one as "not allowed" (e.g. an unknown status takes no orders).
 */
export type UnknownWireValue = string & { readonly __unknownWireValue?: never };
/** An enum as read from a response: one of the known values, or an unknown one kept as a string. */
export type OpenEnum<T extends string> = T | UnknownWireValue;

const seenUnknown = new Set<string>();
let pendingUnknown: { field: string; value: string }[] = [];

/**
 * The unknown enum values met since the last call, each reported once per process (per field and
 * value), so whoever parsed a response can warn about them through its own logger.
 */
export function drainUnknownWireValues(): { field: string; value: string }[] {
  const out = pendingUnknown;
  pendingUnknown = [];
  return out;
}

/** Tolerant reading: a response enum accepts any string; a value outside `values` is noted once. */
function openEnum<const T extends readonly string[]>(
  values: T,
  field: string,
): z.ZodType<OpenEnum<T[number]>> {
  const known = new Set<string>(values);
  return z.string().refine((v) => {
    if (!known.has(v)) {
      const key = `${field}\u0000${v}`;
      if (!seenUnknown.has(key)) {
        seenUnknown.add(key);
        pendingUnknown.push({ field, value: v });
      }
    }
    return true;
  }) as z.ZodType<OpenEnum<T[number]>>;
}

/** Whether a value read from a response is one of the known values of its enum. */
export const isKnown = <const T extends readonly string[]>(values: T, v: string): v is T[number] =>
  values.includes(v);

/** 2.1 Instrument. Fields that only some categories carry are optional. */
export const InstrumentSchema = z.looseObject({
  // Strict on purpose: the venue echoes the category the request named, so another value means the
  // answer is not for this request.
  category: z.enum(CATEGORIES),
  symbol: str,
  isRwa: optStr,
  isReality: optStr,
  baseCoin: str,
  quoteCoin: str,
  buyLimitPriceRatio: optStr,
  sellLimitPriceRatio: optStr,
  feeRateUpRatio: optStr,
  makerFeeRate: optStr,
  takerFeeRate: optStr,
  openCostUpRatio: optStr,
  minOrderQty: optStr,
  maxOrderQty: optStr,
  maxMarketOrderQty: optStr,
  pricePrecision: str,
  quantityPrecision: str,
  quotePrecision: optStr,
  priceMultiplier: optStr,
  quantityMultiplier: optStr,
  type: optStr,
  minOrderAmount: optStr,
  maxSymbolOrderNum: optStr,
  maxProductOrderNum: optStr,
  maxPositionNum: optStr,
  status: openEnum(INSTRUMENT_STATUSES, 'instrument.status'),
  offTime: optStr,
  limitOpenTime: optStr,
  maintainTime: optStr,
  deliveryTime: optStr,
  deliveryStartTime: optStr,
  deliveryPeriod: optStr,
  launchTime: optStr,
  fundInterval: optStr,
  minLeverage: optStr,
  maxLeverage: optStr,
  symbolType: optStr,
  isIsolatedBaseBorrowable: optStr,
  isIsolatedQuotedBorrowable: optStr,
  warningRiskRatio: optStr,
  liquidationRiskRatio: optStr,
  maxCrossedLeverage: optStr,
  maxIsolatedLeverage: optStr,
  userMinBorrow: optStr,
  areaSymbol: optStr,
});
export type Instrument = z.infer<typeof InstrumentSchema>;

/** 2.2 RPI symbol; category is lower case on this resource. */
export const RpiSymbolSchema = z.looseObject({ category: str, symbol: str });
export type RpiSymbol = z.infer<typeof RpiSymbolSchema>;

/** 2.3 Ticker. */
export const TickerSchema = z.looseObject({
  symbol: str,
  category: str,
  lastPrice: str,
  openPrice24h: str,
  highPrice24h: str,
  lowPrice24h: str,
  ask1Price: str,
  bid1Price: str,
  ask1Size: str,
  bid1Size: str,
  price24hPcnt: str,
  volume24h: str,
  turnover24h: str,
  indexPrice: optStr,
  markPrice: optStr,
  fundingRate: optStr,
  openInterest: optStr,
  deliveryStartTime: optStr,
  deliveryTime: optStr,
  deliveryStatus: optStr,
  platformTurnover24h: optStr,
  ts: str,
});
export type Ticker = z.infer<typeof TickerSchema>;

/**
 * 2.4 Order book. The wire carries levels as JSON numbers; the client parses them losslessly into
 * decimal strings (see `client/json.ts`), so a level is `[price, quantity]` as strings here.
 */
const level2 = z.tuple([str, str]);
export const OrderBookSchema = z.looseObject({ a: z.array(level2), b: z.array(level2), ts: str });
export type OrderBook = z.infer<typeof OrderBookSchema>;

/** 2.5 RPI order book: `[price, nonRpiQuantity, rpiQuantity]` per level. */
const level3 = z.tuple([str, str, str]);
export const RpiOrderBookSchema = z.looseObject({ a: z.array(level3), b: z.array(level3), ts: str });
export type RpiOrderBook = z.infer<typeof RpiOrderBookSchema>;

/** 2.6 Public fill. */
export const PublicFillSchema = z.looseObject({
  execId: str,
  execLinkId: str,
  price: str,
  size: str,
  side: openEnum(['buy', 'sell'], 'fill.side'),
  ts: str,
  isRPI: openEnum(['yes', 'no'], 'fill.isRPI'),
});
export type PublicFill = z.infer<typeof PublicFillSchema>;

/** 2.7 Candle: [timestamp, open, high, low, close, baseVolume, quoteTurnover], all strings. */
export const CandleSchema = z.tuple([str, str, str, str, str, str, str]);
export type WireCandle = z.infer<typeof CandleSchema>;

/** 2.8 Insider trade. */
export const InsiderTradeSchema = z.looseObject({
  reporterName: str,
  issueOrgName: str,
  endDate: str,
  announcementDate: str,
  innerType: str,
  position: str,
  securityTitle: str,
  tradeDate: str,
  designatedExerciseDate: str,
  innerTradeType: openEnum(['P', 'S', 'A', 'F', 'M', 'C', 'G', 'J'], 'innerTrade.innerTradeType'),
  actionType: openEnum(['add', 'decrease'], 'innerTrade.actionType'),
  tradeVolume: str,
  tradePrice: str,
  holdingType: openEnum(['direct', 'indirect'], 'innerTrade.holdingType'),
  indirectHoldingStatement: str,
  postTradeQuantity: str,
});
export type InsiderTrade = z.infer<typeof InsiderTradeSchema>;

/** 2.9 Dividend or split record. */
export const DividendSchema = z.looseObject({
  type: openEnum(['cash_dividend', 'stock_split', 'stock_dividend'], 'dividend.type'),
  announcementDate: str,
  recordDate: str,
  exrightDate: str,
  dividendDate: str,
  dividendPerShare: str,
  stockDividendPerShare: str,
  splitValidDate: str,
  splitNumerator: str,
  splitDenominator: str,
});
export type Dividend = z.infer<typeof DividendSchema>;

/** 2.10 Major shareholder. */
export const ShareholderSchema = z.looseObject({ name: str, holdingNum: str, holdingRatio: str });
export type Shareholder = z.infer<typeof ShareholderSchema>;

/** 2.11 Valuation indicators. */
export const VALUATION_FIELDS = [
  'date',
  'pb',
  'pbEd',
  'pbPd',
  'pbMrq',
  'pe',
  'peLyr',
  'peTtmEd',
  'peTtmPd',
  'ps',
  'psLyr',
  'psTtmEd',
  'psTtmPd',
  'pcf',
  'pcfNet',
  'pcfNetTtmEd',
  'pcfNetTtmPd',
  'pcfTtmEd',
  'pcfTtmPd',
  'evEbitda',
  'equityValue',
  'grossEv',
  'netEv',
  'tmvUsd',
  'cirTmvUsd',
  'dividendYieldTtm',
] as const;
export const ValuationSchema = z.looseObject(
  Object.fromEntries(VALUATION_FIELDS.map((f) => [f, str])) as Record<
    (typeof VALUATION_FIELDS)[number],
    z.ZodString
  >,
);
export type Valuation = z.infer<typeof ValuationSchema>;

/** 2.12 Earnings forecast; isActual is a real boolean on the wire. */
export const EarningsForecastSchema = z.looseObject({
  fiscalYear: str,
  publicationDeadline: str,
  isActual: z.boolean(),
  revenue: str,
  ebit: str,
  netIncomeParent: str,
  eps: str,
  bps: str,
  cfps: str,
  roe: str,
  roa: str,
  currency: str,
});
export type EarningsForecast = z.infer<typeof EarningsForecastSchema>;

/** 2.13 Reality fill (the caller's own). */
export const RealityFillSchema = z.looseObject({
  execId: str,
  price: str,
  size: str,
  // Strict for now: a fill whose side cannot be read cannot be booked, and the fill pipeline has no
  // path yet for setting one aside (issue 15: open this once attribution handles it).
  side: z.enum(['buy', 'sell']),
  ts: str,
});
export type RealityFill = z.infer<typeof RealityFillSchema>;

/** 2.14 Market state. */
export const MarketStateSchema = z.looseObject({
  market: str,
  daylightType: openEnum(['standard', 'dst'], 'marketState.daylightType'),
  stateList: z.array(
    z.looseObject({
      state: openEnum(SESSIONS, 'marketState.state'),
      timeZone: str,
      startTime: z.string().regex(/^\d{2}:\d{2}$/),
      endTime: z.string().regex(/^\d{2}:\d{2}$/),
    }),
  ),
});
export type MarketState = z.infer<typeof MarketStateSchema>;

/** 2.15 Suspension and resumption info. */
export const SuspensionSchema = z.looseObject({
  code: str,
  name: str,
  suspensionDate: str,
  suspensionTime: str,
  suspensionReason: str,
  suspensionPrice: str,
  resumptionDate: str,
  resumptionQuoteTime: str,
  resumptionTradingTime: str,
});
export type Suspension = z.infer<typeof SuspensionSchema>;

/** 2.16 Company overview (note the capital L of ListingDate, as on the wire). */
export const CompanyOverviewSchema = z.looseObject({
  peRatio: str,
  pbRatio: str,
  totalShares: str,
  marketCap: str,
  high52Week: str,
  low52Week: str,
  code: str,
  name: str,
  ListingDate: str,
  employees: str,
  companyAddress: str,
});
export type CompanyOverview = z.infer<typeof CompanyOverviewSchema>;

/** 2.17 Market calendar. */
export const MarketCalendarSchema = z.looseObject({
  timeZone: str,
  specificConfig: z.array(
    z.looseObject({
      remark: str,
      startTime: z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/),
      endTime: z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/),
    }),
  ),
  regularConfig: z.array(str),
});
export type MarketCalendar = z.infer<typeof MarketCalendarSchema>;

/** 2.18 Order acknowledgement. */
export const OrderAckSchema = z.looseObject({ orderId: str, clientOid: str });
export type OrderAck = z.infer<typeof OrderAckSchema>;

/** 2.19 Cursor page. */
export const pageOf = <T extends z.ZodType>(item: T) => z.looseObject({ list: z.array(item), cursor: str });
export interface Page<T> {
  list: T[];
  cursor: string;
}

/** The string `success` some account endpoints answer with. */
export const SuccessStringSchema = z.literal('success');
