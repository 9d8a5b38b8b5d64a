// The simulator's instrument table: crypto spot and margin pairs, Reality stock-token pairs, USDT-,
// COIN- and USDC-margined futures (perpetual and quarterly delivery), with realistic precisions,
// limits and fees, and one Reality pair in each non-online status so risk checks can be tested.
import type { Category, Instrument, InstrumentStatus } from '../api/index.js';

/** How the market model drives one instrument's price. */
export interface PriceModel {
  /** Starting price (decimal string, within pricePrecision). */
  readonly basePrice: string;
  /** Daily volatility of the log price, e.g. 0.03 for 3%. */
  readonly dailyVol: number;
  /** Typical base-coin volume per minute. */
  readonly minuteVolume: number;
}

/** One row of the table: the wire instrument plus what the simulator needs to run it. */
export interface SimInstrument {
  readonly wire: Instrument;
  readonly model: PriceModel;
  /** Key of the market: margin pairs share their spot pair's market. */
  readonly marketKey: string;
  /**
   * Key of the random path: instruments of the same base coin share it (so BTC spot and BTC futures
   * move together, apart from their base prices), Reality pairs use their code.
   */
  readonly pathKey: string;
  /** Reality company code (the ticker, e.g. AAPL) for Reality pairs. */
  readonly realityCode?: string | undefined;
  /** Whether the symbol supports RPI (lower-case category on rpi-symbols). */
  readonly rpi: boolean;
}

const LAUNCH = String(Date.UTC(2021, 0, 4));

interface SpotArgs {
  symbol: string;
  base: string;
  quote?: string;
  pp: number;
  qp: number;
  price: string;
  vol: number;
  minuteVolume: number;
  status?: InstrumentStatus;
  rpi?: boolean;
  minOrderAmount?: string;
}

function spot(a: SpotArgs): SimInstrument {
  return {
    wire: {
      category: 'SPOT',
      symbol: a.symbol,
      isRwa: 'NO',
      isReality: 'no',
      baseCoin: a.base,
      quoteCoin: a.quote ?? 'USDT',
      buyLimitPriceRatio: '0.05',
      sellLimitPriceRatio: '0.05',
      pricePrecision: String(a.pp),
      quantityPrecision: String(a.qp),
      quotePrecision: String(Math.min(a.pp + 2, 8)),
      minOrderAmount: a.minOrderAmount ?? '1',
      maxSymbolOrderNum: '',
      maxProductOrderNum: '400',
      status: a.status ?? 'online',
      launchTime: LAUNCH,
      symbolType: 'crypto',
    },
    model: { basePrice: a.price, dailyVol: a.vol, minuteVolume: a.minuteVolume },
    marketKey: `SPOT:${a.symbol}`,
    pathKey: a.quote === undefined || a.quote === 'USDT' ? a.base : a.symbol,
    rpi: a.rpi ?? false,
  };
}

function margin(s: SimInstrument, maxCrossed: string, maxIsolated: string): SimInstrument {
  return {
    ...s,
    wire: {
      category: 'MARGIN',
      symbol: s.wire.symbol,
      baseCoin: s.wire.baseCoin,
      quoteCoin: s.wire.quoteCoin,
      pricePrecision: s.wire.pricePrecision,
      quantityPrecision: s.wire.quantityPrecision,
      quotePrecision: s.wire.quotePrecision,
      minOrderAmount: s.wire.minOrderAmount,
      maxProductOrderNum: '400',
      maxPositionNum: '50',
      maxLeverage: maxIsolated,
      status: s.wire.status ?? 'online',
      launchTime: s.wire.launchTime ?? LAUNCH,
      symbolType: s.wire.symbolType ?? 'crypto',
      isIsolatedBaseBorrowable: 'true',
      isIsolatedQuotedBorrowable: 'true',
      warningRiskRatio: '0.8',
      liquidationRiskRatio: '1',
      maxCrossedLeverage: maxCrossed,
      maxIsolatedLeverage: maxIsolated,
      userMinBorrow: '0.00001',
    },
    rpi: false,
  };
}

interface RealityArgs {
  code: string;
  price: string;
  status?: InstrumentStatus | undefined;
}

