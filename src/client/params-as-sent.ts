// The hot endpoints' parameters (tickers, candles, place-reality-order: what every bot sends each tick) checked
// by hand, each rule a plain comparison, instead of through the zod schema, which costs more than the rest of
// the client's work on a small request. It only ever says "valid as sent": when it says no, the catalogue's
// schema (validateParams) gives the verdict and names the field, as it does for every other endpoint, so a
// refusal reads the same either way. test/unit/client/params-as-sent.test.ts holds it to the schema over
// generated parameters.
import {
  CANDLE_INTERVALS,
  CANDLE_TYPES,
  DECIMAL_RE,
  FUTURES_CATEGORIES,
  REALITY_CANDLE_INTERVALS,
  type EndpointName,
} from '../api/index.js';

type Wire = Readonly<Record<string, string>>;
const set = (values: readonly string[]): ReadonlySet<string> => new Set(values);
const SPOT_AND_FUTURES = set(['SPOT', ...FUTURES_CATEGORIES]);
const INTERVALS = set(CANDLE_INTERVALS);
const REALITY_INTERVALS = set(REALITY_CANDLE_INTERVALS);
const TYPES = set(CANDLE_TYPES);
const TICKER_KEYS = set(['category', 'symbol']);
const CANDLE_KEYS = set(['category', 'symbol', 'interval', 'startTime', 'endTime', 'type', 'limit']);
const ORDER_KEYS = set(['category', 'symbol', 'side', 'orderType', 'qty', 'price', 'clientOid']);
const MS = /^\d{1,16}$/;
const DIGITS = /^\d+$/;
const NONZERO = /[1-9]/;
const CLIENT_OID = /^[A-Za-z0-9_\-.:]{1,64}$/;

/** Every key is one of `keys` (the schemas are strict: an unknown parameter is refused). */
function onlyKeys(wire: Wire, keys: ReadonlySet<string>): boolean {
  for (const k in wire) if (!keys.has(k)) return false;
  return true;
}

const nonEmpty = (s: string | undefined): boolean => s !== undefined && s.length > 0;
const positiveDecimal = (s: string): boolean => DECIMAL_RE.test(s) && NONZERO.test(s);

function tickers(w: Wire): boolean {
  return (
    onlyKeys(w, TICKER_KEYS) &&
    SPOT_AND_FUTURES.has(w.category as string) &&
    (w.symbol === undefined || w.symbol.length > 0)
  );
}

function candles(w: Wire, isRealitySymbol: (symbol: string) => boolean): boolean {
  const { startTime, endTime, limit } = w;
  return (
    onlyKeys(w, CANDLE_KEYS) &&
    SPOT_AND_FUTURES.has(w.category as string) &&
    nonEmpty(w.symbol) &&
    INTERVALS.has(w.interval as string) &&
    (startTime === undefined || MS.test(startTime)) &&
    (endTime === undefined || MS.test(endTime)) &&
    (startTime === undefined || endTime === undefined || Number(startTime) <= Number(endTime)) &&
    (w.type === undefined || TYPES.has(w.type)) &&
    (limit === undefined || (DIGITS.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000)) &&
    // Reality symbols take fewer intervals: the schema path says which.
    (!isRealitySymbol(w.symbol as string) || REALITY_INTERVALS.has(w.interval as string))
  );
}

function placeRealityOrder(w: Wire): boolean {
  const { category, orderType, price, clientOid } = w;
  return (
    onlyKeys(w, ORDER_KEYS) &&
    (category === undefined || category === 'SPOT' || category === 'MARGIN') &&
    nonEmpty(w.symbol) &&
    (w.side === 'buy' || w.side === 'sell') &&
    (orderType === 'market' || (orderType === 'limit' && price !== undefined)) &&
    w.qty !== undefined &&
    positiveDecimal(w.qty) &&
    (price === undefined || positiveDecimal(price)) &&
    (clientOid === undefined || CLIENT_OID.test(clientOid))
  );
}

/**
 * True only when the catalogue's rules accept these wire parameters of `name` (validateParams would answer ok);
 * false for anything else, the endpoints without a hand check included.
 */
export function validAsSent(
  name: EndpointName,
  wire: Wire,
  isRealitySymbol: (symbol: string) => boolean,
): boolean {
  if (name === 'tickers') return tickers(wire);
  if (name === 'candles') return candles(wire, isRealitySymbol);
  if (name === 'placeRealityOrder') return placeRealityOrder(wire);
  return false;
}
