// Instrument rules as the domain uses them: the wire instrument (strings) parsed once into Decimals
// and integers. Normalisation (rounding) lives in precision.ts.
import type { Instrument, InstrumentStatus, OpenEnum } from '../api/index.js';
import { Decimal } from './decimal.js';

export interface InstrumentRules {
  readonly category: Instrument['category'];
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  readonly isReality: boolean;
  /** An unknown status (a value newer than this version) allows nothing: see the gate's status check. */
  readonly status: OpenEnum<InstrumentStatus>;
  readonly pricePrecision: number;
  readonly quantityPrecision: number;
  readonly quotePrecision: number;
  /** Price must be a multiple of it when given (futures). */
  readonly priceMultiplier?: Decimal | undefined;
  readonly quantityMultiplier?: Decimal | undefined;
  readonly minOrderQty?: Decimal | undefined;
  /** undefined when 0 (no limit). */
  readonly maxOrderQty?: Decimal | undefined;
  readonly maxMarketOrderQty?: Decimal | undefined;
  readonly minOrderAmount?: Decimal | undefined;
  readonly buyLimitPriceRatio?: Decimal | undefined;
  readonly sellLimitPriceRatio?: Decimal | undefined;
  readonly makerFeeRate?: Decimal | undefined;
  readonly takerFeeRate?: Decimal | undefined;
  readonly deliveryTime?: number | undefined;
  readonly deliveryStartTime?: number | undefined;
  readonly raw: Instrument;
}

const optDec = (s: string | undefined): Decimal | undefined =>
  s === undefined || s.trim() === '' ? undefined : new Decimal(s);
const positive = (d: Decimal | undefined): Decimal | undefined =>
  d !== undefined && d.gt(0) ? d : undefined;
const int = (s: string | undefined, field: string, symbol: string): number => {
  const n = Number(s);
  if (s === undefined || !Number.isInteger(n) || n < 0) {
    throw new TypeError(
      `instrument ${symbol}: ${field} must be a non-negative integer, got ${JSON.stringify(s)}`,
    );
  }
  return n;
};
const optMs = (s: string | undefined): number | undefined =>
  s === undefined || s.trim() === '' || !/^\d+$/.test(s) ? undefined : Number(s);

/**
 * Decimals of a quote-coin amount shown or written for `instrument` (equity, PnL, fees): its quotePrecision, else
 * its pricePrecision, as an order's quote amount is rounded; 2 when no instrument is known.
 */
/**
 * The base coin a pair's name gives when it is quoted in `quoteCoin` (AAPLUSDT, USDT: AAPL); undefined
 * when the name does not end with that coin. The venue's instruments say it exactly; the name is what a
 * configuration has before the venue answers.
 */
export const baseFromName = (symbol: string, quoteCoin: string): string | undefined =>
  symbol.length > quoteCoin.length && symbol.endsWith(quoteCoin)
    ? symbol.slice(0, -quoteCoin.length)
    : undefined;

export const quoteDecimals = (instrument: Instrument | undefined): number =>
  instrument === undefined ? 2 : parseInstrument(instrument).quotePrecision;

/**
 * The company code of a Reality pair (the `code` of the Reality endpoints, e.g. suspension-resumption-info):
 * its instrument's base coin, whatever the symbol is spelled; undefined for a pair that is not a Reality token.
 */
export const realityCodeOf = (i: Pick<Instrument, 'isReality' | 'baseCoin'>): string | undefined =>
  i.isReality === 'yes' ? i.baseCoin : undefined;

/** Parses a wire instrument into rules. */
export function parseInstrument(i: Instrument): InstrumentRules {
  const pricePrecision = int(i.pricePrecision, 'pricePrecision', i.symbol);
  return {
    category: i.category,
    symbol: i.symbol,
    baseCoin: i.baseCoin,
    quoteCoin: i.quoteCoin,
    isReality: i.isReality === 'yes',
    status: i.status,
    pricePrecision,
    quantityPrecision: int(i.quantityPrecision, 'quantityPrecision', i.symbol),
    quotePrecision:
      i.quotePrecision === undefined || i.quotePrecision === ''
        ? pricePrecision
        : int(i.quotePrecision, 'quotePrecision', i.symbol),
    priceMultiplier: positive(optDec(i.priceMultiplier)),
    quantityMultiplier: positive(optDec(i.quantityMultiplier)),
    minOrderQty: positive(optDec(i.minOrderQty)),
    maxOrderQty: positive(optDec(i.maxOrderQty)),
    maxMarketOrderQty: positive(optDec(i.maxMarketOrderQty)),
    minOrderAmount: positive(optDec(i.minOrderAmount)),
    buyLimitPriceRatio: positive(optDec(i.buyLimitPriceRatio)),
    sellLimitPriceRatio: positive(optDec(i.sellLimitPriceRatio)),
    makerFeeRate: optDec(i.makerFeeRate),
    takerFeeRate: optDec(i.takerFeeRate),
    deliveryTime: optMs(i.deliveryTime),
    deliveryStartTime: optMs(i.deliveryStartTime),
    raw: i,
  };
}