function reality(a: RealityArgs): SimInstrument {
  const symbol = `${a.code}USDT`;
  return {
    wire: {
      category: 'SPOT',
      symbol,
      isRwa: 'YES',
      isReality: 'yes',
      baseCoin: a.code,
      quoteCoin: 'USDT',
      buyLimitPriceRatio: '0.05',
      sellLimitPriceRatio: '0.05',
      // Not a spec field for spot; the simulator publishes its minimum quantity here (documented).
      minOrderQty: '0.01',
      pricePrecision: '2',
      quantityPrecision: '4',
      quotePrecision: '4',
      minOrderAmount: '1',
      maxSymbolOrderNum: '',
      maxProductOrderNum: '400',
      status: a.status ?? 'online',
      launchTime: String(Date.UTC(2025, 5, 30)),
      symbolType: 'stock',
      areaSymbol: 'YES',
    },
    model: { basePrice: a.price, dailyVol: 0.018, minuteVolume: 40 },
    marketKey: `SPOT:${symbol}`,
    pathKey: a.code,
    realityCode: a.code,
    rpi: false,
  };
}

interface FuturesArgs {
  category: Exclude<Category, 'SPOT' | 'MARGIN'>;
  symbol: string;
  base: string;
  quote: string;
  pp: number;
  qp: number;
  priceMultiplier: string;
  quantityMultiplier: string;
  minOrderQty: string;
  maxOrderQty: string;
  maxMarketOrderQty: string;
  maxLeverage: string;
  price: string;
  vol: number;
  minuteVolume: number;
  status?: InstrumentStatus;
  delivery?: { period: 'this_quarter' | 'next_quarter'; start: number; time: number } | undefined;
  rpi?: boolean;
  offTime?: string;
}

function futures(a: FuturesArgs): SimInstrument {
  const d = a.delivery;
  return {
    wire: {
      category: a.category,
      symbol: a.symbol,
      baseCoin: a.base,
      quoteCoin: a.quote,
      buyLimitPriceRatio: '0.01',
      sellLimitPriceRatio: '0.01',
      feeRateUpRatio: '0.1',
      makerFeeRate: '0.0002',
      takerFeeRate: '0.0006',
      openCostUpRatio: '0.1',
      minOrderQty: a.minOrderQty,
      maxOrderQty: a.maxOrderQty,
      maxMarketOrderQty: a.maxMarketOrderQty,
      pricePrecision: String(a.pp),
      quantityPrecision: String(a.qp),
      priceMultiplier: a.priceMultiplier,
      quantityMultiplier: a.quantityMultiplier,
      type: d ? 'delivery' : 'perpetual',
      minOrderAmount: '5',
      maxSymbolOrderNum: '',
      maxProductOrderNum: '400',
      maxPositionNum: '150',
      status: a.status ?? 'online',
      offTime: a.offTime ?? '',
      limitOpenTime: '',
      maintainTime: '',
      ...(d
        ? { deliveryTime: String(d.time), deliveryStartTime: String(d.start), deliveryPeriod: d.period }
        : {}),
      launchTime: LAUNCH,
      fundInterval: d ? '' : '8',
      minLeverage: '1',
      maxLeverage: a.maxLeverage,
      symbolType: 'crypto',
    },
    model: { basePrice: a.price, dailyVol: a.vol, minuteVolume: a.minuteVolume },
    marketKey: `${a.category}:${a.symbol}`,
    pathKey: a.base,
    rpi: a.rpi ?? false,
  };
}

/** Delivery time of the quarter containing `ms`: the last Friday of the quarter's last month, 08:00 UTC. */
export function quarterDelivery(ms: number, quartersAhead = 0): number {
  const d = new Date(ms);
  const q = Math.floor(d.getUTCMonth() / 3) + quartersAhead;
  const year = d.getUTCFullYear() + Math.floor(q / 4);
  const lastMonth = (q % 4) * 3 + 2;
  const lastDay = new Date(Date.UTC(year, lastMonth + 1, 0));
  const back = (lastDay.getUTCDay() - 5 + 7) % 7;
  return Date.UTC(year, lastMonth, lastDay.getUTCDate() - back, 8, 0);
}

/** The delivery windows current at `ms`: this_quarter is trading, next_quarter is being configured. */
export function deliverySchedule(ms: number): {
  thisQuarter: { start: number; time: number };
  nextQuarter: { start: number; time: number };
} {
  let k = 0;
  while (quarterDelivery(ms, k) <= ms) k++;
  const prev = quarterDelivery(ms, k - 1);
  const cur = quarterDelivery(ms, k);
  const next = quarterDelivery(ms, k + 1);
  return { thisQuarter: { start: prev, time: cur }, nextQuarter: { start: cur, time: next } };
}

const yymmdd = (ms: number): string => new Date(ms).toISOString().slice(2, 10).replaceAll('-', '');

/** The Reality codes of the table, each the ticker of a Reality pair `<CODE>USDT`. */
export const REALITY_CODES = [
  'AAPL',
  'TSLA',
  'NVDA',
  'MSFT',
  'AMZN',
  'GOOGL',
  'META',
  'NFLX',
  'AMD',
  'INTC',
  'COIN',
] as const;

/** Most synthetic Reality pairs a simulator lists (`extraPairs`): enough for any bench, a table still small. */
export const MAX_EXTRA_PAIRS = 1000;

/** Synthetic Reality codes: X and three letters, a prefix no code of REALITY_CODES has. */
const SYNTHETIC_CODE_RE = /^X[A-Z]{3}$/;

/** Whether a code has the form of a synthetic Reality code (XAAA, XAAB, ...). */
export const isSyntheticRealityCode = (code: string): boolean => SYNTHETIC_CODE_RE.test(code);

/**
 * The first `n` synthetic Reality codes, XAAA, XAAB, ...: pairs listed beside the real ones (`extraPairs`)
 * with the same rules (precisions, limits, sessions, status online), for benches of many symbols.
 */
export function syntheticRealityCodes(n: number): string[] {
  if (!Number.isInteger(n) || n < 0 || n > MAX_EXTRA_PAIRS)
    throw new RangeError(`extraPairs must be a whole number from 0 to ${MAX_EXTRA_PAIRS}, got ${n}`);
  const letter = (k: number) => String.fromCharCode(65 + (Math.floor(k) % 26));
  return Array.from({ length: n }, (_, i) => `X${letter(i / 676)}${letter(i / 26)}${letter(i)}`);
}

/** A synthetic pair's starting price: spread over 20-500 USDT, fixed per position. */
const syntheticPrice = (i: number): string => `${20 + ((i * 37) % 481)}.00`;

/** Reality pairs deliberately in a non-online status, so risk checks can be tested. */
export const STATUS_SYMBOLS: Readonly<Record<Exclude<InstrumentStatus, 'online'>, string>> = {
  listed: 'METAUSDT',
  limit_open: 'NFLXUSDT',
  limit_close: 'AMDUSDT',
  offline: 'INTCUSDT',
  restrictedAPI: 'COINUSDT',
};

/** The Reality code suspended by default (its pair is online but trading is suspended). */
export const DEFAULT_SUSPENDED_CODES: readonly string[] = ['GOOGL'];

/** The crypto spot pairs; a USDT pair shares its base coin's random path with that coin's futures. */
const SPOT_PAIRS: readonly SpotArgs[] = [
  { symbol: 'BTCUSDT', base: 'BTC', pp: 2, qp: 6, price: '65000.00', vol: 0.03, minuteVolume: 2, rpi: true },
  { symbol: 'ETHUSDT', base: 'ETH', pp: 2, qp: 4, price: '3200.00', vol: 0.035, minuteVolume: 25, rpi: true },
  { symbol: 'SOLUSDT', base: 'SOL', pp: 3, qp: 3, price: '150.000', vol: 0.045, minuteVolume: 300 },
  { symbol: 'XRPUSDT', base: 'XRP', pp: 4, qp: 2, price: '0.5500', vol: 0.05, minuteVolume: 40000 },
  { symbol: 'DOGEUSDT', base: 'DOGE', pp: 5, qp: 1, price: '0.12000', vol: 0.06, minuteVolume: 200000 },
  {
    symbol: 'ETHBTC',
    base: 'ETH',
    quote: 'BTC',
    pp: 6,
    qp: 4,
    price: '0.049200',
    vol: 0.02,
    minuteVolume: 5,
    minOrderAmount: '0.0001',
  },
];

/** The margin pairs: a spot pair's row under MARGIN, with its maximum crossed and isolated leverage. */
const MARGIN_PAIRS: readonly { symbol: string; maxCrossed: string; maxIsolated: string }[] = [
  { symbol: 'BTCUSDT', maxCrossed: '3', maxIsolated: '10' },
  { symbol: 'ETHUSDT', maxCrossed: '3', maxIsolated: '10' },
  { symbol: 'SOLUSDT', maxCrossed: '3', maxIsolated: '5' },
];

/** The maximum cross-margin leverage of a Reality pair's MARGIN row (the simulator's choice). */
export const REALITY_MAX_CROSSED_LEVERAGE = '3';

/** Each Reality pair's starting price; its status is online unless STATUS_SYMBOLS names the pair. */
const REALITY_PRICES: Readonly<Record<(typeof REALITY_CODES)[number], string>> = {
  AAPL: '190.00',
  TSLA: '240.00',
  NVDA: '120.00',
  MSFT: '420.00',
  AMZN: '180.00',
  GOOGL: '165.00',
  META: '500.00',
  NFLX: '650.00',
  AMD: '160.00',
  INTC: '30.00',
  COIN: '220.00',
};

/** A futures contract of the table; a delivery contract's symbol gets its delivery date (YYMMDD) appended. */
type FuturesRow = Omit<FuturesArgs, 'delivery'> & { readonly delivery?: 'this_quarter' | 'next_quarter' };

const FUTURES: readonly FuturesRow[] = [
  {
    category: 'USDT-FUTURES',
    symbol: 'BTCUSDT',
    base: 'BTC',
    quote: 'USDT',
    pp: 1,
    qp: 3,
    priceMultiplier: '0.1',
    quantityMultiplier: '0.001',
    minOrderQty: '0.001',
    maxOrderQty: '1200',
    maxMarketOrderQty: '220',
    maxLeverage: '125',
    price: '65010.0',
    vol: 0.03,
    minuteVolume: 20,
    rpi: true,
  },
  {
    category: 'USDT-FUTURES',
    symbol: 'ETHUSDT',
    base: 'ETH',
    quote: 'USDT',
    pp: 2,
    qp: 2,
    priceMultiplier: '0.01',
    quantityMultiplier: '0.01',
    minOrderQty: '0.01',
    maxOrderQty: '10000',
    maxMarketOrderQty: '2000',
    maxLeverage: '100',
    price: '3201.00',
    vol: 0.035,
    minuteVolume: 200,
    rpi: true,
  },
  {
    category: 'USDT-FUTURES',
    symbol: 'SOLUSDT',
    base: 'SOL',
    quote: 'USDT',
    pp: 3,
    qp: 1,
    priceMultiplier: '0.001',
    quantityMultiplier: '0.1',
    minOrderQty: '0.1',
    maxOrderQty: '50000',
    maxMarketOrderQty: '10000',
    maxLeverage: '75',
    price: '150.050',
    vol: 0.045,
    minuteVolume: 2000,
  },
  {
    category: 'USDT-FUTURES',
    symbol: 'LUNAUSDT',
    base: 'LUNA',
    quote: 'USDT',
    pp: 4,
    qp: 0,
    priceMultiplier: '0.0001',
    quantityMultiplier: '1',
    minOrderQty: '1',
    maxOrderQty: '0',
    maxMarketOrderQty: '100000',
    maxLeverage: '20',
    price: '0.4000',
    vol: 0.08,
    minuteVolume: 5000,
    status: 'offline',
    offTime: String(Date.UTC(2024, 4, 12)),
  },
  {
    category: 'USDT-FUTURES',
    symbol: 'BTCUSDT',
    base: 'BTC',
    quote: 'USDT',
    pp: 1,
    qp: 3,
    priceMultiplier: '0.1',
    quantityMultiplier: '0.001',
    minOrderQty: '0.001',
    maxOrderQty: '500',
    maxMarketOrderQty: '100',
    maxLeverage: '50',
    price: '65600.0',
    vol: 0.03,
    minuteVolume: 3,
    delivery: 'this_quarter',
  },
  {
    category: 'USDT-FUTURES',
    symbol: 'BTCUSDT',
    base: 'BTC',
    quote: 'USDT',
    pp: 1,
    qp: 3,
    priceMultiplier: '0.1',
    quantityMultiplier: '0.001',
    minOrderQty: '0.001',
    maxOrderQty: '500',
    maxMarketOrderQty: '100',
    maxLeverage: '50',
    price: '66300.0',
    vol: 0.03,
    minuteVolume: 1,
    delivery: 'next_quarter',
  },
  {
    category: 'COIN-FUTURES',
    symbol: 'BTCUSD',
    base: 'BTC',
    quote: 'USD',
    pp: 1,
    qp: 0,
    priceMultiplier: '0.1',
    quantityMultiplier: '1',
    minOrderQty: '1',
    maxOrderQty: '100000',
    maxMarketOrderQty: '20000',
    maxLeverage: '125',
    price: '65005.0',
    vol: 0.03,
    minuteVolume: 50000,
    rpi: true,
  },
  {
    category: 'COIN-FUTURES',
    symbol: 'ETHUSD',
    base: 'ETH',
    quote: 'USD',
    pp: 2,
    qp: 0,
    priceMultiplier: '0.01',
    quantityMultiplier: '1',
    minOrderQty: '1',
    maxOrderQty: '100000',
    maxMarketOrderQty: '20000',
    maxLeverage: '100',
    price: '3200.50',
    vol: 0.035,
    minuteVolume: 30000,
  },
  {
    category: 'USDC-FUTURES',
    symbol: 'BTCPERP',
    base: 'BTC',
    quote: 'USDC',
    pp: 1,
    qp: 4,
    priceMultiplier: '0.1',
    quantityMultiplier: '0.0001',
    minOrderQty: '0.0001',
    maxOrderQty: '500',
    maxMarketOrderQty: '100',
    maxLeverage: '100',
    price: '65008.0',
    vol: 0.03,
    minuteVolume: 1,
    rpi: true,
  },
  {
    category: 'USDC-FUTURES',
    symbol: 'ETHPERP',
    base: 'ETH',
    quote: 'USDC',
    pp: 2,
    qp: 3,
    priceMultiplier: '0.01',
    quantityMultiplier: '0.001',
    minOrderQty: '0.001',
    maxOrderQty: '5000',
    maxMarketOrderQty: '1000',
    maxLeverage: '100',
    price: '3200.80',
    vol: 0.035,
    minuteVolume: 10,
  },
];

/** The status of a Reality code's pair: the one STATUS_SYMBOLS gives it, else online. */
const realityStatus = (code: string): InstrumentStatus | undefined =>
  (Object.keys(STATUS_SYMBOLS) as (keyof typeof STATUS_SYMBOLS)[]).find(
    (status) => STATUS_SYMBOLS[status] === `${code}USDT`,
  );

/**
 * Builds the instrument table. Delivery contracts depend on the time (they roll every quarter), so
 * the table is built for the simulator's start time.
 *
 * @example const table = simInstruments(Date.UTC(2026, 0, 5)); table.filter(i => i.wire.isReality === 'yes')
 */
export function simInstruments(startTime: number, extraPairs = 0): SimInstrument[] {
  const { thisQuarter, nextQuarter } = deliverySchedule(startTime);
  const windows = { this_quarter: thisQuarter, next_quarter: nextQuarter };
  const spots = SPOT_PAIRS.map(spot);
  const realities = REALITY_CODES.map((code) =>
    reality({ code, price: REALITY_PRICES[code], status: realityStatus(code) }),
  );
  const spotOf = (symbol: string): SimInstrument => {
    const s = spots.find((i) => i.wire.symbol === symbol);
    if (s === undefined) throw new Error(`MARGIN_PAIRS names ${symbol}, which is not in SPOT_PAIRS`);
    return s;
  };
  return [
    ...spots,
    ...MARGIN_PAIRS.map((m) => margin(spotOf(m.symbol), m.maxCrossed, m.maxIsolated)),
    ...realities,
    // Reality pairs are margin pairs too (cross margin up to REALITY_MAX_CROSSED_LEVERAGE).
    ...realities.map((r) => margin(r, REALITY_MAX_CROSSED_LEVERAGE, REALITY_MAX_CROSSED_LEVERAGE)),
    ...syntheticRealityCodes(extraPairs).map((code, i) => reality({ code, price: syntheticPrice(i) })),
    ...FUTURES.map(({ delivery, ...row }) => {
      if (delivery === undefined) return futures(row);
      const w = windows[delivery];
      return futures({
        ...row,
        symbol: `${row.symbol}${yymmdd(w.time)}`,
        delivery: { period: delivery, ...w },
      });
    }),
  ];
}
